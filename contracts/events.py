"""Events: everything that happens at a Zioncheck table, in the order it happened.

Every event carries its schema version `v`; `contracts.log` upcasts older
versions on read, so a log written today replays tomorrow.
"""
from typing import Literal

import msgspec

from zioncheck.contracts.commands import SERVICE, BotsBy, End, Limits, Rules
from zioncheck.contracts.reasons import Reason

MeldKind = Literal["set", "run"]


class Event(msgspec.Struct, tag_field="type", frozen=True, kw_only=True):
    """Base of every event."""
    v: int = 1


class Meld(msgspec.Struct, frozen=True):
    """A meld as laid: a run's cards ascending, jokers where they stand (R5, R6)."""
    kind: MeldKind
    cards: list[str]


class GameStarted(Event, tag="game_started", frozen=True):
    game_id: str
    players: int
    decks: int
    dealer: int
    first_hand: int = 1
    stacked: bool = False
    seats: list[str] = []        # who sits where: "person" or a bot's name; empty, persons all
    limits: Limits = msgspec.field(default_factory=Limits)
    bots_by: BotsBy = SERVICE    # who plays the bot seats: the bots service, or the game's starter
    # R24: the game played. Left out for Zioncheck as it always was, so a Zioncheck game's log reads,
    # and is written, exactly as before: a log without it is Zioncheck.
    rules: Rules | msgspec.UnsetType = msgspec.UNSET
    # Whether anyone may watch the game (StartGame.public). Left out unless true, so a private game's log
    # reads, and is written, exactly as before: a log without it is a private game's.
    public: bool | msgspec.UnsetType = msgspec.UNSET
    # How many seconds behind the game its spectators watch it (StartGame.delay_seconds). Left out unless set, so
    # a log without it reads, and is written, exactly as before: a game watched live.
    delay_seconds: int | msgspec.UnsetType = msgspec.UNSET


class HandDealt(Event, tag="hand_dealt", frozen=True):
    """R7, R8: a hand's cards. Secret: only projections that redact it leave the table."""
    hand: int
    dealer: int
    hands: list[list[str]]
    stock: list[str]
    discard: list[str] = []
    commitment: str = ""


class StockReshuffled(Event, tag="stock_reshuffled", frozen=True):
    """R16: the pile below its top card became the stock, in `order` (see Reshuffle)."""
    hand: int
    order: list[int]


class SeedRevealed(Event, tag="seed_revealed", frozen=True):
    hand: int
    seed: str


class StockDrawn(Event, tag="stock_drawn", frozen=True):
    seat: int
    card: str


class StockExhausted(Event, tag="stock_exhausted", frozen=True):
    """R16: a draw found no card even after reshuffling; the hand ends with no winner."""
    seat: int


class DiscardTaken(Event, tag="discard_taken", frozen=True):
    seat: int
    card: str


class DiscardClaimed(Event, tag="discard_claimed", frozen=True):
    """R11a: a claim entered the queue; its outcome comes when the window closes."""
    seat: int
    card: str


class ClaimWon(Event, tag="claim_won", frozen=True):
    seat: int
    card: str


class ClaimFailed(Event, tag="claim_failed", frozen=True):
    """R11a: an outcome, not a rejection."""
    seat: int
    card: str
    why: Literal["turn_player_took", "nearer_claimant"]


class WentDown(Event, tag="went_down", frozen=True):
    seat: int
    melds: list[Meld]


class LaidOff(Event, tag="laid_off", frozen=True):
    """R13: `card` went on the meld at `end`. R24.11: with `position`, the card took the place of the run's
    joker there, and the joker moved to `end` (left out of every other lay-off, as of those logged before)."""
    seat: int
    owner: int
    index: int
    card: str
    end: End | None = None
    position: int | msgspec.UnsetType = msgspec.UNSET


class JokerSwapped(Event, tag="joker_swapped", frozen=True):
    """R14: `card` replaced the joker at `position` of the run; the joker went to `seat`."""
    seat: int
    owner: int
    index: int
    card: str
    position: int


class Discarded(Event, tag="discarded", frozen=True):
    seat: int
    card: str


class HandEnded(Event, tag="hand_ended", frozen=True):
    """R15, R16: `winner` is None when the stock ran dry. `totals` run over the game. `hands`: the
    cards each seat had left, shown at scoring (empty in logs written before they were)."""
    hand: int
    winner: int | None
    scores: list[int]
    stuck: list[int]
    totals: list[int]
    hands: list[list[str]] = []


class GameEnded(Event, tag="game_ended", frozen=True):
    """R17: the lowest total wins; a tie is shared."""
    totals: list[int]
    winners: list[int]


class TurnTimedOut(Event, tag="turn_timed_out", frozen=True):
    """R19: `seat` let turn `turn` of hand `hand` run out; a bot plays it (the events that follow)."""
    seat: int
    hand: int
    turn: int


class SeatIdle(Event, tag="seat_idle", frozen=True):
    """R20: the person in `seat` let `idle_turns` turns in a row run out: a bot keeps the seat."""
    seat: int


class SeatBack(Event, tag="seat_back", frozen=True):
    """R20: the person in `seat` sent a command again: the seat is theirs, its count of timeouts 0."""
    seat: int


class GameAbandoned(Event, tag="game_abandoned", frozen=True):
    """R21: no person was at the game for its `abandon_seconds`; GameEnded follows, with the
    totals of the hands played. `mid_hand`: hand `hand` was in play, and is not scored; the dealer
    reveals its seed all the same."""
    hand: int
    mid_hand: bool = False


class WindowReleased(Event, tag="window_released", frozen=True):
    """R22: the claim window held for people on turn `turn` of hand `hand` is held no longer."""
    hand: int
    turn: int


class SeatReady(Event, tag="seat_ready", frozen=True):
    """R23: the person in `seat` is ready for the next hand."""
    seat: int


class PauseEnded(Event, tag="pause_ended", frozen=True):
    """R23: the pause after hand `hand` is over and the dealer deals the next: its time ran out
    (`timer`), every person said ready (`ready`), or no person was there to wait for (`nobody`)."""
    hand: int
    why: Literal["timer", "ready", "nobody"]


class Rejected(Event, tag="rejected", frozen=True):
    """R18: a command that changed nothing, with its reason and a sentence for people."""
    seat: int | None
    command: str
    reason: Reason
    detail: str = ""


AnyEvent = (
    GameStarted | HandDealt | StockReshuffled | SeedRevealed | StockDrawn | StockExhausted
    | DiscardTaken | DiscardClaimed | ClaimWon | ClaimFailed | WentDown | LaidOff
    | JokerSwapped | Discarded | HandEnded | GameEnded | TurnTimedOut | SeatIdle | SeatBack
    | GameAbandoned | WindowReleased | SeatReady | PauseEnded | Rejected
)
