"""What platforms and people read instead of the log: a game's public view and each seat's view.

Views are folds of the log, published in KV zc_views under `<game>.public` and
`<game>.seat.<n>`, and each seat the bots service plays under `<game>.bot.<n>` too (the same
SeatView, under a key only the bots' login may read). `seq` counts the log batches folded, so a client keeps the
view with the highest seq and drops any older one it receives later. `applied`
is the command whose batch was folded last: a sender whose publish ack said seq S
knows its command was handled once a view shows `applied >= S`, and finds it in
its seat's `refusals` if the table refused it.
"""
from typing import Literal

import msgspec

from zioncheck.contracts.commands import End, Limits
from zioncheck.contracts.events import MeldKind

REFUSALS_KEPT = 8   # a seat view keeps that seat's latest refusals, this many


class Contract(msgspec.Struct, frozen=True):
    """R7: what a hand asks for, and how many cards each seat was dealt. `whole` (R24.6): laid with
    every card at once, going out with no discard."""
    sets: int
    runs: int
    dealt: int
    text: str
    whole: bool = False


class TableMeld(msgspec.Struct, frozen=True):
    """A meld on the table; a run's cards ascending, jokers where they stand (R5, R6)."""
    owner: int
    index: int
    kind: MeldKind
    cards: list[str]


class ClaimOutcome(msgspec.Struct, frozen=True):
    """R11a: how one seat's claim ended."""
    seat: int
    outcome: Literal["won", "turn_player_took", "nearer_claimant"]


class ClaimsSettled(msgspec.Struct, frozen=True):
    """R11a: the last claim window of the hand that closed with claims on it."""
    card: str
    discarder: int | None
    outcomes: list[ClaimOutcome]


class HandScore(msgspec.Struct, frozen=True):
    """R15, R16: one finished hand. `winner` is None when the stock ran dry."""
    hand: int
    winner: int | None
    scores: list[int]
    stuck: list[int]


class DealRecord(msgspec.Struct, frozen=True):
    """A hand's fairness record: the dealer's commitment, and its seed once revealed after the hand."""
    hand: int
    dealer: int
    commitment: str
    seed: str = ""


class SeatRefusal(msgspec.Struct, frozen=True):
    """R18: one of a seat's commands that the table refused, as the log holds it.

    `cause` is the command's publish ack seq. `detail` may name the seat's own cards,
    so a refusal is shown in that seat's view only.
    """
    cause: int
    command: str
    reason: str
    detail: str


class LayOffMove(msgspec.Struct, frozen=True):
    """R13: a card of the seat's that the meld `owner`, `index` takes, at `end` of a run (None on a set)."""
    card: str
    owner: int
    index: int
    end: End | None


class JokerSwapMove(msgspec.Struct, frozen=True):
    """R14: a card of the seat's that a joker in the run `owner`, `index` stands for."""
    card: str
    owner: int
    index: int


class SeatMoves(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat may do now, each move one the table accepts (domain/legal.py, docs/rules.md R18).

    `draw_stock`, `take_discard`: the turn's draw (R9, R10). `claim`: a claim on the top discard
    (R11a). `go_down`: melds that meet the hand's contract, one arrangement of the seat's cards
    (R12, R12a, R15); empty when the seat may not go down now or its cards meet no contract.
    `lay_off`: every card and meld end it may lay off (R13). `swap_joker`: every joker it may take
    back (R14). `discard`: the cards it may discard, each once (R9). `ready`: between hands, that it
    is ready for the next (R23).
    """
    draw_stock: bool = False
    take_discard: bool = False
    claim: bool = False
    go_down: list[list[str]] = []
    lay_off: list[LayOffMove] = []
    swap_joker: list[JokerSwapMove] = []
    discard: list[str] = []
    ready: bool = False


class PublicView(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a spectator may know about a game: no card that is not on the table or the pile.

    `applied` is the commands-stream sequence (the `cause`) of the last log batch folded
    in, 0 before any: every command whose publish ack seq is at most `applied` has been
    handled. `hand` is 0 before the first deal. `turn` is None when no hand is in play.
    After a hand ends, its table, pile and hand sizes stay in view until the next deal.
    """
    game_id: str
    seq: int
    applied: int = 0
    players: int
    decks: int
    hand: int
    contract: Contract | None
    dealer: int
    hand_over: bool
    turn: int | None
    drawn: bool
    hand_sizes: list[int]
    table: list[TableMeld]
    discard: list[str]             # bottom first, top last
    stock: int                     # cards left, never which
    down: list[bool]
    discarder: int | None          # who discarded the top card; None if it was dealt there
    window_open: bool              # R11a: the top discard may be claimed now
    claims: list[int]              # R11a: seats claiming the top discard, in stream order
    last_claims: ClaimsSettled | None
    scores: list[HandScore]        # finished hands of this game, in order
    totals: list[int]
    game_over: bool
    winners: list[int]
    deals: list[DealRecord]
    # R19-R21: who sits where ("person" or a bot's name), the seats a bot keeps for their away
    # persons, and whether the game ended with no person left.
    seats: list[str] = []
    idle: list[int] = []
    abandoned: bool = False
    # R19-R23: the deadline running now ("turn", "claim" for a window held for people, "pause" between
    # hands, "abandon" for a game no person is at; "" for none) and when it falls, in seconds since the
    # epoch by the table's clock (None when not known, as in a view rebuilt without the log's headers).
    due: Literal["", "turn", "claim", "pause", "abandon"] = ""
    due_at: float | None = None
    held: bool = False                 # R22: the top discard waits for a person's claim before a bot draws
    ready: list[int] = []              # R23: the seats ready for the next hand
    revealed: list[list[str]] = []     # R15, R23: every seat's cards left, once a hand has ended
    # R24: the game played ("zioncheck", "contract", "liverpool"), its number of hands, and every hand's
    # contract in order (empty for Zioncheck's own six, R7).
    game: str = "zioncheck"
    hands: int = 6
    contracts: list[Contract] = []
    public: bool = False               # its starter let anyone watch it (StartGame.public)
    reshuffles: int = 0                # R16: how often the hand's pile was shuffled into the stock
    bot_seconds: float = 0.0           # the house bots' pause before each move (StartGame.limits)
    limits: Limits = Limits()          # R19-R23: the game's clock as its start set it (StartGame.limits)
    v: int = 1


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat sees: the public view, its own cards in the order it got them, and its refusals.

    `seq` repeats `public.seq` so the key orders like the public one. `refusals` are the
    seat's latest refused commands (at most 8), oldest first: a command of the seat whose
    ack seq is at most `public.applied` was refused if one of them has that seq as `cause`.
    `moves` is what the seat may do now (domain/legal.py): a page offers those and no other.
    """
    seq: int
    seat: int
    cards: list[str]
    refusals: list[SeatRefusal] = []
    public: PublicView
    moves: SeatMoves = SeatMoves()   # what the seat may do now, each move one the table accepts
    v: int = 1


_public = msgspec.json.Decoder(PublicView)
_seat = msgspec.json.Decoder(SeatView)


def decode_public_view(data: bytes | str) -> PublicView:
    return _public.decode(data)


def decode_seat_view(data: bytes | str) -> SeatView:
    return _seat.decode(data)
