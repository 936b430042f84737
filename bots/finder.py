"""Finding melds in a hand: what a bot can lay down or lay off. Pure and rule-checked."""
from collections import Counter
from itertools import combinations

from domain.cards import JOKER, SUITS, card_at, rank
from domain.going_down import read_contract
from domain.hands import CONTRACTS
from domain.laying_off import run_ends
from domain.melds import set_rank
from domain.refusal import Refused
from domain.state import GameState, PlacedMeld


def candidate_sets(counts: Counter, jokers: int) -> list[tuple[list[str], int]]:
    """Every rank's naturals as one set, padded with jokers to three (R4, R6)."""
    found = []
    for card_rank in {rank(c) for c in counts if c != JOKER}:
        cards = [c for c in counts if c != JOKER and rank(c) == card_rank for _ in range(counts[c])]
        need = max(0, 3 - len(cards))
        if need <= jokers:
            found.append((cards + [JOKER] * need, need))
    return found


def candidate_runs(counts: Counter, jokers: int) -> list[tuple[list[str], int]]:
    """Every window of 4+ values in a suit that the hand can fill, gaps filled with jokers (R5, R6)."""
    found = []
    for suit in SUITS:
        for low in range(1, 12):
            for high in range(low + 3, 15):
                need = Counter(card_at(v, suit) for v in range(low, high + 1))
                missing = sum(max(0, n - counts[c]) for c, n in need.items())
                if missing > jokers:
                    break
                if missing == high - low + 1:
                    continue
                spent = Counter()
                cards = []
                for v in range(low, high + 1):
                    c = card_at(v, suit)
                    use = c if spent[c] < counts[c] else JOKER
                    spent[use] += 1
                    cards.append(use)
                found.append((cards, missing))
    return found


def find_contract(hand: tuple[str, ...], hand_no: int) -> list[list[str]] | None:
    """Melds that meet the hand's contract (R12) and leave a card to discard, or None."""
    contract = CONTRACTS[hand_no]
    counts = Counter(hand)
    jokers = counts[JOKER]
    by_cost = lambda item: (item[1], -len(item[0]))  # fewest jokers, then most cards
    runs = sorted(candidate_runs(counts, jokers), key=by_cost)
    sets = sorted(candidate_sets(counts, jokers), key=by_cost)
    for chosen_runs in _pick(runs, contract.runs, counts):
        left = counts - Counter(c for meld in chosen_runs for c in meld)
        for chosen_sets in _pick([s for s in sets if _fits(s[0], left)], contract.sets, left):
            melds = chosen_sets + chosen_runs
            if sum(map(len, melds)) < len(hand) and _legal(hand_no, melds):
                return melds
    return None


def _pick(candidates, k: int, counts: Counter):
    """Combinations of k candidates that the hand can hold at once."""
    for combo in combinations(candidates, k):
        melds = [list(cards) for cards, _ in combo]
        if _fits([c for m in melds for c in m], counts):
            yield melds


def _fits(cards, counts: Counter) -> bool:
    return not Counter(cards) - counts


def _legal(hand_no: int, melds) -> bool:
    try:
        read_contract(hand_no, melds)
        return True
    except Refused:
        return False


def lay_offs(state: GameState, seat: int):
    """Every (card, meld, end) the seat could lay off now (R13), naturals first."""
    for card in sorted(set(state.hands[seat]), key=lambda c: c == JOKER):
        for meld in state.table:
            for end in fitting_ends(meld, card):
                yield card, meld, end


def fitting_ends(meld: PlacedMeld, card: str) -> list[str | None]:
    if meld.kind == "set":
        return [None] if card == JOKER or rank(card) == set_rank(meld.cards) else []
    return run_ends(meld, card)
