"""The projector service: each game's log folded into views in KV zc_views and a redacted feed.

Platforms and people never read the log (it holds every hand's cards); they
read what this publishes. Everything here is recomputable from the log
(cli/view_admin.py, rebuild), and the service itself catches up
from the log whenever it finds a gap (a restart, a failed message, batches of
one game delivered out of order), so no batch is ever skipped or folded twice.

Being derived, the views are stored off the synced path (topology.DERIVED: persist mode async, in
memory when replicated): a
server killed may come back without the last of them. So whenever the projector finds itself on
a server it has not yet seen (its own start, the server's restart, another node), it forgets the
games it holds and goes over every game in the hot log once (`sweep`): folds its log again,
writes its views, and publishes any feed batch the stream lacks (each under its seq). A view is
never stepped back meanwhile (view_store.put_newer). The feed stays synced, its batches of many
games sharing synced writes (publish_grouped).
"""
import asyncio
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field

import structlog
from nats.js import JetStreamContext
from nats.js.kv import KeyValue

from zioncheck.contracts.log import Batch, decode_batch
from zioncheck.domain.views import Projection, advance
from zioncheck.services.bus import open_games
from zioncheck.services.bus.log_store import due_at, read_stored, stored_games, where
from zioncheck.services.bus.topology import VIEWS
from zioncheck.services.bus.view_store import last_feed_seq, publish_feed, write_views
from zioncheck.services.observability import FEED_PUBLISHED, VIEWS_WRITTEN

log = structlog.get_logger("projector")
SERVER_CHECK_SECONDS = 2.0   # how often the projector looks whether its server is one it has swept

# The log writer names the game's previous log message in this header of each batch
# (services/bus/log_store.py, append); matching it proves no batch of the game was missed.
PREVIOUS_HEADER = "Nats-Expected-Last-Subject-Sequence"


@dataclass
class ProjectedGame:
    """One game as far as this projector has folded and published it."""
    projection: Projection = field(default_factory=Projection)
    last: int = 0        # stream sequence of the last log message folded
    fed: int = 0         # seq of the last feed batch known to be in the stream
    revisions: dict[str, int] = field(default_factory=dict)   # each view key's last KV revision written


