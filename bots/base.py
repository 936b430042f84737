"""What every bot shares: the moves it may make and how it reads a hand."""
from typing import Protocol

from contracts.commands import Command, SwapJoker
from domain.cards import JOKER, RANK_VALUE, card_at, rank, suit
from domain.state import GameState


class Bot(Protocol):
    name: str

    def move(self, state: GameState, seat: int) -> Command:
        """The turn player's next command: draw, go down, lay off, swap or discard."""

    def out_of_turn(self, state: GameState, seat: int) -> list[Command]:
        """Claims and joker swaps this seat sends when a discard lands."""


def joker_swaps(state: GameState, seat: int) -> list[SwapJoker]:
    """R14: every joker in a run that this seat holds the natural card for."""
    hand = state.hands[seat]
    swaps = []
    for meld in state.table:
        if meld.kind != "run":
            continue
        for position, card in enumerate(meld.cards):
            if card == JOKER:
                needed = _stands_for(meld, position)
                if needed in hand:
                    swaps.append(SwapJoker(seat=seat, target=(meld.owner, meld.index), card=needed))
    return swaps


def _stands_for(meld, position: int) -> str:
    return card_at(meld.low + position, meld.suit)


def related(card: str, others) -> bool:
    """Whether `card` could join a meld with the others: same rank, or a near neighbour in suit."""
    if card == JOKER:
        return True
    values = _values(card)
    for other in others:
        if other == JOKER:
            continue
        if rank(other) == rank(card):
            return True
        if suit(other) == suit(card) and any(0 < abs(a - b) <= 2 for a in values for b in _values(other)):
            return True
    return False


def _values(card: str) -> tuple[int, ...]:
    value = RANK_VALUE[rank(card)]
    return (1, 14) if value == 1 else (value,)


def can_take(state: GameState, seat: int) -> bool:
    return bool(state.discard) and state.top_discarder != seat
