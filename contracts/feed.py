"""The public feed: each log event as a spectator may see it, on zc.feed.<game> (stream ZC_FEED).

These are not the log's events with fields left out: each item is its own
struct (PublicX for event X, with X's tag), so a field added to an event never
reaches spectators unless it is added here on purpose. Items carry their schema
version `v` like events do. A card appears only where the table shows it:
discards, takes and claims of the top discard, melds, lay-offs and joker swaps.
Refusals are not in the feed (their details may name cards in a hand).
"""
from typing import Literal

import msgspec

from zioncheck.contracts.commands import End
from zioncheck.contracts.events import MeldKind


class Public(msgspec.Struct, tag_field="type", frozen=True, kw_only=True):
    """Base of every feed item: the public form of one event."""
    v: int = 1


class PublicMeld(msgspec.Struct, frozen=True):
    """A meld as laid on the table (R5, R6)."""
    kind: MeldKind
    cards: list[str]


class PublicGameStarted(Public, tag="game_started", frozen=True):
    game_id: str
    players: int
    decks: int
    dealer: int
    first_hand: int = 1


class PublicHandDealt(Public, tag="hand_dealt", frozen=True):
    """R8: how many cards each seat holds and the stock holds, never which; a pile dealt face up."""
    hand: int
    dealer: int
    hand_sizes: list[int]
    stock: int
    discard: list[str] = []
    commitment: str = ""


class PublicStockReshuffled(Public, tag="stock_reshuffled", frozen=True):
    """R16: the new stock's size; its order would tell which card each next draw is."""
    hand: int
    stock: int


class PublicSeedRevealed(Public, tag="seed_revealed", frozen=True):
    hand: int
    seed: str


class PublicStockDrawn(Public, tag="stock_drawn", frozen=True):
    """A seat drew from the stock; the card stays in its hand, unnamed."""
    seat: int


class PublicStockExhausted(Public, tag="stock_exhausted", frozen=True):
    seat: int


class PublicDiscardTaken(Public, tag="discard_taken", frozen=True):
    seat: int
    card: str


class PublicDiscardClaimed(Public, tag="discard_claimed", frozen=True):
    seat: int
    card: str


class PublicClaimWon(Public, tag="claim_won", frozen=True):
    seat: int
    card: str


class PublicClaimFailed(Public, tag="claim_failed", frozen=True):
    seat: int
    card: str
    why: Literal["turn_player_took", "nearer_claimant"]


class PublicWentDown(Public, tag="went_down", frozen=True):
    seat: int
    melds: list[PublicMeld]


class PublicLaidOff(Public, tag="laid_off", frozen=True):
    """R13; R24.11: with `position`, the card took the joker's place there and the joker moved to `end`."""
    seat: int
    owner: int
    index: int
    card: str
    end: End | None = None
    position: int | msgspec.UnsetType = msgspec.UNSET


class PublicJokerSwapped(Public, tag="joker_swapped", frozen=True):
    seat: int
    owner: int
    index: int
    card: str
    position: int


class PublicDiscarded(Public, tag="discarded", frozen=True):
    seat: int
    card: str


class PublicHandEnded(Public, tag="hand_ended", frozen=True):
    """R15: the hand's scores, and every seat's cards left, as shown at scoring."""
    hand: int
    winner: int | None
    scores: list[int]
    stuck: list[int]
    totals: list[int]
    hands: list[list[str]] = []


class PublicGameEnded(Public, tag="game_ended", frozen=True):
    totals: list[int]
    winners: list[int]


class PublicTurnTimedOut(Public, tag="turn_timed_out", frozen=True):
    """R19: the seat's turn ran out; a bot plays it."""
    seat: int
    hand: int
    turn: int


class PublicSeatIdle(Public, tag="seat_idle", frozen=True):
    """R20: a bot keeps the seat until its person is back."""
    seat: int


class PublicSeatBack(Public, tag="seat_back", frozen=True):
    seat: int


class PublicGameAbandoned(Public, tag="game_abandoned", frozen=True):
    """R21: no person was left at the game; its end follows."""
    hand: int
    mid_hand: bool = False


class PublicWindowReleased(Public, tag="window_released", frozen=True):
    """R22: the claim window held for people is released: a bot may draw."""
    hand: int
    turn: int


class PublicSeatReady(Public, tag="seat_ready", frozen=True):
    """R23: a person is ready for the next hand."""
    seat: int


class PublicPauseEnded(Public, tag="pause_ended", frozen=True):
    """R23: the pause after a hand is over; the next hand is dealt."""
    hand: int
    why: Literal["timer", "ready", "nobody"]


FeedItem = (
    PublicGameStarted | PublicHandDealt | PublicStockReshuffled | PublicSeedRevealed | PublicStockDrawn
    | PublicStockExhausted | PublicDiscardTaken | PublicDiscardClaimed | PublicClaimWon | PublicClaimFailed
    | PublicWentDown | PublicLaidOff | PublicJokerSwapped | PublicDiscarded | PublicHandEnded | PublicGameEnded
    | PublicTurnTimedOut | PublicSeatIdle | PublicSeatBack | PublicGameAbandoned | PublicWindowReleased
    | PublicSeatReady | PublicPauseEnded
)


class FeedBatch(msgspec.Struct, frozen=True):
    """One message on zc.feed.<game>: the public side of one log batch.

    `seq` is the batch's number in the game's log (from 1), the same count as a
    view's `seq`: a late joiner reads the view, then applies feed batches with a
    higher seq only. A batch with nothing public (a refusal) has no message, so
    seqs may skip; a repeated seq is a repeat and is dropped.
    """
    game_id: str
    seq: int
    items: list[FeedItem]
    v: int = 1


_decoder = msgspec.json.Decoder(FeedBatch)


def decode_feed_batch(data: bytes | str) -> FeedBatch:
    return _decoder.decode(data)
