"""Finding melds in a hand: what a bot can lay down or lay off. Pure and rule-checked.

This is the hot path of a simulation, so candidates carry their card counts and
the search never extends a choice the hand cannot hold.
"""
from collections import Counter

from domain.cards import JOKER, SUITS, card_at, rank, suit
from domain.going_down import read_contract
from domain.hands import CONTRACTS
from domain.laying_off import run_ends
from domain.melds import set_rank
from domain.refusal import Refused
from domain.state import GameState, PlacedMeld

# A candidate meld: its cards, the jokers it spends, and how many of each card it takes.
Candidate = tuple[list[str], int, tuple[tuple[str, int], ...]]

# Per suit, the card at each run value 1..14 (index 0 unused; an ace is both 1 and 14).
_SUIT_VALUES = {suit_: ["", *(card_at(value, suit_) for value in range(1, 15))] for suit_ in SUITS}


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
            found.append((cards + [JOKER] * pad, pad, _needs(need, pad)))
    return found


def candidate_runs(counts: Counter, jokers: int) -> list[Candidate]:
    """Every window of 4+ values in a suit that the hand can fill, gaps filled with jokers (R5, R6).

    Windows grow one value at a time from each low end; the first copies of a card
    go to the lowest positions, and a window that needs more jokers than the hand
    holds ends the growing. A low end whose first four values already need too many
    jokers is skipped at once.
    """
    found = []
    for suit_ in SUITS:
        at = _SUIT_VALUES[suit_]
        held = [card in counts for card in at]
        if sum(held) - held[14] + jokers < 4 or not any(held):
            continue
        for low in range(1, 12):
            if held[low] + held[low + 1] + held[low + 2] + held[low + 3] + jokers < 4:
                continue
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
                    found.append((cards[:], missing, _needs(spent, missing)))
    return found


def _needs(naturals: dict[str, int], jokers: int) -> tuple[tuple[str, int], ...]:
    return (*naturals.items(), (JOKER, jokers)) if jokers else tuple(naturals.items())


def find_contract(hand: tuple[str, ...], hand_no: int) -> list[list[str]] | None:
    """Melds that meet the hand's contract (R12) and leave a card to discard, or None."""
    contract = CONTRACTS[hand_no]
    counts = Counter(hand)
    jokers = counts[JOKER]
    by_cost = lambda item: (item[1], -len(item[0]))  # fewest jokers, then most cards
    sets = sorted(candidate_sets(counts, jokers), key=by_cost) if contract.sets else []
    if next(_pick(sets, contract.sets, counts), None) is None:
        return None  # not even the whole hand holds the sets
    runs = sorted(candidate_runs(counts, jokers), key=by_cost) if contract.runs else []
    for chosen_runs, left in _pick(runs, contract.runs, counts):
        if sum(map(len, chosen_runs)) + 3 * contract.sets >= len(hand):
            continue  # any sets would leave no card to discard
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
            for card, n in need:
                if left.get(card, 0) < n:
                    break
            else:  # the hand still holds every card this candidate takes
                for card, n in need:
                    left[card] -= n
                chosen.append(i)
                yield from extend(i + 1)
                chosen.pop()
                for card, n in need:
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
    if card != JOKER and suit(card) != meld.suit:
        return []  # R5: a run is one suit
    return run_ends(meld, card)
