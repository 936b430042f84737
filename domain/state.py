"""The state of one game, as folded from its events. Immutable: evolve makes a new one."""
from collections.abc import Iterable
from functools import cached_property
from typing import TypeVar

import msgspec

from zioncheck.contracts.commands import PERSON, Limits
from zioncheck.contracts.events import MeldKind
from zioncheck.contracts.views import TableMeld
from zioncheck.domain.hands import Contract
from zioncheck.domain.melds import run_suit, set_rank
from zioncheck.domain.presets import ZIONCHECK, Ruleset

T = TypeVar("T")


class PlacedMeld(msgspec.Struct, frozen=True, dict=True):
    """A meld on the table. `low` is a run's first value (R5); 0 for a set.

    `dict=True` only makes room for the cached `suit`, `rank` and `shown`, which are not
    fields: they are never encoded or compared.
    """
    owner: int
    index: int
    kind: MeldKind
    cards: tuple[str, ...]
    low: int = 0

    @property
    def high(self) -> int:
        return self.low + len(self.cards) - 1

    @cached_property
    def suit(self) -> str:
        return run_suit(self.cards)

    @cached_property
    def rank(self) -> str | None:
        """A set's rank (R4); None for a run."""
        return set_rank(self.cards) if self.kind == "set" else None

    @cached_property
    def shown(self) -> TableMeld:
        """The meld as the views show it: made once, as a meld stays on the table through many views."""
        return TableMeld(owner=self.owner, index=self.index, kind=self.kind, cards=list(self.cards))


class GameState(msgspec.Struct, frozen=True, gc=False):
    """`gc=False`: evolve copies the state for every event, and the cycle collector need not track the
    copies, as a state only ever holds immutable values (tuples, numbers, strings, frozen structs) and so
    can never be part of a reference cycle."""
    game_id: str = ""
    players: int = 0
    decks: int = 0
    first_dealer: int = 0
    hand: int = 0
    dealer: int = 0
    hands: tuple[tuple[str, ...], ...] = ()
    stock: tuple[str, ...] = ()          # top first
    discard: tuple[str, ...] = ()        # bottom first, top last
    discarders: tuple[int | None, ...] = ()  # R10: who discarded each pile card; None if dealt there
    window_open: bool = False            # R11a: the top discard may be claimed
    claims: tuple[int, ...] = ()         # R11a: claimants in command-stream order
    table: tuple[PlacedMeld, ...] = ()
    down: tuple[bool, ...] = ()
    turn: int = 0
    drawn: bool = False
    extra_turn: bool = False             # R11: the first player's second turn is still owed
    hand_over: bool = True               # no hand in play (before the first deal, or after one ended)
    winner: int | None = None
    scores: tuple[int, ...] | None = None
    stuck: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    game_over: bool = False
    winners: tuple[int, ...] = ()
    reshuffles: int = 0
    commitments: tuple[str, ...] = ()    # per hand, in order
    seeds: tuple[str, ...] = ()          # revealed, per hand, in order
    # R19-R21: who sits where, the game's clock, and who is away. Service rules, not card rules.
    seats: tuple[str, ...] = ()          # "person" or a bot's name, per seat
    limits: Limits = Limits()
    turn_no: int = 0                     # R19: turns begun in the game; a turn's deadline names it
    timeouts: tuple[int, ...] = ()       # R20: turns in a row each seat let run out
    idle: tuple[bool, ...] = ()          # R20: a bot keeps the seat until its person is back
    presence: int = 0                    # R21: seats gone idle or come back so far
    abandoned: bool = False              # R21: ended with no person at the table
    stacked: bool = False                # the starter deals every hand, not the dealer service
    released: bool = False               # R22: the open window is held for people no longer
    ready: tuple[bool, ...] = ()         # R23: persons ready for the next hand
    pause_over: bool = False             # R23: the next hand may be dealt
    rules: Ruleset = ZIONCHECK           # R24: the game played; Zioncheck unless its start said otherwise
    public: bool = False                 # anyone may watch the game: its start said so (StartGame.public)

    @property
    def started(self) -> bool:
        return self.players > 0

    def person(self, seat: int) -> bool:
        """Whether a person (not one of the house's bots) sits in `seat`."""
        return seat < len(self.seats) and self.seats[seat] == PERSON

    def present(self, seat: int) -> bool:
        """Whether a person sits in `seat` and is at the table, not away (R20)."""
        return self.person(seat) and not (seat < len(self.idle) and self.idle[seat])

    def is_ready(self, seat: int) -> bool:
        """Whether `seat` has said it is ready for the next hand, in the pause after this one (R23)."""
        return seat < len(self.ready) and self.ready[seat]

    @property
    def contract(self) -> Contract:
        """R7, R24.1: the contract of the hand in play (the first hand's before any is dealt)."""
        return self.rules.contract(self.hand) or self.rules.contracts[0]

    @property
    def last_hand(self) -> bool:
        """R17: the hand in play is the game's last."""
        return self.hand >= self.rules.hands

    @property
    def top(self) -> str | None:
        return self.discard[-1] if self.discard else None

    @property
    def top_discarder(self) -> int | None:
        return self.discarders[-1] if self.discarders else None


def find_meld(state: GameState, owner: int, index: int) -> PlacedMeld | None:
    for meld in state.table:
        if meld.owner == owner and meld.index == index:
            return meld
    return None


def without(hand: tuple[str, ...], cards: Iterable[str]) -> tuple[str, ...] | None:
    """The hand less `cards` (as a multiset), or None if it does not hold them all."""
    rest = list(hand)
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            return None
    return tuple(rest)


def played(hand: tuple[str, ...], cards: Iterable[str]) -> tuple[str, ...]:
    """The hand less `cards`, which an event says it held: evolve's `without`, with no check."""
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return tuple(rest)


def replace_at(items: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """`items` with `value` at `i`. Through a list: for the few seats of a table, or a meld's cards, one
    copy costs less than the slices and joins of `items[:i] + (value,) + items[i + 1:]`."""
    changed = list(items)
    changed[i] = value
    return tuple(changed)


def dealt_index(state: GameState, hand: int) -> int | None:
    """Where `hand` sits in the per-deal commitments and seeds, or None if it was not dealt here.

    They hold one entry per hand dealt, the last for the hand in play; a game may start at a
    later hand (StartGame.first_hand), so hand 1 is not always the first entry.
    """
    index = len(state.commitments) - 1 - (state.hand - hand)
    return index if 0 <= index < len(state.commitments) else None
