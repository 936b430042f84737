"""The redacted feed: each log event as a spectator may see it, or nothing.

Only the events listed here reach the feed; any other event type, today's
Rejected or one added tomorrow, is private until someone decides what of it is
public. A card is shown only where the table shows it.
"""
from collections.abc import Callable, Iterable

from zioncheck.contracts import events as ev
from zioncheck.contracts import feed

PUBLIC: dict[type, Callable[..., feed.FeedItem]] = {
    ev.GameStarted: lambda e: feed.PublicGameStarted(
        game_id=e.game_id, players=e.players, decks=e.decks, dealer=e.dealer, first_hand=e.first_hand),
    ev.HandDealt: lambda e: feed.PublicHandDealt(
        hand=e.hand, dealer=e.dealer, hand_sizes=[len(h) for h in e.hands], stock=len(e.stock),
        discard=list(e.discard), commitment=e.commitment),
    ev.StockReshuffled: lambda e: feed.PublicStockReshuffled(hand=e.hand, stock=len(e.order)),
    ev.SeedRevealed: lambda e: feed.PublicSeedRevealed(hand=e.hand, seed=e.seed),
    ev.StockDrawn: lambda e: feed.PublicStockDrawn(seat=e.seat),
    ev.StockExhausted: lambda e: feed.PublicStockExhausted(seat=e.seat),
    ev.DiscardTaken: lambda e: feed.PublicDiscardTaken(seat=e.seat, card=e.card),
    ev.DiscardClaimed: lambda e: feed.PublicDiscardClaimed(seat=e.seat, card=e.card),
    ev.ClaimWon: lambda e: feed.PublicClaimWon(seat=e.seat, card=e.card),
    ev.ClaimFailed: lambda e: feed.PublicClaimFailed(seat=e.seat, card=e.card, why=e.why),
    ev.WentDown: lambda e: feed.PublicWentDown(
        seat=e.seat, melds=[feed.PublicMeld(kind=m.kind, cards=list(m.cards)) for m in e.melds]),
    ev.LaidOff: lambda e: feed.PublicLaidOff(seat=e.seat, owner=e.owner, index=e.index, card=e.card, end=e.end,
                                             position=e.position),
    ev.JokerSwapped: lambda e: feed.PublicJokerSwapped(
        seat=e.seat, owner=e.owner, index=e.index, card=e.card, position=e.position),
    ev.Discarded: lambda e: feed.PublicDiscarded(seat=e.seat, card=e.card),
    ev.HandEnded: lambda e: feed.PublicHandEnded(
        hand=e.hand, winner=e.winner, scores=list(e.scores), stuck=list(e.stuck), totals=list(e.totals),
        hands=[list(cards) for cards in e.hands]),
    ev.GameEnded: lambda e: feed.PublicGameEnded(totals=list(e.totals), winners=list(e.winners)),
    ev.TurnTimedOut: lambda e: feed.PublicTurnTimedOut(seat=e.seat, hand=e.hand, turn=e.turn),
    ev.SeatIdle: lambda e: feed.PublicSeatIdle(seat=e.seat),
    ev.SeatBack: lambda e: feed.PublicSeatBack(seat=e.seat),
    ev.GameAbandoned: lambda e: feed.PublicGameAbandoned(hand=e.hand, mid_hand=e.mid_hand),
    ev.WindowReleased: lambda e: feed.PublicWindowReleased(hand=e.hand, turn=e.turn),
    ev.SeatReady: lambda e: feed.PublicSeatReady(seat=e.seat),
    ev.PauseEnded: lambda e: feed.PublicPauseEnded(hand=e.hand, why=e.why),
}
# Decided private: a refusal's detail may list the hand of the seat refused (R18).
PRIVATE = (ev.Rejected,)


def redact(event: ev.Event) -> feed.FeedItem | None:
    """What a spectator may see of one event; None when nothing of it is public."""
    public = PUBLIC.get(type(event))
    return public(event) if public else None


def feed_batch(game: str, seq: int, events: Iterable[ev.Event]) -> feed.FeedBatch | None:
    """The feed message for log batch `seq` of `game`, or None when nothing in it is public."""
    items = [item for item in map(redact, events) if item is not None]
    return feed.FeedBatch(game_id=game, seq=seq, items=items) if items else None
