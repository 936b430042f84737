"""Finding melds in a hand: what a seat can lay down or lay off. Pure and rule-checked.

Two searches for the contract (R12). `find_contract` is the quick one the bots play by: whole
sets, long runs, fewest jokers; it never extends a choice the hand cannot hold, and it may miss an
arrangement (a card two melds want, a joker that must stand in for a card the hand holds).
`least_contract` is exact for contracts of up to two runs: it finds melds whenever any meet the contract,
so that a seat is told truly whether it can go down (domain/legal.py); for three runs (R24.1) it tries
runs of four and five, as for two. A contract laid whole (R24.6) has a search of its own,
`whole_contract`: the quick search's melds, grown by every card left until none is.

Each takes the contract itself, or a Zioncheck hand's number (R7).
"""
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from typing import NamedTuple

from zioncheck.contracts.commands import End
from zioncheck.domain.candidates import Candidate, candidate_runs, candidate_sets
from zioncheck.domain.cards import JOKER, SUITS, card_at, rank
from zioncheck.domain.going_down import read_contract
from zioncheck.domain.hands import CONTRACTS, Contract
from zioncheck.domain.laying_off import fitting_cards, fitting_ends
from zioncheck.domain.melds import run_low, run_suit
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import GameState, PlacedMeld, without

Melds = list[list[str]]


def contract_of(contract: int | Contract) -> Contract:
    """The contract itself, or Zioncheck's hand of that number (R7)."""
    return CONTRACTS[contract] if isinstance(contract, int) else contract


def find_contract(hand: tuple[str, ...], hand_no: int | Contract) -> Melds | None:
    """Melds that meet the hand's contract (R12) and leave a card to discard, or None; for a contract laid
    whole (R24.6), melds of every card."""
    contract = contract_of(hand_no)
    if contract.whole:
        return whole_contract(hand, contract)
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
    if sum(item[1] for item in sets[:contract.sets]) + sum(item[1] for item in runs[:contract.runs]) > jokers:
        return None  # not even the sets and the runs that spend the fewest jokers find enough of them

    def sets_left(left: Mapping[str, int]) -> bool:
        """Whether runs that leave these cards leave enough sets whole, each on its own: most runs take a
        card some set needs, and more runs only take more."""
        return _holding(sets, left, contract.sets)

    viable = sets_left if contract.sets else None
    for chosen_runs, left in _pick(runs, contract.runs, counts, spare - 3 * contract.sets, viable):
        for chosen_sets, _ in _pick(sets, contract.sets, left, spare - sum(map(len, chosen_runs))):
            melds = chosen_sets + chosen_runs
            if _legal(contract, melds):
                return melds
    return None


def _holding(candidates: list[Candidate], counts: Mapping[str, int], k: int) -> bool:
    """Whether `counts` hold at least k of the candidates, each on its own, and jokers for the k of them
    that spend the fewest (the first, as candidates come fewest jokers first)."""
    jokers = 0
    for _, spent, need in candidates:
        if k <= 0:
            break
        for card, n in need:
            if counts[card] < n:
                break
        else:
            k -= 1
            jokers += spent
    return k <= 0 and jokers <= counts[JOKER]


def _by_cost(item: Candidate) -> tuple[int, int]:
    """Fewest jokers, then most cards."""
    return item[1], -len(item[0])


def _pick(candidates: list[Candidate], k: int, counts: Mapping[str, int], most: int,
          viable: Callable[[Mapping[str, int]], bool] | None = None) -> Iterator[tuple[Melds, dict[str, int]]]:
    """Combinations of k candidates that the hand can hold at once with at most `most` cards, in
    itertools.combinations order, each with the cards it leaves.

    A choice only takes more as it grows, so one the hand cannot hold, or that is over `most`
    cards, is never extended; and as candidates come fewest jokers first, the first one that
    needs more jokers than are left ends the choice. Nor is one that leaves cards `viable` (when
    given) says are too few for what the search needs beside the choice.
    """
    left = dict(counts)
    left.setdefault(JOKER, 0)  # then every card a candidate takes has a count
    chosen: list[int] = []

    def extend(start: int, room: int) -> Iterator[tuple[Melds, dict[str, int]]]:
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
                if viable is None or viable(left):
                    chosen.append(i)
                    yield from extend(i + 1, room - len(cards))
                    chosen.pop()
                for card, n in need:
                    left[card] += n

    return extend(0, most)


def _legal(contract: Contract, melds: Melds) -> bool:
    try:
        read_contract(contract, melds)
        return True
    except Refused:
        return False


# --- the exact search ------------------------------------------------------------------

class _Window(NamedTuple):
    """A run's place: `length` values of `suit` from `low` (1..14, R5), the cards they call for,
    and how many of those the hand does not hold at all."""
    suit: str
    low: int
    length: int
    cards: tuple[str, ...]
    missing: int


