"""The projector service: each game's log folded into views, sent live and stored in KV zc_views, and a redacted feed.

Platforms and people never read the log (it holds every hand's cards); they
read what this publishes. Everything here is recomputable from the log
(cli/view_admin.py, rebuild), and the service itself catches up
from the log whenever it finds a gap (a restart, a failed message, batches of
one game delivered out of order), so no batch is ever skipped or folded twice.

Being derived, the views and the feed are stored off the synced path (topology.DERIVED: persist
mode async, in memory when replicated): a server killed may come back without the last of them.
So whenever the projector finds itself on a server it has not yet seen (its own start, the
server's restart, another node), it forgets the games it holds and goes over every game in the
hot log once (`sweep`): folds its log again, writes its views, and publishes any feed batch the
stream lacks (each under its seq). A view is never stepped back meanwhile (view_store.put_newer).

The log comes through a PulledConsumer (services/bus/consumers.py) a partition: each game's batches that
came while its last were worked are handed over together, folded in order, and published at once: the game's
views sent live on core NATS (zc.view.<key>, stored nowhere) and its feed batches stored in order, as
messages of one fast batch the server answers every so many (services/bus/fast_ingest.py; a game some of
whose feed batches the server did not store is folded again from its log, its feed sent no more until then).
No delivery is acked (one ack a batch was a tenth of the path's messages): a game whose batches failed to
fold or publish is folded again from its log (`_recover`), a batch lost with the connection is read by the
sweep after a reconnect, and one lost with a stop or a crash by the sweep at the next start; a game's next
batch catches up on any before it. The views are stored (KV zc_views, each put acked) when the game settles:
at once when a hand or the game ends, else once it has had no batch for SETTLE_SECONDS, or SETTLE_MOST after
its first view not stored; and before the game leaves the projector's memory, and when the projector stops.
A bot game appends hundreds of batches a second; storing its views a batch would cost the server more than
the table's own appends. A stored view is so at most SETTLE_MOST behind a game in play, and its put is
republished on the live subject too: a reader that subscribes first, then reads the stored view, and keeps
the highest seq never misses the newest (docs/integration.md).
"""
import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from weakref import WeakValueDictionary

import msgspec
import structlog
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.kv import KeyValue

from zioncheck.contracts.log import Batch, decode_batch
from zioncheck.domain.views import Projection, advance
from zioncheck.services.bus import open_games
from zioncheck.services.bus.access import server_id
from zioncheck.services.bus.consumers import drop
from zioncheck.services.bus.delivered import delivery
from zioncheck.services.bus.fast_ingest import FastIngest
from zioncheck.services.bus.log_store import batches, due_at, read_stored, still_logged, stored_games, where
from zioncheck.services.bus.topology import VIEWS
from zioncheck.services.bus.view_store import (
    feed_messages,
    last_feed_seq,
    send_live,
    store_feed,
    views_of,
    write_views,
)
from zioncheck.services.observability import FEED_PUBLISHED, VIEWS_WRITTEN

log = structlog.get_logger("projector")
SERVER_CHECK_SECONDS = 2.0   # how often the projector looks whether its server is one it has swept
SETTLE_SECONDS = 0.5         # a game with no batch for this long has its views stored
SETTLE_MOST = 2.0            # and one that never pauses, this long after its first view not stored
RECOVER_TRIES = 20           # a game whose projection fails is folded again from its log this often at most

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
    stored: int = -1     # seq of the projection whose views are stored (-1: not known to be)
    settling: asyncio.TimerHandle | None = None   # the views' store, when the game has been quiet for a while
    since: float = 0.0   # when (the loop's clock) its first view not stored went out

    @property
    def unsettled(self) -> bool:
        return self.projection.seq > self.stored


