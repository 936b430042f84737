"""Finding melds in a hand: what a bot can lay down or lay off. Pure and rule-checked.

This is the hot path of a simulation, so the search never extends a choice the
hand cannot hold.
"""
from collections import Counter

from zioncheck.bots.candidates import Candidate, candidate_runs, candidate_sets
from zioncheck.contracts.commands import End
from zioncheck.domain.cards import JOKER, rank, suit
from zioncheck.domain.going_down import read_contract
from zioncheck.domain.hands import CONTRACTS
from zioncheck.domain.laying_off import run_ends
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import GameState, PlacedMeld


def find_contract(hand: tuple[str, ...], hand_no: int) -> list[list[str]] | None:
    """Melds that meet the hand's contract (R12) and leave a card to discard, or None."""
    contract = CONTRACTS[hand_no]
    counts = Counter(hand)
    jokers = counts[JOKER]
    spare = len(hand) - 1  # cards the melds may use: one must be left to discard (R15)
    runs = candidate_runs(counts, jokers) if contract.runs else []
    if len(runs) < contract.runs:
        return None
    sets = sorted(candidate_sets(counts, jokers), key=_by_cost) if contract.sets else []
    if next(_pick(sets, contract.sets, counts, spare), None) is None:
        return None  # not even the whole hand holds the sets
    runs.sort(key=_by_cost)
    for chosen_runs, left in _pick(runs, contract.runs, counts, spare - 3 * contract.sets):
        for chosen_sets, _ in _pick(sets, contract.sets, left, spare - sum(map(len, chosen_runs))):
            melds = chosen_sets + chosen_runs
            if _legal(hand_no, melds):
                return melds
    return None


def _by_cost(item: Candidate) -> tuple[int, int]:
    """Fewest jokers, then most cards."""
    return item[1], -len(item[0])


def _pick(candidates: list[Candidate], k: int, counts: dict[str, int], most: int):
    """Combinations of k candidates that the hand can hold at once with at most `most` cards, in
    itertools.combinations order, each with the cards it leaves.

    A choice only takes more as it grows, so one the hand cannot hold, or that is over `most`
    cards, is never extended; and as candidates come fewest jokers first, the first one that
    needs more jokers than are left ends the choice.
    """
    left = dict(counts)
    left.setdefault(JOKER, 0)  # then every card a candidate takes has a count
    chosen: list[int] = []

    def extend(start: int, room: int):
        if len(chosen) == k:
            yield [list(candidates[i][0]) for i in chosen], dict(left)
            return
        for i in range(start, len(candidates) - k + len(chosen) + 1):
            cards, jokers, need = candidates[i]
            if jokers > left[JOKER]:
                break
            if len(cards) > room:
                continue
            for card, n in need:
                if left[card] < n:
                    break
            else:  # the hand still holds every card this candidate takes
                for card, n in need:
                    left[card] -= n
                chosen.append(i)
                yield from extend(i + 1, room - len(cards))
                chosen.pop()
                for card, n in need:
                    left[card] += n

    return extend(0, most)


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


def fitting_ends(meld: PlacedMeld, card: str) -> list[End | None]:
    if meld.kind == "set":
        return [None] if card == JOKER or rank(card) == meld.rank else []
    if card != JOKER and suit(card) != meld.suit:
        return []  # R5: a run is one suit
    return [*run_ends(meld, card)]