def least_contract(hand: tuple[str, ...], hand_no: int | Contract) -> Melds | None:
    """Melds that meet the hand's contract (R12, R12a) and leave a card to discard (R15), or None when
    no melds the hand holds do.

    Only short melds are tried: sets of three, runs of four, and beside a run of its suit a run of
    five. Whenever some melds meet the contract, melds that short do, and they leave more cards in
    hand: a set keeps three of its cards, one of them a natural (R6); a run keeps four in a row, one
    of them a natural; and of two runs of one suit that touch with nine cards or more (R12a), one
    keeps four and the other five in a row, or both keep four with a gap between.
    """
    contract = contract_of(hand_no)
    if contract.whole:
        return whole_contract(hand, contract)
    found = _least_contract(tuple(sorted(hand)), contract)
    return None if found is None else [list(meld) for meld in found]


@lru_cache(maxsize=1 << 12)
def _least_contract(hand: tuple[str, ...], contract: Contract) -> tuple[tuple[str, ...], ...] | None:
    """least_contract of a hand in sorted order, so that a hand is searched once however it is held."""
    sets, runs = contract.sets, contract.runs
    if 3 * sets + 4 * runs >= len(hand):
        return None   # R15: not even the shortest melds leave a card to discard
    naturals = Counter(hand)
    jokers = naturals.pop(JOKER, 0)
    by_rank = Counter(_RANK_OF[card] for card in naturals.elements())
    # Runs only take naturals away from the sets, so the sets alone need at least these jokers.
    for_sets = _set_jokers(by_rank, sets, lendable=0)
    if for_sets > jokers:
        return None
    windows = _windows(naturals, jokers - for_sets, two=runs >= 2)
    for chosen in combinations_with_replacement(windows, runs):
        if sum(window.missing for window in chosen) + for_sets > jokers or not _may_pair(chosen):
            continue
        melds = _placed(chosen, naturals, by_rank, jokers, sets, len(hand))
        if melds is not None and _meets(hand, contract, melds):
            return tuple(tuple(meld) for meld in melds)
    return None


def _windows(naturals: Mapping[str, int], jokers: int, two: bool) -> list[_Window]:
    """Every run's place of four values (and of five, when the contract asks for two runs) that calls
    for a card of the hand and whose other cards `jokers` can stand for; fewest missing first. The
    values a suit's naturals stand at are one bit each (an ace at 1 and 14), so a place's missing cards
    are its length less the bits it shares with them."""
    held = dict.fromkeys(SUITS, 0)
    for card in naturals:
        held[card[-1]] |= _VALUE_BITS[card]
    found = []
    for suit_, low, length, cards, bits in _PLACES if two else _PLACES_OF_FOUR:
        missing = length - (held[suit_] & bits).bit_count()
        if missing < length and missing <= jokers:
            found.append(_Window(suit_, low, length, cards, missing))
    found.sort(key=lambda window: window.missing)
    return found


# Every run's place of four and of five values (R5): suit, low value, length, the cards called for and
# their values as bits.
_PLACES = tuple((suit_, low, length, tuple(card_at(value, suit_) for value in range(low, low + length)),
                 sum(1 << value for value in range(low, low + length)))
                for suit_ in SUITS for length in (4, 5) for low in range(1, 16 - length))
_PLACES_OF_FOUR = tuple(place for place in _PLACES if place[2] == 4)
# Each natural card's run values (1..14) as bits: an ace stands at 1 and at 14.
_VALUE_BITS = {card_at(value, suit_): 1 << value | (1 << 14 if value == 1 else 0)
               for suit_ in SUITS for value in range(1, 14)}


def _may_pair(chosen: Sequence[_Window]) -> bool:
    """A run of five only beside a run of its suit, and no two runs of one suit joined (R12a)."""
    if len(chosen) < 2:
        return all(window.length == 4 for window in chosen)
    if len(chosen) == 2 and chosen[0].suit == chosen[1].suit:
        a, b = chosen
        return not (_touch(a, b) and a.length + b.length < 9)
    for a in chosen:
        if a.length == 5 and not any(b is not a and b.suit == a.suit and _touch(a, b) for b in chosen):
            return False
    return not any(a.suit == b.suit and _touch(a, b) and a.length + b.length < 9 for a, b in combinations(chosen, 2))


def _touch(a: _Window, b: _Window) -> bool:
    return a.low + a.length == b.low or b.low + b.length == a.low