class ProjectorService:
    def __init__(self, js: JetStreamContext, cache: int = 10_000):
        self.js = js
        self.cache = cache              # games held in memory; an evicted game is folded again from its log
        self.games: OrderedDict[str, ProjectedGame] = OrderedDict()
        self.locks: WeakValueDictionary[str, asyncio.Lock] = WeakValueDictionary()
        self.kv: KeyValue | None = None
        self.swept: set[str] = set()   # the servers (by id) on which every hot game's views and feed are whole
        self.server: str | None = None  # the server the games held were projected on
        self.watch: asyncio.Task | None = None
        self.settles: set[asyncio.Task] = set()   # stores of settled games, and games folded again, under way
        self.reconnects = 0             # the connection's reconnects when the server was last looked at
        self.recovering: dict[str, asyncio.TimerHandle] = {}   # games to fold again from their logs, soon
        self.fast = FastIngest(js._nc, self._feed_lost)   # the feed, stored with one answer for many
        self.stopping = False

    async def start(self) -> None:
        self.watch = asyncio.ensure_future(self._watch_servers())

    async def stop(self) -> None:
        """Stop watching, and store the views of every game not settled yet (a game waiting to be folded
        again from its log is left to the sweep at the next start)."""
        self.stopping = True   # the watch ends at its next look even where a cancel is lost (asyncio.wait_for's
        if self.watch is not None:   # in Python 3.11 can drop one that comes as its future is done)
            self.watch.cancel()
            await asyncio.gather(self.watch, return_exceptions=True)
        await self.fast.close()   # a feed batch it lost is the last of its game's: the next start's sweep stores it
        for handle in self.recovering.values():
            handle.cancel()
        self.recovering.clear()
        await asyncio.gather(*self.settles, return_exceptions=True)
        await asyncio.gather(*(self._settle(game, projected) for game, projected in list(self.games.items())
                               if projected.unsettled), return_exceptions=True)

    def _on_which_server(self) -> None:
        """Forget every game held once the connection is on another server (a restart): the server may have
        lost the last of their views, which a game's next batch then writes again from its log, its feed
        read again from where the stream stops; the sweep does the games that have no next batch."""
        server = server_id(self.js._nc)
        if server != self.server:
            self.server = server
            for projected in self.games.values():
                if projected.settling is not None:
                    projected.settling.cancel()
            self.games.clear()

    async def _watch_servers(self) -> None:
        """Sweep whenever the connection is on a server not swept yet, or came back to one (what was being
        delivered then is lost); a sweep that fails is tried again."""
        while not self.stopping:
            self._on_which_server()
            server = self.server
            reconnects = self.js._nc.stats["reconnects"]
            if reconnects != self.reconnects:
                self.reconnects = reconnects
                self.swept.discard(server)
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
        of the views and the feed is written again. A game the archiver removes meanwhile (its log gone by the
        time it is read, or before its views are written) is written nothing of. Returns the games swept."""
        stored = await stored_games(self.js)
        playing = await open_games.marked(self.js)
        games = sorted(stored, key=lambda game: game not in playing)
        for done, game in enumerate(games, 1):
            await self._rewrite(game)
            if done % 1000 == 0:
                log.info("sweeping", games=done, of=len(games))
        log.info("swept", games=len(games))
        return len(games)

    async def _rewrite(self, game: str) -> None:
        """The game folded up to the end of its log, and its views and any feed batch the stream lacks stored."""
        async with self._lock(game):
            await self.fast.settle(game)   # none of its feed left in flight behind what is stored here
            if game in self.fast.barred:   # what it holds of the feed went out but was not all stored
                self._forget(game)
            projected, feeds = await self._projected(game), []
            await self._catch_up(projected, game, before=2 ** 62, known=0, feeds=feeds)
            if not await still_logged(self.js, game, projected.last):   # removed since it was counted
                self.games.pop(game, None)
            else:
                await self._store(game, projected, feeds)
            self.fast.repaired(game)

    def _forget(self, game: str) -> None:
        gone = self.games.pop(game, None)
        if gone is not None and gone.settling is not None:
            gone.settling.cancel()

    def _feed_lost(self, games: set[str]) -> None:
        """Feed batches of `games` went out and were not stored: each game folded again from its log (until
        then none of its feed goes out)."""
        for game in games:
            self._recover_soon(game, 1)

    async def on_batches(self, game: str, raws: list[Msg]) -> None:
        """Fold the game's log messages as delivered (and any earlier one not folded yet) and publish its
        views once for them all. None is acked (the consumer acks nothing): if that fails, the game is
        folded again from its log (`_recover`)."""
        try:
            await self._drained(game, raws)
        except Exception as error:  # noqa: BLE001 - the consumer must outlive any one game
            log.error("projection_failed", game=game, error=repr(error)[:200])
            self._recover_soon(game, 1)

    def _recover_soon(self, game: str, tries: int) -> None:
        """The game folded again from its log and stored SETTLE_SECONDS from now (once, however often its
        batches fail meanwhile), in a task of its own."""
        def start() -> None:
            del self.recovering[game]
            task = asyncio.ensure_future(self._recover(game, tries))
            self.settles.add(task)
            task.add_done_callback(self.settles.discard)
        if game not in self.recovering:
            self.recovering[game] = asyncio.get_running_loop().call_later(SETTLE_SECONDS, start)

    async def _recover(self, game: str, tries: int) -> None:
        """A game whose batches failed to fold or publish: its views and feed written again from its log (a
        later batch of it would catch up too, but a game may have none), tried again a while later if that
        fails too, up to RECOVER_TRIES times (then the next batch, or the next sweep)."""
        try:
            await self._rewrite(game)
        except Exception as error:  # noqa: BLE001 - said, and tried again
            if tries >= RECOVER_TRIES:   # forgotten: its next batch folds it again from its log and the feed
                log.error("projection_given_up", game=game, tries=tries, error=repr(error)[:200])
                self._forget(game)
                self.fast.repaired(game)
                return
            log.warning("projection_failed_again", game=game, tries=tries, error=repr(error)[:200])
            self._recover_soon(game, tries + 1)

    async def _drained(self, game: str, raws: list[Msg]) -> None:
        self._on_which_server()
        feeds, folded = [], False
        async with self._lock(game):
            try:
                projected = await self._projected(game)
                for raw in raws:
                    try:
                        batch = decode_batch(raw.data)
                    except (msgspec.DecodeError, msgspec.ValidationError) as error:
                        await drop(raw, "log", f"undecodable: {error}")   # it would fail the same way for ever
                        continue
                    folded |= await self._project(projected, game, delivery(raw).stream_seq, raw.headers or {},
                                                  batch, feeds)
                if folded:
                    await self._publish(game, projected, feeds)
            except Exception:
                self.games.pop(game, None)  # half-published: the next delivery starts over from the log
                raise
        if folded:
            log.debug("projected", game=game, seq=projected.projection.seq, log_seq=projected.last)

    async def _publish(self, game: str, projected: ProjectedGame, feeds: list[tuple[int, list]]) -> None:
        """The game's views sent live and the feed batches folded sent to be stored (in the fast batch, or each
        alone and waited for where the stream takes no fast batches); the views stored now if a hand or the
        game has ended, else once the game has been quiet for SETTLE_SECONDS, or SETTLE_MOST after its first
        view not stored."""
        loop = asyncio.get_running_loop()
        if projected.settling is None:   # the first view not stored since the last store
            projected.since = loop.time()
        await send_live(self.js._nc, views_of(game, projected.projection))
        if feeds and self.fast.usable:
            FEED_PUBLISHED.inc(await self.fast.add(game, feed_messages(game, feeds)))
        elif feeds:
            FEED_PUBLISHED.inc(await store_feed(self.js, game, feeds))
        if projected.settling is not None:
            projected.settling.cancel()
            projected.settling = None
        state = projected.projection.game
        if state.hand_over or state.game_over:
            await self._store(game, projected, [])
        else:
            wait = min(SETTLE_SECONDS, projected.since + SETTLE_MOST - loop.time())
            projected.settling = loop.call_later(max(wait, 0), self._settle_soon, game, projected)

    async def _store(self, game: str, projected: ProjectedGame, feeds: list[tuple[int, list]]) -> None:
        """One write of the game's views and the feed batches folded (each stored alone, in order), all sent
        at once, then each waited for."""
        self.kv = self.kv or await self.js.key_value(VIEWS)
        seq = projected.projection.seq
        published = await write_views(self.kv, game, projected.projection, projected.revisions, feeds)
        projected.stored = max(projected.stored, seq)
        VIEWS_WRITTEN.inc()
        FEED_PUBLISHED.inc(published)

    def _settle_soon(self, game: str, projected: ProjectedGame) -> None:
        projected.settling = None
        task = asyncio.ensure_future(self._settle(game, projected))
        self.settles.add(task)
        task.add_done_callback(self.settles.discard)

    async def _settle(self, game: str, projected: ProjectedGame) -> None:
        """The game's views stored, unless they are already; a store that fails is said, and tried again
        SETTLE_SECONDS later while the game is held here (a server that went away is swept when it is back)."""
        try:
            async with self._lock(game):
                if projected.unsettled:
                    await self._store(game, projected, [])
        except Exception as error:  # noqa: BLE001 - said, and tried again
            log.warning("views_not_stored", game=game, error=str(error)[:200])
            if self.games.get(game) is projected and projected.settling is None:
                projected.settling = asyncio.get_running_loop().call_later(SETTLE_SECONDS, self._settle_soon, game,
                                                                           projected)

    def _lock(self, game: str) -> asyncio.Lock:
        """The game's lock (a drain or a sweep at a time), kept while anyone holds it."""
        lock = self.locks.get(game)
        if lock is None:
            lock = self.locks[game] = asyncio.Lock()
        return lock

    async def _project(self, projected: ProjectedGame, game: str, seq: int, headers: dict, batch: Batch,
                       feeds: list) -> bool:
        """Fold log message `seq`, catching up first on any earlier one not folded; False for one folded
        already (a redelivery, or read while catching up for a later one). The feed batches to publish
        are put in `feeds`."""
        if seq <= projected.last:
            return False
        previous = headers.get(PREVIOUS_HEADER)
        if previous != str(projected.last):
            known = int(previous) if previous and previous.isdigit() else 0
            await self._catch_up(projected, game, before=seq, known=known, feeds=feeds)
        self._fold(projected, seq, batch, due_at(headers), feeds)
        return True

    async def _projected(self, game: str) -> ProjectedGame:
        if game in self.games:
            self.games.move_to_end(game)
            return self.games[game]
        projected = ProjectedGame(fed=await last_feed_seq(self.js, game))
        self.games[game] = projected
        while len(self.games) > self.cache:
            evicted, gone = self.games.popitem(last=False)
            if gone.unsettled:   # its views stored before it is forgotten
                if gone.settling is not None:
                    gone.settling.cancel()
                self._settle_soon(evicted, gone)
        return projected

    async def _catch_up(self, projected: ProjectedGame, game: str, before: int, known: int, feeds: list) -> None:
        """Fold the game's log messages after the last one folded, up to (not including) `before`:
        read in batched direct gets, as a whole log is read, and at least up to `known`, the game's
        message before `before` (services/bus/log_store.py: read your writes)."""
        stream, subject = await where(self.js, game)
        found, _ = await read_stored(self.js, stream, subject, after=projected.last, at_least=known, whole=True)
        found = [msg for msg in found if msg.seq < before]
        due = {msg.seq: due_at(msg.headers) for msg in found}
        for seq, batch in batches([(msg.seq, msg.data or b"") for msg in found], game, "projector"):
            self._fold(projected, seq, batch, due[seq], feeds)
        if found:   # past any message that is no batch, too
            projected.last = max(projected.last, found[-1].seq)

    @staticmethod
    def _fold(projected: ProjectedGame, seq: int, batch: Batch, due: float | None, feeds: list) -> None:
        """Fold log message `seq`; its feed batch goes in `feeds` unless the stream holds it (`fed`)."""
        projection = advance(projected.projection, batch.events, batch.cause, due)
        if projection.seq > projected.fed:
            feeds.append((projection.seq, batch.events))
            projected.fed = projection.seq
        projected.projection, projected.last = projection, seq
