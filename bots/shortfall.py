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
from itertools import combinations

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
    short, outs, _, _ = _shortfall(tuple(sorted(cards)), sets, runs)
    return short, outs


def plan(cards: tuple[str, ...], sets: int, runs: int) -> tuple[int, Outs, frozenset[str], frozenset[str]]:
    """`shortfall`, the cards of `cards` that some cheapest choice of melds keeps (a card outside them may go
    without the hand falling further from the contract), and those that every cheapest choice keeps (a card
    outside these may go, some cheapest choice left whole). Before the contract is met only."""
    return _shortfall(tuple(sorted(cards)), sets, runs)


@lru_cache(maxsize=1 << 16)
def _shortfall(cards: tuple[str, ...], sets: int, runs: int) -> tuple[int, Outs, frozenset[str], frozenset[str]]:
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
    kept: set[str] = set()
    core: list[set[str]] = []   # the cards every cheapest choice keeps, once one is found

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
            kept.clear()
            core.clear()
        if short == 0:
            return
        used: set[str] = set()
        for i, held in chosen:
            outs.update(c for c in _WINDOWS[i][3] if c not in held)
            used.update(held)
        kept.update(used)
        if sets:
            for value in range(1, 14):
                slot = _slot(by_rank_left[value])
                if 0 < slot <= threshold:
                    outs.update(_RANK_CARDS[value])
                if by_rank_left[value] and slot <= threshold:
                    kept.update(_RANK_CARDS[value])
            for value in _set_core(by_rank_left, sets, threshold):
                used.update(_RANK_CARDS[value])
        if core:
            core[0] &= used
        else:
            core.append(used)
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
        return best[0], _ALL_OUTS, frozenset(cards), frozenset()
    return best[0], frozenset(outs), frozenset(kept), frozenset(core[0] if core else ())


def clear_memory() -> None:
    """Forget the hands worked out so far (they are remembered, as a hand changes by a card a turn)."""
    _shortfall.cache_clear()
    _whole.cache_clear()
    _suit_table.cache_clear()


def _slot(held: int) -> int:
    """The places a set of one rank still lacks when the hand holds `held` of that rank."""
    return max(0, 3 - held)


def _set_core(by_rank: list[int], sets: int, threshold: int) -> list[int]:
    """The ranks every cheapest choice of `sets` sets takes: those that lack fewer places than the dearest
    set chosen (`threshold`), and those that lack as many where no other rank could take their place."""
    below = [value for value in range(1, 14) if by_rank[value] and _slot(by_rank[value]) < threshold]
    at = [value for value in range(1, 14) if by_rank[value] and _slot(by_rank[value]) == threshold]
    taken = sum(1 + (by_rank[value] > 3 and _slot(by_rank[value] - 3) < threshold) for value in below)
    return below + at if taken + len(at) <= sets else below


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


# --- R24.6: a contract laid whole -----------------------------------------------------------------------

_NONE = -(1 << 20)   # no melds of that shape at all
_ACE = 1 << 1 | 1 << 14


def whole_shortfall(cards: tuple[str, ...], sets: int, runs: int, places: int) -> int:
    """R24.6: the cards `cards` still lack before `places` cards, every card of the hand among them, make
    the contract's `sets` sets and `runs` runs. Its melds may be as long as the places need; every place
    none of its naturals fills is a card to get, less its jokers. A hand about to draw counts the card the
    draw brings (`places` one more than it holds): none short, it goes out with the right draw.

    Two runs of one suit are apart, or overlap where the hand holds a second copy, or touch with nine cards
    or more (R12a); an ace is read at either end of its suit, once a copy. Sets take every card of their
    ranks, of ranks the hand holds."""
    return _whole(tuple(sorted(cards)), sets, runs, places)[0]


def whole_plan(cards: tuple[str, ...], sets: int, runs: int, places: int) -> tuple[int, frozenset[str]]:
    """`whole_shortfall`, and the cards of `cards` its best melds hold: any other is one to shed."""
    return _whole(tuple(sorted(cards)), sets, runs, places)


Spans = tuple[tuple[int, int], ...]   # runs of one suit, each its lowest and highest value


@lru_cache(maxsize=1 << 16)
def _whole(cards: tuple[str, ...], sets: int, runs: int, places: int) -> tuple[int, frozenset[str]]:
    jokers = cards.count(JOKER)
    naturals = [card for card in cards if card != JOKER]
    best, kept = _NONE, frozenset[str]()
    for chosen in _set_choices(naturals, sets):
        set_places = sum(max(3, n) for n in chosen.values()) + 3 * (sets - len(chosen))
        run_places = places - set_places
        if run_places < 4 * runs:
            continue
        covered = sum(chosen.values())
        laid = {card for card in naturals if rank(card) in chosen}
        if runs:
            shapes = [[0, 0, 0] for _ in SUITS]   # per suit: values held once, twice, aces held
            for card in naturals:
                if rank(card) in chosen:
                    continue
                s, bits, _ = _CARD[card]
                shape = shapes[s]
                if bits == _ACE:
                    shape[2] += 1
                elif shape[0] & bits:
                    shape[1] |= bits
                else:
                    shape[0] |= bits
            held, spans = _runs_covered(tuple(tuple(shape) for shape in shapes), runs, run_places)
            covered += held
            laid.update(card_at(value, SUITS[s]) for s, low, high in spans for value in range(low, high + 1))
        if covered > best:
            best, kept = covered, frozenset(card for card in naturals if card in laid)
    if best < 0:
        return places, frozenset()   # no melds of the contract's shape fit the places: every card is to come
    return max(0, places - best - jokers), kept


