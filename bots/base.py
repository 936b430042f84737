"""What every bot shares: the two questions it answers, from a seat's sight alone, and how it reads a hand."""
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable
from typing import Protocol

from zioncheck.bots.sight import Sight, sight_of
from zioncheck.contracts.commands import Command, SwapJoker
from zioncheck.domain.cards import JOKER, NATURALS, RANK_VALUE, points, rank, suit
from zioncheck.domain.joker_swap import stands_for
from zioncheck.domain.state import GameState, PlacedMeld


class Bot(Protocol):
    """A bot decides from one seat's sight (bots/sight.py) and from nothing else: `decide` and `react` are
    given a Sight, which holds no card the seat may not see. `move` and `out_of_turn` ask the same of a
    table held in this process, reducing its game to the seat's sight first (SeatBot); the bots service
    asks `decide` and `react` of the sight of the seat's own view."""
    name: str

    def decide(self, sight: Sight) -> Command:
        """The turn player's next command: draw, go down, lay off, swap or discard."""

    def react(self, sight: Sight) -> list[Command]:
        """Claims and joker swaps this seat sends when a discard lands."""

    def move(self, state: GameState, seat: int) -> Command:
        """`decide`, for `seat` of a game held in this process."""

    def out_of_turn(self, state: GameState, seat: int) -> list[Command]:
        """`react`, for `seat` of a game held in this process."""


class SeatBot(ABC):
    """What every bot of the house shares: asked about a game held in this process, it answers from the
    seat's sight of it (sight_of), as it would from the seat's view. Its `decide` and `react` see no more."""

    @abstractmethod
    def decide(self, sight: Sight) -> Command:
        """The turn player's next command: draw, go down, lay off, swap or discard."""

    @abstractmethod
    def react(self, sight: Sight) -> list[Command]:
        """Claims and joker swaps this seat sends when a discard lands."""

    def move(self, state: GameState, seat: int) -> Command:
        return self.decide(sight_of(state, seat))

    def out_of_turn(self, state: GameState, seat: int) -> list[Command]:
        return self.react(sight_of(state, seat))


def joker_swaps(sight: Sight) -> list[SwapJoker]:
    """R14: every joker in a run that the seat holds the natural card for."""
    return swaps_on(sight.table, sight.cards, sight.seat)


def swaps_on(table: Iterable[PlacedMeld], cards: Collection[str], seat: int) -> list[SwapJoker]:
    """R14: every joker in a run of `table` that `cards` hold the natural card for, as `seat`'s swaps."""
    swaps = []
    for meld in table:
        if meld.kind != "run" or JOKER not in meld.cards:
            continue
        for position, card in enumerate(meld.cards):
            if card == JOKER:
                needed = stands_for(meld, position)
                if needed in cards:
                    swaps.append(SwapJoker(seat=seat, target=(meld.owner, meld.index), card=needed))
    return swaps


def related(card: str, others) -> bool:
    """Whether `card` could join a meld with the others: same rank, or a near neighbour in suit."""
    return card == JOKER or card in others or not _KIN[card].isdisjoint(others)


def makes_meld(card: str, hand, sets: bool = True, runs: bool = True) -> bool:
    """Whether `card` makes a meld with the naturals of `hand`: a set of three (R4), or a run of four of
    its suit (R5) in which the hand holds the other three; only of the kinds asked for."""
    if card == JOKER:
        return True
    if sets and sum(1 for other in hand if other != JOKER and rank(other) == rank(card)) >= 2:
        return True
    if not runs:
        return False
    held = {RANK_VALUE[rank(other)] for other in hand if other != JOKER and suit(other) == suit(card)}
    if 1 in held:
        held.add(14)
    return any(all(v in held for v in range(low, low + 4) if v != value)
               for value in _values(card) for low in range(max(1, value - 3), min(value, 11) + 1))


def least_useful(hand) -> str:
    """Before going down, the card to shed: the dearest (R3) natural related to no other card of the hand
    (see `related`), else the dearest natural, a joker last. The naturals are tried dearest first, so
    that the cheaper ones' relations are seldom worked out."""
    held = set(hand)
    naturals = sorted(held - {JOKER}, key=_SHED_ORDER.__getitem__)
    for card in naturals:
        # held is a set, so that isdisjoint walks the card's few kin rather than the whole hand
        if _KIN[card].isdisjoint(held) and hand.count(card) == 1:
            return card
    return naturals[0] if naturals else JOKER


def dearest(hand, useful) -> str:
    """The card to shed: the dearest (R3) natural not in `useful`, else the dearest natural, a joker
    last; between equals, the one that sorts first."""
    naturals = [card for card in hand if card != JOKER]
    pool = [card for card in naturals if card not in useful] or naturals
    return min(pool, key=_SHED_ORDER.__getitem__) if pool else JOKER


def _values(card: str) -> tuple[int, ...]:
    value = RANK_VALUE[rank(card)]
    return (1, 14) if value == 1 else (value,)


# Per natural card: the other naturals it is related to (its rank in another suit, or its suit
# within two values, an ace being 1 and 14), and its place in shedding order (dearest first).
_KIN = {
    card: frozenset(other for other in NATURALS if other != card and (
        rank(other) == rank(card)
        or suit(other) == suit(card) and any(0 < abs(a - b) <= 2 for a in _values(card) for b in _values(other))))
    for card in NATURALS
}
_SHED_ORDER = {card: place for place, card in enumerate(sorted(NATURALS, key=lambda card: (-points(card), card)))}

