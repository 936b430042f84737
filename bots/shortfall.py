"""How far a hand is from its contract: the fewest cards it still lacks, and which cards would bring it nearer.

A hand's *shortfall* is the least number of cards it must still get (by drawing, taking or claiming)
before it holds melds that meet the contract (R7, R12): the cheapest choice of runs of four (R5) and sets
of three (R4), counting the places none of its naturals fills, less the jokers it holds (R6), each meld
keeping one natural. Its *outs* are the cards that would lower the shortfall by one: the missing cards
of every cheapest choice, and a joker. It is the measure card players call "how many away".

Runs are windows of four values in a suit; two runs of one suit may not touch (R12a), and two that
overlap need a second copy of the cards they share. A meld longer than the least it needs never lowers
the count, so only the shortest melds are tried.
"""
from functools import lru_cache

from zioncheck.domain.cards import JOKER, NATURALS, RANK_VALUE, RANKS, SUITS, card_at, rank, suit

Outs = frozenset[str]

_ACE_BITS = 1 << 1 | 1 << 14
# Per natural card: its suit's index and the bits of its values (an ace is 1 and 14), and its rank's value.
_CARD = {card: (SUITS.index(suit(card)), (1 << RANK_VALUE[rank(card)]) | (_ACE_BITS if rank(card) == "A" else 0),
                RANK_VALUE[rank(card)]) for card in NATURALS}
# Every run of four: (suit index, low value, bits of its values, its cards).
_WINDOWS = tuple((s, low, sum(1 << v for v in range(low, low + 4)),
                  tuple(card_at(v, suit_) for v in range(low, low + 4)))
                 for s, suit_ in enumerate(SUITS) for low in range(1, 12))
_RANK_CARDS = {RANK_VALUE[r]: frozenset(r + suit_ for suit_ in SUITS) for r in RANKS}
_ALL_OUTS = frozenset(NATURALS) | {JOKER}
# Runs tried: the fullest windows, enough for any hand near its contract, and few enough that a hand
# swollen by claims is still searched in milliseconds.
_MOST_WINDOWS = 24


def shortfall(cards: tuple[str, ...], sets: int, runs: int) -> tuple[int, Outs]:
    """The cards `cards` still lack to meet a contract of `sets` sets and `runs` runs, and the cards
    that would lower that by one (none when nothing is lacking)."""
    return _shortfall(tuple(sorted(cards)), sets, runs)


@lru_cache(maxsize=1 << 16)
def _shortfall(cards: tuple[str, ...], sets: int, runs: int) -> tuple[int, Outs]:
    jokers = 0
    by_rank = [0] * 14
    first = [0, 0, 0, 0]    # per suit, the values held once or more
    second = [0, 0, 0, 0]   # ... twice or more
    for card in cards:
        if card == JOKER:
            jokers += 1
            continue
        s, bits, value = _CARD[card]
        if first[s] & bits:
            second[s] |= bits
        first[s] |= bits
        by_rank[value] += 1
    windows = sorted(((4 - (first[s] & bits).bit_count(), i) for i, (s, _, bits, _) in enumerate(_WINDOWS)
                      if first[s] & bits), key=lambda w: w[0])[:_MOST_WINDOWS] if runs else []
    set_floor = _set_cost(by_rank, sets)[0]
    best = [1 << 20]
    outs: set[str] = set()

    def settle(missing: int, empty: int, chosen: list[tuple[int, frozenset[str]]], by_rank_left: list[int]) -> None:
        cost, empty_sets, threshold = _set_cost(by_rank_left, sets)
        missing += cost
        empty += empty_sets
        short = max(empty, missing - jokers)
        if short > best[0]:
            return
        if short < best[0]:
            best[0] = short
            outs.clear()
        if short == 0:
            return
        for i, held in chosen:
            outs.update(c for c in _WINDOWS[i][3] if c not in held)
        if threshold:
            for value in range(1, 14):
                if 0 < _slot(by_rank_left[value]) <= threshold:
                    outs.update(_RANK_CARDS[value])
        if missing - jokers > empty:
            outs.add(JOKER)

    def pick(k: int, start: int, missing: int, one: list[int], two: list[int], chosen: list[tuple[int, frozenset[str]]],
             by_rank_left: list[int]) -> None:
        if k == runs:
            settle(missing, 0, chosen, by_rank_left)
            return
        for j in range(start, len(windows)):
            if best[0] == 0:
                return   # the contract is met: no cheaper choice, and no card to wish for
            floor_missing, i = windows[j]
            if max(0, missing + (runs - k) * floor_missing + set_floor - jokers) > best[0]:
                break
            s, low, bits, window_cards = _WINDOWS[i]
            if any(_WINDOWS[c][0] == s and abs(_WINDOWS[c][1] - low) == 4 for c, _ in chosen):
                continue   # R12a: two runs of one suit that touch are one run
            taken = one[s] & bits
            if not taken:
                continue
            if taken & _ACE_BITS:
                taken |= _ACE_BITS & one[s]
            left_one, left_two = one[:], two[:]
            left_one[s] = (one[s] & ~taken) | (two[s] & taken)
            left_two[s] = two[s] & ~taken
            held = frozenset(c for c in window_cards if one[s] & _CARD[c][1] & bits)
            ranks_left = by_rank_left[:]
            for c in held:
                ranks_left[_CARD[c][2]] -= 1
            pick(k + 1, j, missing + 4 - len(held), left_one, left_two, [*chosen, (i, held)], ranks_left)

    pick(0, 0, 0, first, second, [], by_rank)
    if runs and best[0] == 1 << 20:   # no suit holds a card for a run: every run is still to come
        cost, empty_sets, _ = _set_cost(by_rank, sets)
        best[0] = max(empty_sets + runs, cost + 4 * runs - jokers)
        return best[0], _ALL_OUTS
    return best[0], frozenset(outs)


def clear_memory() -> None:
    """Forget the hands worked out so far (they are remembered, as a hand changes by a card a turn)."""
    _shortfall.cache_clear()


def _slot(held: int) -> int:
    """The places a set of one rank still lacks when the hand holds `held` of that rank."""
    return max(0, 3 - held)


def _set_cost(by_rank: list[int], sets: int) -> tuple[int, int, int]:
    """The places the `sets` cheapest sets lack, how many of them hold no natural, and the dearest
    place count among those chosen (0 when no set lacks any)."""
    if not sets:
        return 0, 0, 0
    slots = []
    for value in range(1, 14):
        held = by_rank[value]
        if held:
            slots.append(_slot(held))
            if held > 3:
                slots.append(_slot(held - 3))
    slots.sort()
    chosen = slots[:sets]
    empty = sets - len(chosen)
    return sum(chosen) + 3 * empty, empty, 3 if empty else (chosen[-1] if chosen else 0)
