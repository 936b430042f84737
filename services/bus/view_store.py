"""Where projections go: views live on zc.view.<key> and stored in KV zc_views, the redacted feed on
zc.feed.<game>.

A view goes out live on core NATS as each batch is folded (send_live), and is stored when its game
settles (services/projector/service.py). A view write is compare-and-set on the key's revision and never
replaces a view of a higher seq, so a rebuild running beside the projector, or two projector instances,
can never step a view back. Feed messages carry a Msg-Id, so a batch
published twice within the stream's duplicate window is stored once.
"""
import asyncio
import contextlib
from collections.abc import Callable
from typing import cast

import msgspec
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import RawStreamMsg
from nats.js.errors import BadRequestError, KeyDeletedError, KeyNotFoundError, NotFoundError
from nats.js.kv import KeyValue

from zioncheck.contracts.log import encode
from zioncheck.contracts.views import PublicView
from zioncheck.domain.views import Projection, feed_batch, public_view, seat_view
from zioncheck.services.bus.log_store import WRONG_LAST_SEQUENCE, from_leader, read_stored
from zioncheck.services.bus.publish import Message, publish_all, publish_stored, store_each
from zioncheck.services.bus.topology import (
    FEED,
    VIEWS,
    bot_view_key,
    feed_subject,
    game_key,
    kv_stream,
    kv_subject,
    public_view_key,
    seat_view_key,
    tenant_of,
    view_live_subject,
)
from zioncheck.services.observability import skipped

# A batch writes the public view and each seat's (2 to 6 more): a window of 8 messages a game
# asked for holds them most often at the first read.
PUBLIC_WINDOW = 8


class _Seq(msgspec.Struct):
    """Just the seq of a stored view or feed batch (both carry one at the top: what has none is neither)."""
    seq: int


_seq = msgspec.json.Decoder(_Seq)


def views_of(game: str, projection: Projection) -> list[tuple[str, bytes]]:
    """Every view of the game's projection by its key: the public view, every seat's, and each seat the bots
    service plays under its bot key as well."""
    public = encode(public_view(projection))
    # Every seat's view holds the public one: encoded once, and put into each as those bytes (msgspec.Raw).
    spliced = cast(PublicView, msgspec.Raw(public))
    views = [(public_view_key(game), public)]
    seats = [encode(seat_view(projection, seat, spliced)) for seat in range(projection.game.players)]
    views += [(seat_view_key(game, seat), view) for seat, view in enumerate(seats)]
    views += [(bot_view_key(game, seat), seats[seat]) for seat in projection.served if seat < len(seats)]
    return views


async def send_live(nc: Client, views: list[tuple[str, bytes]]) -> None:
    """Each view on its live subject (zc.view.<key>), on core NATS: stored nowhere, to whoever follows it
    now. Each names its key in the header the server's republish of a stored view carries (`Nats-Subject`),
    so a reader takes a live view and a stored one's republish alike; only the projector may publish
    there (services/bus/access.py)."""
    await publish_all(nc, [(view_live_subject(key), data, {"Nats-Subject": kv_subject(VIEWS, key)})
                           for key, data in views])


async def write_views(kv: KeyValue, game: str, projection: Projection, revisions: dict[str, int],
                      feeds: list[tuple[int, list]] = ()) -> int:
    """Every view of the game's projection (`game`, its key; views_of) stored, and the feed batches `feeds`
    ((seq, events) each, in order): all sent at once, then each waited for. `revisions` caches each key's
    last. Returns how many feed batches held something public."""
    seq = projection.seq
    writes = views_of(game, projection)
    first = [(key, data) for key, data in writes if key not in revisions]
    writes = [(key, data) for key, data in writes if key in revisions]
    # Keys not written here before: read first, and a newer view left alone, as put_newer does.
    await asyncio.gather(*(put_newer(kv, key, data, seq, revisions) for key, data in first))
    published = feed_messages(game, feeds)
    results = await store_each(kv._js, [
        *((f"{kv._pre}{key}", data, {"Nats-Expected-Last-Subject-Sequence": str(revisions[key])})
          for key, data in writes), *published])
    for (key, data), result in zip(writes, results, strict=False):
        if isinstance(result, int):
            revisions[key] = result
        elif isinstance(result, BadRequestError) and result.err_code == WRONG_LAST_SEQUENCE:
            revisions.pop(key, None)   # another writer moved it: read it again and compare seqs
            await put_newer(kv, key, data, seq, revisions)
        else:
            raise result
    for result in results[len(writes):]:
        if isinstance(result, Exception):
            raise result
    return len(published)


def feed_messages(game: str, feeds: list[tuple[int, list]]) -> list[Message]:
    """The feed batches `feeds` ((seq, events) each, in order) as messages to store: those that hold
    something public."""
    return [message for n, events in feeds if (message := _feed_message(game, n, events))]