class ProjectorService:
    def __init__(self, js: JetStreamContext, cache: int = 10_000, flush_delay: float = 0.02):
        self.js = js
        self.cache = cache              # games held in memory; an evicted game is folded again from its log
        self.flush_delay = flush_delay  # batches folded within it share one write of the views
        self.games: OrderedDict[str, ProjectedGame] = OrderedDict()
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.flushes: dict[str, asyncio.Future] = {}
        self.writing: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.kv: KeyValue | None = None
        self.swept: set[str] = set()   # the servers (by id) on which every hot game's views and feed are whole
        self.server: str | None = None  # the server the games held were projected on
        self.watch: asyncio.Task | None = None

    async def start(self) -> None:
        self.watch = asyncio.ensure_future(self._watch_servers())

    async def stop(self) -> None:
        if self.watch is not None:
            self.watch.cancel()
            await asyncio.gather(self.watch, return_exceptions=True)

    def _on_which_server(self) -> None:
        """Forget every game held once the connection is on another server (a restart): the server may have
        lost the last of their views, which a game's next batch then writes again from its log, its feed
        read again from where the stream stops; the sweep does the games that have no next batch."""
        server = (getattr(self.js._nc, "_server_info", None) or {}).get("server_id")
        if server != self.server:
            self.server = server
            self.games.clear()

    async def _watch_servers(self) -> None:
        """Sweep whenever the connection is on a server not swept yet; a sweep that fails is tried again."""
        while True:
            self._on_which_server()
            server = self.server
            if server and server not in self.swept and self.js._nc.is_connected:
                try:
                    await self.sweep()
                except Exception as error:  # noqa: BLE001 - the server went away meanwhile: the next look retries
                    log.warning("sweep_failed", error=str(error)[:200])
                else:
                    self.swept.add(server)
            await asyncio.sleep(SERVER_CHECK_SECONDS)

    async def sweep(self) -> int:
        """Every game in the hot log projected whole again, those in play first: what a server killed lost
        of the views and the feed is written again. Returns the games swept."""
        stored = await stored_games(self.js)
        playing = await open_games.marked(self.js)
        games = sorted(stored, key=lambda game: game not in playing)
        for done, game in enumerate(games, 1):
            async with self.locks[game]:
                projected = await self._projected(game)
                await self._catch_up(projected, game, before=2 ** 62, known=0)
                self.kv = self.kv or await self.js.key_value(VIEWS)
                async with self.writing[game]:
                    await write_views(self.kv, game, projected.projection, projected.revisions)
            if done % 1000 == 0:
                log.info("sweeping", games=done, of=len(games))
        log.info("swept", games=len(games))
        return len(games)

    async def on_log(self, game: str, seq: int, headers: dict | None, batch: Batch) -> None:
        """Fold log message `seq` of `game` (and any earlier one not folded yet), then publish.

        Returns once the views hold the batch, so the message is acked only then.
        """
        self._on_which_server()
        async with self.locks[game]:
            try:
                projected = await self._project(game, seq, headers or {}, batch)
            except Exception:
                self.games.pop(game, None)  # half-published: the next delivery starts over from the log
                raise
        if projected is not None:
            await self._views_written(game, projected)

    async def _project(self, game: str, seq: int, headers: dict, batch: Batch) -> ProjectedGame | None:
        projected = await self._projected(game)
        if seq <= projected.last:
            return None  # a redelivery, or folded already while catching up for a later batch
        previous = headers.get(PREVIOUS_HEADER)
        if previous != str(projected.last):
            known = int(previous) if previous and previous.isdigit() else 0
            await self._catch_up(projected, game, before=seq, known=known)
        await self._fold(projected, game, seq, batch, due_at(headers))
        return projected

    async def _views_written(self, game: str, projected: ProjectedGame) -> None:
        """Wait for the game's next write of its views; one write serves every batch folded before it.

        A bot game appends hundreds of batches a second, and each write of the views is
        one KV message per seat and one public; writing them per batch would cost the
        server more than the table's own appends.
        """
        flush = self.flushes.get(game)
        if flush is None:
            flush = self.flushes[game] = asyncio.ensure_future(self._write_views(game, projected))
        try:
            await asyncio.shield(flush)
        except Exception:
            self.games.pop(game, None)
            raise

    async def _write_views(self, game: str, projected: ProjectedGame) -> None:
        """One write of a game's views at a time, each from the revisions the last one left (two at once
        would each find the other's revision and try again, until one gave up). A write waiting for the one
        before it takes every batch folded meanwhile: the busier the store, the more batches a write holds."""
        this = asyncio.current_task()
        try:
            await asyncio.sleep(self.flush_delay)
            self.kv = self.kv or await self.js.key_value(VIEWS)
            async with self.writing[game]:
                if self.flushes.get(game) is this:
                    self.flushes.pop(game)  # a batch folded from here on waits for the next write
                held = self.games.get(game)
                if held is not None and held.projection.seq >= projected.projection.seq:
                    projected = held   # folded again meanwhile (after a failed write): the newest
                await write_views(self.kv, game, projected.projection, projected.revisions)
        finally:
            if self.flushes.get(game) is this:
                self.flushes.pop(game)
        VIEWS_WRITTEN.inc()
        log.debug("projected", game=game, seq=projected.projection.seq, log_seq=projected.last)

    async def _projected(self, game: str) -> ProjectedGame:
        if game in self.games:
            self.games.move_to_end(game)
            return self.games[game]
        projected = ProjectedGame(fed=await last_feed_seq(self.js, game))
        self.games[game] = projected
        while len(self.games) > self.cache:
            self.games.popitem(last=False)
        return projected

    async def _catch_up(self, projected: ProjectedGame, game: str, before: int, known: int) -> None:
        """Fold the game's log messages after the last one folded, up to (not including) `before`:
        read in batched direct gets, as a whole log is read, and at least up to `known`, the game's
        message before `before` (services/bus/log_store.py: read your writes)."""
        stream, subject = await where(self.js, game)
        found, _ = await read_stored(self.js, stream, subject, after=projected.last, at_least=known, whole=True)
        for msg in found:
            if msg.seq >= before:
                return
            await self._fold(projected, game, msg.seq, decode_batch(msg.data or b""), due_at(msg.headers))

    async def _fold(self, projected: ProjectedGame, game: str, seq: int, batch: Batch, due: float | None) -> None:
        projection = advance(projected.projection, batch.events, batch.cause, due)
        if projection.seq > projected.fed:
            if await publish_feed(self.js, game, projection.seq, batch.events):
                FEED_PUBLISHED.inc()
            projected.fed = projection.seq
        projected.projection, projected.last = projection, seq
