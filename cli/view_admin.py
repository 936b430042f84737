"""Rebuilding the projector's views from the logs, and reading one back, for the CLI and operators."""
import asyncio
from collections.abc import Callable

from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, NotFoundError

from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed
from zioncheck.domain.views import Projection, advance, project
from zioncheck.services.bus.access import Access, connect
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.log_store import read_stamped, stored_games
from zioncheck.services.bus.topology import FEED, VIEWS, ensure_topology, feed_subject, public_view_key, seat_view_key
from zioncheck.services.bus.view_store import publish_feed, write_views


async def rebuild(js: JetStreamContext, games: list[str] | None = None, feed: bool = False,
                  say: Callable[[str], None] = lambda line: None) -> dict[str, int]:
    """Recompute the views of every stored game (or of `games`) from the logs; returns each one's seq,
    and says each game as it is done (with how many of how many).

    Safe beside a running projector: a view is never replaced by an older one. With
    `feed`, each game's feed is purged and published again from its log, as after a
    change to what the feed shows; feed readers drop any seq they have already seen.
    Run that with the projector stopped: a batch it published meanwhile would sit in
    the stream ahead of the republished ones.
    """
    kv = await js.key_value(VIEWS)
    done: dict[str, int] = {}
    names = games if games else list(await stored_games(js))
    for game in names:
        stamped = await read_stamped(js, game)
        if not stamped:
            raise CommandFailed(words.NO_SUCH_GAME.format(game=game))
        batches = [batch for batch, _ in stamped]
        projection = project(batches, (due for _, due in stamped))
        await write_views(kv, game, projection, {})
        if feed:
            await js.purge_stream(FEED, subject=feed_subject(game))
            replay = Projection()
            for batch in batches:
                replay = advance(replay, batch.events, batch.cause)
                # No Msg-Id: the stream would take the republished batches for repeats of the purged ones.
                await publish_feed(js, game, replay.seq, batch.events, dedupe=False)
        done[game] = projection.seq
        said = words.VIEWS_AND_FEED_AT if feed else words.VIEWS_AT
        say(said.format(game=game, seq=projection.seq, done=len(done), total=len(names)))
    return done


def rebuild_views(url: str | None, games: list[str], feed: bool, replicas: int | None = None,
                  credentials: str | None = None, say: Callable[[str], None] = lambda line: None) -> dict[str, int]:
    async def run(js: JetStreamContext) -> dict[str, int]:
        await ensure_topology(js, replicas)  # the bucket and feed stream, if no projector ever ran here
        return await rebuild(js, games, feed, say)

    with bus(url, credentials) as access:
        return asyncio.run(_with_js(access, run))


def read_view(url: str | None, game: str, seat: int | None, credentials: str | None = None) -> bytes:
    """The stored view's JSON: the public one, or `seat`'s; CommandFailed if there is none."""
    key = public_view_key(game) if seat is None else seat_view_key(game, seat)

    async def read(js: JetStreamContext) -> bytes:
        try:
            return (await (await js.key_value(VIEWS)).get(key)).value
        except (KeyNotFoundError, NotFoundError):
            raise CommandFailed(words.NO_SUCH_VIEW.format(key=key)) from None

    with bus(url, credentials) as access:
        return asyncio.run(_with_js(access, read))


async def _with_js(access: Access, work):
    """Work done with the operator's login: rebuilds purge and rewrite what services wrote."""
    nc = await connect(access, "operator")
    try:
        return await work(nc.jetstream())
    finally:
        await nc.close()