def _set_jokers(by_rank: Mapping[str, int], sets: int, lendable: int) -> int:
    """The fewest jokers `sets` sets of three could need with so many naturals of each rank (R4, R6), a
    set holding a natural of its rank; up to `lendable` more sets may borrow theirs from a run, at
    three jokers in all. _NEVER when the naturals are too few for the sets."""
    if not sets:
        return 0
    costs = [3] * min(lendable, sets)
    for held in by_rank.values():
        for k in range(1, min(held, sets) + 1):   # the k-th set of this rank: 3 less the naturals left for it
            costs.append(3 - min(max(held - 3 * (k - 1), 0), 3))
    if len(costs) < sets:
        return _NEVER
    return sum(sorted(costs)[:sets])


_NEVER = 1 << 20
_RANK_OF = {card_at(value, suit_): rank(card_at(value, suit_)) for suit_ in SUITS for value in range(1, 14)}


def _placed(chosen: Sequence[_Window], naturals: Mapping[str, int], by_rank: Mapping[str, int], jokers: int,
            sets: int, size: int) -> Melds | None:
    """The runs of `chosen` and `sets` sets of three, or None if they would take every card (R15) or
    more jokers than the hand holds. The runs take the hand's naturals first, and the sets what is left:
    that places as many naturals in all as any placing could, and a meld left without a natural
    borrows one a run can spare, a joker taking its place there (as many jokers either way)."""
    if sum(window.length for window in chosen) + 3 * sets >= size:
        return None
    left = dict(naturals)
    runs = [_fill(window, left) for window in chosen]
    if len(runs) >= 2 and not _give_back(runs, chosen):
        return None
    spare_naturals = sum(max(0, _natural_count(run) - 1) for run in runs)
    run_jokers = sum(run.count(JOKER) for run in runs)
    ranks_left = dict(by_rank)
    for card in (card for run in runs for card in run if card != JOKER):
        ranks_left[_RANK_OF[card]] -= 1
    if run_jokers + _set_jokers(ranks_left, sets, spare_naturals) > jokers:
        return None
    ranks = sorted({_RANK_OF[card] for card, n in left.items() if n}
                   | {_RANK_OF[card] for run in runs for card in run if card != JOKER})
    for chosen_ranks in combinations_with_replacement(ranks, sets):
        # Each set has three places; jokers fill those its rank's naturals left cannot (or a run lends one).
        places = {r: 3 * chosen_ranks.count(r) for r in chosen_ranks}
        if run_jokers + sum(n - min(ranks_left[r], n) for r, n in places.items()) > jokers:
            continue
        melds = _sets(chosen_ranks, [list(run) for run in runs], dict(left))
        if melds is not None and sum(meld.count(JOKER) for meld in melds) <= jokers:
            return melds
    return None


def _fill(window: _Window, left: dict[str, int]) -> list[str]:
    """A run in `window`: the naturals `left` still holds, jokers in the other places (R6)."""
    run = []
    for card in window.cards:
        if left.get(card, 0):
            left[card] -= 1
            run.append(card)
        else:
            run.append(JOKER)
    return run


def _natural_count(meld: Sequence[str]) -> int:
    return sum(card != JOKER for card in meld)


def _give_back(runs: list[list[str]], chosen: Sequence[_Window]) -> bool:
    """R6: every run holds a natural. The first took its naturals first, so a later one can be left with
    none: then an earlier one gives it one they share, if it keeps another."""
    for k, run in enumerate(runs):
        if _natural_count(run):
            continue
        if not any(_lend(other, run, chosen[k]) for other in runs[:k]):
            return False
    return True


def _lend(giver: list[str], run: list[str], window: _Window) -> bool:
    if _natural_count(giver) < 2:
        return False
    for place, card in enumerate(window.cards):
        if card in giver:
            giver[giver.index(card)] = JOKER
            run[place] = card
            return True
    return False


def _sets(ranks: Sequence[str], runs: list[list[str]], left: dict[str, int]) -> Melds | None:
    """Sets of three of `ranks` (a rank twice for two sets of it), each with as many of the naturals
    `left` holds as it can take while every set keeps one; a set that finds none borrows one from a
    run that keeps another natural, and a joker takes its place there. Then the runs. None if some set
    finds no natural."""
    found: Melds = []
    for i, rank_ in enumerate(ranks):
        held = [card for card, n in left.items() if _RANK_OF[card] == rank_ for _ in range(n)]
        take = held[:max(0, min(3, len(held) - ranks[i + 1:].count(rank_)))]
        for card in take:
            left[card] -= 1
        if not take:
            borrowed = _borrow(rank_, runs)
            if borrowed is None:
                return None
            take = [borrowed]
        found.append(take + [JOKER] * (3 - len(take)))
    return found + runs


def _borrow(rank_: str, runs: list[list[str]]) -> str | None:
    """A natural of `rank_` out of a run that keeps another, a joker in its place (R6); or None."""
    for run in runs:
        if _natural_count(run) < 2:
            continue
        for place, card in enumerate(run):
            if card != JOKER and _RANK_OF[card] == rank_:
                run[place] = JOKER
                return card
    return None


