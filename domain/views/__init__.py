"""Projections: a game's log folded into what spectators and each seat may see.

Pure, like the rest of domain: no I/O. Imports only contracts and domain.

    projection = project(batches)           # contracts.log.Batch; or advance(projection, batch.events,
                                            # batch.cause), one batch at a time
    public_view(projection)  -> PublicView  # KV zc_views <game>.public
    seat_view(projection, n) -> SeatView    # KV zc_views <game>.seat.<n>
    feed_batch(game, seq, events) -> FeedBatch | None   # zc.feed.<game>
"""
from zioncheck.domain.views.projection import Projection, advance, project
from zioncheck.domain.views.redact import feed_batch, redact
from zioncheck.domain.views.shape import public_view, seat_view

__all__ = ["Projection", "advance", "feed_batch", "project", "public_view", "redact", "seat_view"]
