"""What one seat may know of a game: its own cards and what the table shows, never a hidden card.

The strong bot decides from a `Sight` alone. It is built from the game state by `sight_of`, which
copies the seat's own cards and the public table and keeps of every other hand only its size and of
the stock only its count: a card another seat holds, or the stock's order, is not in it to be read.
"""
from collections import Counter

import msgspec

from zioncheck.domain.cards import JOKER, NATURALS
from zioncheck.domain.hands import CONTRACTS, Contract
from zioncheck.domain.state import GameState, PlacedMeld


class Sight(msgspec.Struct, frozen=True):
    """One seat's knowledge at one moment (R9-R15): its cards, the others' sizes, the table and the pile."""
    seat: int
    players: int
    decks: int
    hand_no: int
    cards: tuple[str, ...]               # the seat's own hand
    hand_sizes: tuple[int, ...]          # every seat's number of cards, its own included
    table: tuple[PlacedMeld, ...]
    discard: tuple[str, ...]             # bottom first, top last
    discarders: tuple[int | None, ...]   # who threw each pile card (R10)
    down: tuple[bool, ...]
    turn: int
    drawn: bool
    window_open: bool
    stock: int                           # cards left in the stock, never which
    reshuffles: int
    totals: tuple[int, ...]

    @property
    def top(self) -> str | None:
        return self.discard[-1] if self.discard else None

    @property
    def top_discarder(self) -> int | None:
        return self.discarders[-1] if self.discarders else None

    @property
    def contract(self) -> Contract:
        return CONTRACTS[self.hand_no]

    def can_take(self) -> bool:
        """R10: the pile has a card this seat did not throw."""
        return bool(self.discard) and self.top_discarder != self.seat

    def unseen(self) -> Counter[str]:
        """The copies of each card this seat has not seen: in the stock or another seat's hand, for all it knows."""
        left: Counter[str] = Counter({card: self.decks for card in NATURALS})
        left[JOKER] = 2 * self.decks
        left.subtract(self.cards)
        left.subtract(self.discard)
        for meld in self.table:
            left.subtract(meld.cards)
        return left


def sight_of(state: GameState, seat: int) -> Sight:
    """What `seat` knows of `state`: its own cards and the public table; of the other hands their sizes."""
    return Sight(
        seat=seat, players=state.players, decks=state.decks, hand_no=state.hand, cards=state.hands[seat],
        hand_sizes=tuple(len(hand) for hand in state.hands), table=state.table, discard=state.discard,
        discarders=state.discarders, down=state.down, turn=state.turn, drawn=state.drawn,
        window_open=state.window_open, stock=len(state.stock), reshuffles=state.reshuffles, totals=state.totals)