def _meets(hand: tuple[str, ...], contract: Contract, melds: Melds) -> bool:
    """The check decide makes (R12, R12a, R15): the hand holds the melds, they read as the contract,
    and a card is left."""
    return bool(without(hand, [card for meld in melds for card in meld])) and _legal(contract, melds)


# --- a contract laid whole (R24.6) -------------------------------------------------------------

_WHOLE_TRIES = 2000   # choices of melds grown before the search gives up (decided: a hand of 13 needs far fewer)


def whole_contract(hand: tuple[str, ...], contract: int | Contract) -> Melds | None:
    """R24.6: melds of every card of `hand` that meet the contract, or None when this search finds none.

    The quick search's sets and runs, in its order, each choice grown by the cards it leaves: a
    natural onto a set of its rank or the end of a run it continues, jokers onto a set, else onto
    a run's end, until none is left."""
    found = _whole_contract(tuple(sorted(hand)), contract_of(contract))
    return None if found is None else [list(meld) for meld in found]


@lru_cache(maxsize=1 << 12)
def _whole_contract(hand: tuple[str, ...], contract: Contract) -> tuple[tuple[str, ...], ...] | None:
    """whole_contract of a hand in sorted order. A run holds one suit and a set one rank, so melds of
    runs alone hold no more suits than runs, and sets alone no more ranks than sets."""
    natural = [card for card in hand if card != JOKER]
    if not contract.sets and len({card[-1] for card in natural}) > contract.runs:
        return None
    if not contract.runs and len({card[:-1] for card in natural}) > contract.sets:
        return None
    counts = Counter(hand)
    runs = sorted(candidate_runs(counts, counts[JOKER]), key=_by_cost) if contract.runs else []
    sets = sorted(candidate_sets(counts, counts[JOKER]), key=_by_cost) if contract.sets else []
    tries = 0
    for chosen_runs, left in _pick(runs, contract.runs, counts, len(hand)):
        for chosen_sets, rest in _pick(sets, contract.sets, left, len(hand) - sum(map(len, chosen_runs))):
            tries += 1
            if tries > _WHOLE_TRIES:
                return None
            melds = _grown(chosen_sets, chosen_runs, rest)
            if melds is not None and _legal(contract, melds):
                return tuple(tuple(meld) for meld in melds)
    return None


def _grown(sets: Melds, runs: Melds, rest: Mapping[str, int]) -> Melds | None:
    """The melds with every card of `rest` laid on them (R13's fits), or None when some card fits none."""
    naturals = [card for card, n in rest.items() if card != JOKER for _ in range(n)]
    jokers = rest.get(JOKER, 0)
    grew = True
    while naturals and grew:
        grew = False
        for card in list(naturals):
            if _grow(sets, runs, card):
                naturals.remove(card)
                grew = True
    if naturals:
        return None
    for _ in range(jokers):
        if sets:
            sets[0].append(JOKER)
        elif not any(_grow_end(run, JOKER) for run in runs):
            return None
    return sets + runs


def _grow(sets: Melds, runs: Melds, card: str) -> bool:
    for meld in sets:
        if rank(card) == rank(next(c for c in meld if c != JOKER)):
            meld.append(card)
            return True
    return any(_grow_end(run, card) for run in runs)


def _grow_end(run: list[str], card: str) -> bool:
    """A card at the end of a run it continues (a joker at the high end, else the low); False if none."""
    low = run_low(run)
    if low is None:
        return False
    high, suit_ = low + len(run) - 1, run_suit(run)
    if high < 14 and card in (JOKER, card_at(high + 1, suit_)):
        run.append(card)
        return True
    if low > 1 and card in (JOKER, card_at(low - 1, suit_)):
        run.insert(0, card)
        return True
    return False


# --- laying off --------------------------------------------------------------------------

def lay_offs(state: GameState, seat: int) -> Iterator[tuple[str, PlacedMeld, End | None]]:
    """Every (card, meld, end) the seat could lay off now (R13): naturals first, each in hand order."""
    return lay_offs_on(state.table, state.hands[seat])


def lay_offs_on(melds: Iterable[PlacedMeld], hand: Sequence[str]) -> Iterator[tuple[str, PlacedMeld, End | None]]:
    """Every (card, meld, end) of `hand` that the table's `melds` take (R13): naturals first, each in hand
    order (what a seat holding `hand` could lay off, for one who sees only its own cards and the table)."""
    cards = [card for card in dict.fromkeys(hand) if card != JOKER] + [JOKER] * (JOKER in hand)
    table = [(meld, fitting_cards(meld)) for meld in melds]
    for card in cards:
        for meld, fitting in table:
            if card in fitting:
                for end in fitting_ends(meld, card):
                    yield card, meld, end
