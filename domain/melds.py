"""Melds: sets (R4), runs (R5) and jokers in them (R6)."""
from collections.abc import Iterable, Sequence

from zioncheck.contracts.events import MeldKind
from zioncheck.domain.cards import JOKER, RANK_VALUE, card_at, rank, suit


def naturals(cards: Iterable[str]) -> list[str]:
    return [card for card in cards if card != JOKER]


def set_rank(cards: Sequence[str]) -> str | None:
    """R4, R6: the rank of a valid set (3+ cards, one rank, jokers wild), else None."""
    if len(cards) < 3:
        return None
    ranks = {rank(card) for card in cards if card != JOKER}
    return ranks.pop() if len(ranks) == 1 else None


def run_low(cards: Sequence[str]) -> int | None:
    """R5, R6: the value (1..14) of a valid run's first position, else None.

    Cards are read ascending; a joker stands for the card of its position, and an
    ace is 1 at the low end or 14 at the high end, never in between.
    """
    natural = naturals(cards)
    if not 4 <= len(cards) <= 14 or not natural:
        return None
    suit_ = suit(natural[0])
    if any(suit(card) != suit_ for card in natural):
        return None
    at, first = next((i, card) for i, card in enumerate(cards) if card != JOKER)
    candidates = (1, 14) if rank(first) == "A" else (RANK_VALUE[rank(first)],)
    for value in candidates:
        low = value - at
        if low >= 1 and low + len(cards) - 1 <= 14 and _fits(cards, low, suit_):
            return low
    return None


def run_start(cards: Sequence[str]) -> int:
    """R5, R6: the value of a run's first position, for a run already read as valid (`run_low` with no
    checks): its first natural's value less its place, an ace being 1 only in the first place."""
    at, first = next((i, card) for i, card in enumerate(cards) if card != JOKER)
    value = RANK_VALUE[rank(first)]
    return (14 if value == 1 and at else value) - at


def _fits(cards: Sequence[str], low: int, suit_: str) -> bool:
    return all(card == JOKER or card == card_at(low + i, suit_) for i, card in enumerate(cards))


def run_suit(cards: Iterable[str]) -> str:
    """The suit of a run: its first natural card's."""
    return suit(next(card for card in cards if card != JOKER))


def kinds(cards: Sequence[str]) -> tuple[MeldKind, ...]:
    """R6: what a meld can be read as; one natural and 3+ jokers reads as both."""
    found: list[MeldKind] = []
    if set_rank(cards) is not None:
        found.append("set")
    if run_low(cards) is not None:
        found.append("run")
    return tuple(found)
