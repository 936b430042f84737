"""Finding melds in a hand: what a bot can lay down or lay off. Pure and rule-checked.

This is the hot path of a simulation, so the search never extends a choice the
hand cannot hold.
"""
from collections import Counter

from bots.candidates import Candidate, candidate_runs, candidate_sets
from domain.cards import JOKER, rank, suit
from domain.going_down import read_contract
from domain.hands import CONTRACTS
from domain.laying_off import run_ends
from domain.melds import set_rank
from domain.refusal import Refused
from domain.state import GameState, PlacedMeld


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
    choice the hand cannot hold is never extended; and as candidates come fewest jokers first,
    the first one that needs more jokers than are left ends the choice."""
    left = dict(counts)
    chosen: list[int] = []

    def extend(start: int):
        if len(chosen) == k:
            yield [list(candidates[i][0]) for i in chosen], dict(left)
            return
        for i in range(start, len(candidates) - k + len(chosen) + 1):
            if candidates[i][1] > left.get(JOKER, 0):
                break
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
