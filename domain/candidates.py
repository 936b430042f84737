"""Candidate melds in a hand: every set and run a search for the contract (domain/finder.py) tries, with
what each takes.

A candidate is (cards, jokers it spends, how many of each card it takes). Runs are
the hot path of a simulation: a suit's runs depend only on which of its values the
hand holds, how many of its aces and how many jokers, so they are worked out once
per such shape and remembered.
"""
from collections.abc import Mapping
from functools import lru_cache

from zioncheck.domain.cards import JOKER, NATURALS, RANK_VALUE, SUITS, card_at, rank, suit

Candidate = tuple[tuple[str, ...], int, tuple[tuple[str, int], ...]]


def candidate_sets(counts: Mapping[str, int], jokers: int) -> list[Candidate]:
    """Every rank's naturals as one set, padded with jokers to three (R4, R6); ranks in hand order."""
    by_rank: dict[str, list[tuple[str, int]]] = {}
    for card, n in counts.items():
        if card != JOKER:
            by_rank.setdefault(_RANK[card], []).append((card, n))
    found: list[Candidate] = []
    for need in by_rank.values():
        candidate = rank_set(tuple(need))
        if candidate[1] <= jokers:
            found.append(candidate)
    return found


@lru_cache(maxsize=1 << 12)
def rank_set(need: tuple[tuple[str, int], ...]) -> Candidate:
    """The set of one rank's naturals, `need` (each card and how many the hand holds), padded with jokers
    to three; remembered, as a hand holds the same few cards of a rank turn after turn."""
    cards = tuple(card for card, n in need for _ in range(n))
    pad = max(0, 3 - len(cards))
    return cards + (JOKER,) * pad, pad, (*need, (JOKER, pad)) if pad else need


def candidate_runs(counts: Mapping[str, int], jokers: int) -> list[Candidate]:
    """Every window of 4+ values in a suit that the hand can fill, gaps filled with jokers (R5, R6);
    by suit, then low end, then high end."""
    held = dict.fromkeys(SUITS, 0)
    for card in counts:
        if card != JOKER:
            suit_, bit = _BIT[card]
            held[suit_] |= bit
    found: list[Candidate] = []
    for suit_ in SUITS:
        if held[suit_].bit_count() + jokers >= 4:  # else not even 4 cards of a run can be filled
            found += suit_runs(suit_, held[suit_], min(2, counts.get("A" + suit_, 0)), jokers)
    return found


@lru_cache(maxsize=1 << 14)
def suit_runs(suit_: str, held: int, aces: int, jokers: int) -> tuple[Candidate, ...]:
    """The runs of one suit: bit v of `held` is set when the hand holds value v (1..13).

    A window grows one value at a time from its low end and stops growing once it
    needs more jokers than the hand holds. An ace fills value 1 and, if a second one
    is held (or value 1 is outside the window), value 14.
    """
    found: list[Candidate] = []
    for low in range(1, 12):
        cards: list[str] = []
        missing = 0
        for value in range(low, 15):
            natural = held >> value & 1 if value < 14 else aces >= (2 if low == 1 else 1)
            cards.append(card_at(value, suit_) if natural else JOKER)
            missing += not natural
            if missing > jokers:
                break
            if value - low >= 3 and missing < len(cards):
                found.append(_run(cards, missing))
    return tuple(found)


# Per natural card: its rank, and its suit with the bit of its value (1..13) in that suit.
_RANK = {card: rank(card) for card in NATURALS}
_BIT = {card: (suit(card), 1 << RANK_VALUE[rank(card)]) for card in NATURALS}


def _run(cards: list[str], missing: int) -> Candidate:
    need: dict[str, int] = {}
    for card in cards:
        if card != JOKER:
            need[card] = need.get(card, 0) + 1
    return tuple(cards), missing, (*need.items(), (JOKER, missing)) if missing else tuple(need.items())
