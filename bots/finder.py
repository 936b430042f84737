"""Finding melds in a hand: what a bot can lay down or lay off. Pure and rule-checked.

This is the hot path of a simulation, so candidates carry their card counts and
the search never extends a choice the hand cannot hold.
"""
from collections import Counter

from domain.cards import JOKER, SUITS, card_at, rank
from domain.going_down import read_contract
from domain.hands import CONTRACTS
from domain.laying_off import run_ends
from domain.melds import set_rank
from domain.refusal import Refused
from domain.state import GameState, PlacedMeld

# A candidate meld: its cards, the jokers it spends, and how many of each card it takes.
Candidate = tuple[list[str], int, dict[str, int]]

_SUIT_VALUES = {suit: [""] + [card_at(value, suit) for value in range(1, 15)] for suit in SUITS}


def candidate_sets(counts: Counter, jokers: int) -> list[Candidate]:
    """Every rank's naturals as one set, padded with jokers to three (R4, R6); ranks in hand order."""
    by_rank: dict[str, dict[str, int]] = {}
    for card, n in counts.items():
        if card != JOKER:
            by_rank.setdefault(rank(card), {})[card] = n
    found = []
    for need in by_rank.values():
        cards = [card for card, n in need.items() for _ in range(n)]
        pad = max(0, 3 - len(cards))
        if pad <= jokers:
            found.append((cards + [JOKER] * pad, pad, need | {JOKER: pad} if pad else need))
    return found


def candidate_runs(counts: Counter, jokers: int) -> list[Candidate]:
    """Every window of 4+ values in a suit that the hand can fill, gaps filled with jokers (R5, R6).

    Windows grow one value at a time from each low end; the first copies of a card
    go to the lowest positions, and a window that needs more jokers than the hand
    holds ends the growing.
    """
    found = []
    for suit in SUITS:
        at = _SUIT_VALUES[suit]
        if not any(at[value] in counts for value in range(1, 14)):
            continue
        for low in range(1, 12):
            spent: dict[str, int] = {}
            cards: list[str] = []
            missing = 0
            for value in range(low, 15):
                card = at[value]
                used = spent.get(card, 0)
                if used < counts[card]:
                    spent[card] = used + 1
                    cards.append(card)
                else:
                    missing += 1
                    cards.append(JOKER)
                if missing > jokers:
                    break
                if value - low >= 3 and missing < len(cards):
                    found.append((cards[:], missing, spent | {JOKER: missing} if missing else spent.copy()))
    return found


def find_contract(hand: tuple[str, ...], hand_no: int) -> list[list[str]] | None:
    """Melds that meet the hand's contract (R12) and leave a card to discard, or None."""
    contract = CONTRACTS[hand_no]
    counts = Counter(hand)
    jokers = counts[JOKER]
    by_cost = lambda item: (item[1], -len(item[0]))  # fewest jokers, then most cards
    runs = sorted(candidate_runs(counts, jokers), key=by_cost)
    sets = sorted(candidate_sets(counts, jokers), key=by_cost)
    for chosen_runs, left in _pick(runs, contract.runs, dict(counts)):
        for chosen_sets, _ in _pick(sets, contract.sets, left):
            melds = chosen_sets + chosen_runs
            if sum(map(len, melds)) < len(hand) and _legal(hand_no, melds):
                return melds
    return None


def _pick(candidates: list[Candidate], k: int, counts: dict[str, int]):
    """Combinations of k candidates that the hand can hold at once, in itertools.combinations
    order, each with the cards it leaves. What a choice holds only shrinks as it grows, so a
    choice the hand cannot hold is never extended."""
    left = dict(counts)
    chosen: list[int] = []

    def extend(start: int):
        if len(chosen) == k:
            yield [list(candidates[i][0]) for i in chosen], dict(left)
            return
        for i in range(start, len(candidates) - k + len(chosen) + 1):
            need = candidates[i][2]
            if all(left.get(card, 0) >= n for card, n in need.items()):
                for card, n in need.items():
                    left[card] -= n
                chosen.append(i)
                yield from extend(i + 1)
                chosen.pop()
                for card, n in need.items():
                    left[card] += n

    return extend(0)


def _legal(hand_no: int, melds) -> bool:
    try:
        read_contract(hand_no, melds)
        return True
    except Refused:
        return False


def lay_offs(state: GameState, seat: int):
    """Every (card, meld, end) the seat could lay off now (R13): naturals first, each in hand order."""
    hand = state.hands[seat]
    cards = [card for card in dict.fromkeys(hand) if card != JOKER] + [JOKER] * (JOKER in hand)
    for card in cards:
        for meld in state.table:
            for end in fitting_ends(meld, card):
                yield card, meld, end


def fitting_ends(meld: PlacedMeld, card: str) -> list[str | None]:
    if meld.kind == "set":
        return [None] if card == JOKER or rank(card) == set_rank(meld.cards) else []
    return run_ends(meld, card)