async def store_feed(js: JetStreamContext, game: str, feeds: list[tuple[int, list]]) -> int:
    """The feed batches `feeds` ((seq, events) each, in order), each stored alone: all sent at once, then each
    waited for. Returns how many held something public."""
    published = feed_messages(game, feeds)
    for result in await store_each(js, published):
        if isinstance(result, Exception):
            raise result
    return len(published)


async def put_newer(kv: KeyValue, key: str, data: bytes, seq: int, revisions: dict[str, int]) -> None:
    """Store the view unless the key holds a newer one; an equal seq is overwritten (a rebuild's right)."""
    for _ in range(10):
        last = revisions.get(key)
        if last is None:
            last, stored = await _stored(kv, key)
            revisions[key] = last
            if stored > seq:
                return
        try:   # kv.update, through the cheap publish (a stream off the synced path takes no atomic batches)
            revisions[key] = await publish_stored(kv._js, f"{kv._pre}{key}", data,
                                                  {"Nats-Expected-Last-Subject-Sequence": str(last)})
            return
        except BadRequestError as error:
            if error.err_code != WRONG_LAST_SEQUENCE:
                raise
            revisions.pop(key, None)  # another writer moved it: read it again and compare seqs
    raise RuntimeError(f"view {key}: gave up after repeated conflicting writes")


async def _stored(kv: KeyValue, key: str) -> tuple[int, int]:
    """(revision, seq) of the key's value; revision 0 when the key was never written. A value that is no
    view is said and counted, and has seq -1: the view is written over it."""
    try:   # from the leader, which checks the write's guard: a replica behind would give an older revision
        entry = await from_leader(kv).get(key)
    except KeyDeletedError as deleted:
        return deleted.entry.revision, -1
    except KeyNotFoundError:
        return 0, -1
    try:
        return entry.revision, _seq.decode(entry.value or b"").seq
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        skipped("projector", "views", key, f"not a view: {error}", entry.revision or 0)
        return entry.revision, -1


async def recent_public_views(js: JetStreamContext, limit: int, tenant: str = "*",
                              keep: Callable[[RawStreamMsg], bool] | None = None) -> list[RawStreamMsg]:
    """The public views of the `limit` games (of `tenant`, or of every tenant) whose views changed last,
    the most recent first; with `keep`, only the views it keeps count.

    The bucket keeps each key once, at its last change, in the order of the changes, so the
    newest public views are at the end of its stream: they are read from a window at the end,
    widened (four times at each step) until it holds `limit` of them or the whole stream. The
    work grows with `limit`, never with the games stored (but for the views `keep` passes over
    among the newest)."""
    stream = kv_stream(VIEWS)
    try:
        state = (await js.stream_info(stream)).state
    except NotFoundError:
        return []
    window = PUBLIC_WINDOW * limit
    while True:
        start = max(state.first_seq, state.last_seq - window + 1)
        found, _ = await read_stored(js, stream, kv_subject(VIEWS, public_view_key(game_key(tenant, "*"))),
                                     after=start - 1,
                                     whole=True)
        views = [msg for msg in found if msg.data and not (msg.headers or {}).get("KV-Operation")
                 and (keep is None or keep(msg))]
        if len(views) >= limit or start <= state.first_seq:
            return views[::-1][:limit]
        window *= 4


def _feed_message(game: str, seq: int, events, dedupe: bool = True) -> Message | None:
    """The public side of log batch `seq` as a message to store (subject, payload, headers); None when the
    batch holds nothing public. It names the game by the id its tenant gave it, as the views do."""
    batch = feed_batch(tenant_of(game)[1], seq, events)
    if batch is None:
        return None
    return feed_subject(game), encode(batch), ({"Nats-Msg-Id": f"feed:{game}:{seq}"} if dedupe else None)


async def publish_feed(js: JetStreamContext, game: str, seq: int, events, dedupe: bool = True) -> bool:
    """The public side of log batch `seq`, stored alone; nothing (False) when the batch holds nothing public."""
    message = _feed_message(game, seq, events, dedupe)
    if message is None:
        return False
    await publish_stored(js, *message)
    return True


async def last_feed_seq(js: JetStreamContext, game: str) -> int:
    """The seq of the game's last feed batch in the stream, 0 if none. Where the last message is no feed
    batch (said and counted), the highest seq of those that are, the game's feed read whole."""
    try:
        msg = await js.get_msg(FEED, subject=feed_subject(game))
    except NotFoundError:
        return 0
    try:
        return _seq.decode(msg.data or b"").seq
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        skipped("projector", "feed", feed_subject(game), f"not a feed batch: {error}", msg.seq or 0)
    found, _ = await read_stored(js, FEED, feed_subject(game), at_least=msg.seq or 0)
    seqs = [0]
    for _, data in found:
        with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
            seqs.append(_seq.decode(data).seq)
    return max(seqs)