def _set_choices(naturals: list[str], sets: int) -> list[dict[str, int]]:
    """Every choice of `sets` ranks the hand holds (fewer if it holds fewer), each with the cards it holds of
    that rank; one empty choice for a contract of runs alone."""
    if not sets:
        return [{}]
    held: dict[str, int] = {}
    for card in naturals:
        held[rank(card)] = held.get(rank(card), 0) + 1
    return [{r: held[r] for r in chosen} for chosen in combinations(sorted(held), min(sets, len(held)))] or [{}]


Point = tuple[int, int, tuple[tuple[int, int, int], ...]]   # places taken, cards held, the runs (suit, low, high)


def _runs_covered(shapes: tuple[tuple[int, ...], ...], runs: int, places: int) -> tuple[int, tuple]:
    """The most naturals `runs` runs of at most `places` places in all can hold, and those runs (suit, low,
    high): each suit's own choices (`_suit_runs`: the places each takes and the cards it holds, where holding
    more takes more places), joined one suit at a time."""
    nothing: Point = (0, 0, ())
    joined: list[list[Point]] = [[nothing], *([] for _ in range(runs))]
    for s, (first, second, aces) in enumerate(shapes):
        if not first and not aces:
            continue   # a suit the hand holds nothing of adds no run worth laying
        table = _suit_runs(first, second, aces, runs, places)
        merged = [list(points) for points in joined]
        for k in range(1, runs + 1):
            for k2 in range(1, k + 1):
                for used, held, laid in joined[k - k2]:
                    for more, also, spans in table[k2]:
                        if used + more <= places:
                            merged[k].append((used + more, held + also,
                                              laid + tuple((s, low, high) for low, high in spans)))
        joined = [_frontier(points) for points in merged]
    if not joined[runs]:
        return _NONE, ()
    _, held, laid = max(joined[runs], key=lambda point: point[1])
    return held, laid


def _frontier(points: list) -> list:
    """The points (places, cards held, ...) that no other holds as many cards with as few places."""
    kept: list = []
    for point in sorted(points, key=lambda point: (point[0], -point[1])):
        if not kept or point[1] > kept[-1][1]:
            kept.append(point)
    return kept


def _suit_runs(first: int, second: int, aces: int, runs: int, places: int) -> tuple[tuple[tuple[int, int, Spans], ...],
                                                                                    ...]:
    """For one suit (values held once and twice as bits 2 to 13, aces counted apart): per number of runs up
    to `runs`, each choice of runs worth making, as the places it takes, the cards it holds and its runs
    (R12a). Worked out for 16 places at least, and remembered: a hand's suits change a card a turn."""
    return _suit_table(first, second, aces, runs, max(places, 16))


@lru_cache(maxsize=1 << 14)
def _suit_table(first: int, second: int, aces: int, runs: int,
                places: int) -> tuple[tuple[tuple[int, int, Spans], ...], ...]:
    held = first | (_ACE if aces else 0)
    cards = first.bit_count() + second.bit_count() + aces
    # A run's ends are cards the hand holds, but for a run of four, which may start anywhere.
    spans = [(low, high, sum(1 << v for v in range(low, high + 1)) & ~_ACE, (low == 1) + (high == 14))
             for low in range(1, 12) for high in range(low + 3, 15)
             if high - low + 1 <= places and (high - low == 3 or held >> low & 1 and held >> high & 1)]
    none: Spans = ()
    best: list[dict[int, tuple[int, Spans]]] = [{0: (0, none)}, *({} for _ in range(runs))]

    def note(count: int, length: int, union: int, twice: int, ends: int, chosen: Spans) -> None:
        covered = (first & union).bit_count() + (second & twice).bit_count() + min(aces, ends)
        if covered > best[count].get(length, (-1,))[0]:
            best[count][length] = (covered, chosen)

    # Two or three runs of one suit are tried only where it holds cards enough for them to be worth it.
    most = min(runs, 3 if cards >= 9 else 2 if cards >= 5 else 1)
    for i, (low1, high1, bits1, ends1) in enumerate(spans):
        length1 = high1 - low1 + 1
        note(1, length1, bits1, 0, ends1, ((low1, high1),))
        if most < 2:
            continue
        for j in range(i + 1, len(spans)):
            low2, high2, bits2, ends2 = spans[j]
            length2 = high2 - low2 + 1
            if length1 + length2 > places or high1 + 1 == low2 and length1 + length2 < 9:
                continue   # R12a: two runs that touch with fewer than nine cards are one run
            union2, twice2 = bits1 | bits2, bits1 & bits2
            note(2, length1 + length2, union2, twice2, ends1 + ends2, ((low1, high1), (low2, high2)))
            if most < 3:
                continue
            for low3, high3, bits3, ends3 in spans[j + 1:]:
                length3 = high3 - low3 + 1
                if length1 + length2 + length3 > places or high2 + 1 == low3 and length2 + length3 < 9:
                    continue
                note(3, length1 + length2 + length3, union2 | bits3, twice2 | (union2 & bits3),
                     ends1 + ends2 + ends3, ((low1, high1), (low2, high2), (low3, high3)))
    return tuple(tuple(_frontier([(used, covered, chosen) for used, (covered, chosen) in row.items()]))
                 for row in best)
