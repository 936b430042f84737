"""Live streams over WebSocket: a game's public view and feed to its spectators, a seat's view to its seat.

However many spectators watch a game, this gateway holds one subscription to its public
view's live subject (ViewWatch) and one consumer of its feed (a Hub); each frame is encoded
once, and framed as a WebSocket frame once, for every spectator. Where the server offers it
(FRAMED: the gateway's own server does, server.py), those bytes go straight to each spectator's
socket, with no task to wake and no framing a socket, and what a spectator gets on joining goes
in one write; a socket that cannot take them at once (its buffer full) gets its frames queued and
sent in turn, in order. A view waits VIEW_WAIT before it goes out, and only the newest of
those that came meanwhile goes. A spectator that falls `backlog` frames behind is closed
(1013) rather than slowing the others; it reconnects and starts again from the newest view.

A game whose start set a spectator delay (StartGame.delay_seconds) has a second hub for the spectators who are
neither its seats nor its tenant: it holds each view and feed batch until `delay` seconds after the server stored
it, then sends it as the live hub would. A spectator who joins gets what has been let out so far: the moves up to
`delay` seconds ago, and the view made `delay` seconds ago or before (none while the newest is younger than that).
"""
import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable

import msgspec
import structlog
from nats.js import JetStreamContext
from nats.js.api import DeliverPolicy
from nats.js.errors import KeyDeletedError, KeyNotFoundError, NotFoundError
from nats.js.kv import KeyValue
from prometheus_client import Gauge
from websockets.frames import Frame, Opcode

from zioncheck.services.bus.access import server_id, when_reconnected
from zioncheck.services.bus.topology import (
    FEED,
    feed_subject,
    is_view_of,
    public_view_key,
    view_live_subject,
)
from zioncheck.services.observability import skipped

HISTORY = 40          # feed batches a new spectator gets before live ones, for a page's list of moves
# Seconds a new public view waits before it goes out. A move and the claims or draw after it come within
# milliseconds, each with its view: only the newest of those goes to the spectators (a view is a snapshot;
# every move is in the feed, which never waits), and the feed frames that came meanwhile go first.
VIEW_WAIT = 0.02
# Seconds a hub opening waits for a view as new as its feed: the stored view may be older while the game
# moves (the projector stores a game's views when it settles); a live one comes with the game's next batch.
FRESH_SECONDS = 2.0
SPECTATORS = Gauge("zc_gateway_spectators", "WebSocket clients watching a game's public stream on this gateway")
# An ASGI scope extension: a callable that writes bytes already framed as whole WebSocket frames to the
# socket and returns True, or writes nothing and returns False when the socket cannot take them now
# (its buffer full, or closing). The gateway's server offers it (server.py); another may not.
FRAMED = "zioncheck.websocket.framed"
log = structlog.get_logger("gateway")


class _Seq(msgspec.Struct):
    seq: int   # every view and feed batch has one at the top: what has none is neither


_seq = msgspec.json.Decoder(_Seq)


def view_frame(data: bytes) -> str:
    return '{"kind":"view","view":' + data.decode() + "}"


def feed_frame(data: bytes) -> str:
    return '{"kind":"feed","batch":' + data.decode() + "}"


def framed(frame: str) -> bytes:
    """A text frame as a server sends it on the wire (unmasked, whole): the same for every socket."""
    return Frame(Opcode.TEXT, frame.encode()).serialize(mask=False)


class Spectator:
    """One WebSocket client's frames to send, in order: straight to its socket through `write` (FRAMED, set
    once its stream has begun) while nothing waits before them, else queued for the stream's sender."""

    def __init__(self, backlog: int):
        self.frames: asyncio.Queue[str] = asyncio.Queue()
        self.backlog = backlog
        self.overflowed = asyncio.Event()
        self.write: Callable[[bytes], bool] | None = None
        self.sending = False   # a frame taken from the queue is being sent

    def offer(self, frame: str, wire: bytes | None = None) -> None:
        """Send `frame` (`wire`: the same framed, when the caller framed it once for many)."""
        if self.write is not None and not self.sending and self.frames.empty() \
                and self.write(framed(frame) if wire is None else wire):
            return
        if self.frames.qsize() >= self.backlog:
            self.overflowed.set()
        else:
            self.frames.put_nowait(frame)

    def catch_up(self) -> None:
        """The frames queued before the stream began (the view, the latest moves, chat lines) in one write,
        where the socket takes frames framed; else they stay queued, in order."""
        if self.write is None or self.sending or self.frames.empty():
            return
        waiting = [self.frames.get_nowait() for _ in range(self.frames.qsize())]
        if not self.write(b"".join(map(framed, waiting))):
            for frame in waiting:
                self.frames.put_nowait(frame)


class ViewWatch:
    """Frames of one view's newest value, each view at most once and never an older one: its live subject
    followed (zc.view.<key>: the projector's live views and the server's republish of each stored one),
    then the stored value read. `stamped`: each is delivered with the time it was made too (seconds since
    the epoch: the server's time of storing a stored view, this gateway's of hearing a live one)."""

    def __init__(self, kv: KeyValue, key: str, deliver: Callable[..., None], after: int = -1, stamped: bool = False):
        self.kv, self.key, self.deliver, self.stamped = kv, key, deliver, stamped
        self.seq = after    # the newest view delivered, or the one the client says it has
        self.initial = asyncio.Event()   # the value stored when the watch began has been delivered
        self.sub = None

    async def start(self) -> "ViewWatch":
        """Subscribe first, then read the stored view: no view falls in between."""
        self.sub = await self.kv._js._nc.subscribe(view_live_subject(self.key), cb=self._on_live)
        try:
            entry = await self.kv.get(self.key)
        except (KeyNotFoundError, KeyDeletedError):
            entry = None
        if entry is not None and entry.value:
            self._offer(entry.value, entry.created.timestamp() if entry.created else None, entry.revision or 0)
        self.initial.set()
        return self

    async def _on_live(self, msg) -> None:
        if is_view_of(msg, self.key):
            self._offer(msg.data, time.time(), 0)

    def _offer(self, data: bytes, made: float | None, revision: int) -> None:
        try:
            seq = _seq.decode(data).seq
        except msgspec.DecodeError:   # no view: passed over, the watch goes on to the next
            skipped("gateway", "views", self.key, "not a view", revision)
            return
        if seq > self.seq:
            self.seq = seq
            if self.stamped:
                self.deliver(view_frame(data), seq, made)
            else:
                self.deliver(view_frame(data), seq)

    async def stop(self) -> None:
        if self.sub is not None:
            with contextlib.suppress(Exception):   # the connection may be closed already
                await self.sub.unsubscribe()


class Hub:
    """One game's public stream in this gateway, shared by all its spectators; `delay` seconds behind the game
    for the spectators of a game whose start set one (0: live)."""

    def __init__(self, game: str, delay: float = 0):
        self.game = game
        self.delay = delay
        self.held: deque[tuple[float, str, str, int]] = deque()   # (when it may go, "view" or "feed", frame, seq)
        self._release_due: asyncio.TimerHandle | None = None
        self._fed_seq = -1                      # the newest feed batch heard (held ones too)
        self.spectators: set[Spectator] = set()
        self.view: str | None = None            # the newest view sent (before the hub is ready: stored)
        self._next_view: str | None = None      # a newer one, waiting VIEW_WAIT to go out
        self._view_due: asyncio.TimerHandle | None = None
        self.feed: list[tuple[int, str]] = []
        self.ready = asyncio.Event()
        self.opening: asyncio.Future | None = None
        self._fed = asyncio.Event()
        self._viewed = asyncio.Event()          # a view came
        self.watch: ViewWatch | None = None
        self.sub = None

    async def open(self, js: JetStreamContext, kv: KeyValue) -> None:
        self.watch = await ViewWatch(kv, public_view_key(self.game), self._on_view, stamped=True).start()
        try:
            await js.get_msg(FEED, subject=feed_subject(self.game))
        except NotFoundError:
            self._fed.set()  # nothing to catch up on
        await self._follow(js)
        await asyncio.gather(self.watch.initial.wait(), self._fed.wait())
        if not self.delay:
            await self._fresh_view()
        self.ready.set()

    async def _fresh_view(self) -> None:
        """Until the view is as new as the feed heard, or FRESH_SECONDS have gone by."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(FRESH_SECONDS):
                while self.watch is not None and self.watch.seq < self._fed_seq:
                    self._viewed.clear()
                    await self._viewed.wait()

    async def _follow(self, js: JetStreamContext) -> None:
        self.sub = await js.subscribe(feed_subject(self.game), ordered_consumer=True,
                                      deliver_policy=DeliverPolicy.ALL, cb=self._on_feed)

    async def read_again(self, js: JetStreamContext, kv: KeyValue) -> None:
        """The game's view and feed read again from their start, each batch and view not yet sent going out
        (those sent are known by their seq): a server started again may have lost the last of them, which
        the projector writes again at other places in their streams than where they were read."""
        if self.sub is None or self.watch is None:   # not open yet: it reads from the start anyway
            return
        await self.sub.unsubscribe()
        await self._follow(js)
        await self.watch.stop()
        self.watch = await ViewWatch(kv, public_view_key(self.game), self._on_view, after=self.watch.seq,
                                     stamped=True).start()

    async def close(self) -> None:
        if self._view_due is not None:
            self._view_due.cancel()
        if self._release_due is not None:
            self._release_due.cancel()
        if self.watch is not None:
            await self.watch.stop()
        if self.sub is not None:
            await self.sub.unsubscribe()

    def _on_view(self, frame: str, seq: int, made: float | None = None) -> None:
        """A newer view goes out VIEW_WAIT from the first not yet sent, the newest by then only (a delayed hub's
        once its delay has run from when it was `made`)."""
        self._viewed.set()
        if self.delay:
            self._hold(made, "view", frame)
        else:
            self._show_view(frame)

    def _show_view(self, frame: str) -> None:
        if not self.ready.is_set():
            self.view = frame
            return
        self._next_view = frame
        if self._view_due is None:
            self._view_due = asyncio.get_running_loop().call_later(VIEW_WAIT, self._send_view)

    def _send_view(self) -> None:
        self._view_due = None
        if self._next_view is not None:
            self.view, self._next_view = self._next_view, None
            self._broadcast(self.view)

    async def _on_feed(self, msg) -> None:
        try:
            seq = _seq.decode(msg.data).seq
        except msgspec.DecodeError:   # no feed batch: passed over (nothing to send), the feed goes on
            skipped("gateway", "feed", msg.subject, "not a feed batch", msg.metadata.sequence.stream)
            seq = -1
        if seq > self._fed_seq:   # a rebuilt feed repeats seqs already seen
            self._fed_seq = seq
            if self.delay:
                self._hold(msg.metadata.timestamp.timestamp() if msg.metadata.timestamp else None, "feed",
                           feed_frame(msg.data), seq)
            else:
                self._show_feed(feed_frame(msg.data), seq)
        if msg.metadata.num_pending == 0:
            self._fed.set()

    def _show_feed(self, frame: str, seq: int) -> None:
        self.feed.append((seq, frame))
        if self.ready.is_set():
            self._broadcast(frame)

    def _hold(self, made: float | None, kind: str, frame: str, seq: int = 0) -> None:
        """Hold a frame until `delay` seconds after the server stored it (`made`, by the gateway's clock: never
        later than when it was heard), in order behind those held before it."""
        now = time.time()
        self.held.append((min(made or now, now) + self.delay, kind, frame, seq))
        if len(self.held) == 1:
            self._release()

    def _release(self) -> None:
        """Let out every held frame whose time has come, in order; then wait for the next one's."""
        self._release_due = None
        now = time.time()
        while self.held and self.held[0][0] <= now:
            _, kind, frame, seq = self.held.popleft()
            if kind == "view":
                self._show_view(frame)
            else:
                self._show_feed(frame, seq)
        if self.held:
            self._release_due = asyncio.get_running_loop().call_later(self.held[0][0] - now, self._release)

    def _broadcast(self, frame: str) -> None:
        if self.ready.is_set() and self.spectators:
            wire = framed(frame)
            for spectator in list(self.spectators):
                spectator.offer(frame, wire)

    def join(self, spectator: Spectator, after: int | None = None) -> None:
        """The newest view, then the latest moves, then every frame as it comes (no await: nothing slips between).

        A client that saw every feed batch up to `after` resumes there: every batch past it, none it has seen.
        The newest view comes either way (views and feed arrive apart, so the client's view may be older than
        its feed; a view is a snapshot, and the client keeps the one with the highest seq). Catching up is
        not held against the backlog: it goes in at once."""
        if self.view:
            spectator.frames.put_nowait(self.view)
        missed = self.feed[-HISTORY:] if after is None else [(seq, f) for seq, f in self.feed if seq > after]
        for _, frame in missed:
            spectator.frames.put_nowait(frame)
        self.spectators.add(spectator)


class Hubs:
    """The hubs of the games someone watches here; a hub closes when its last spectator leaves. On a server
    it has not read before (one started again, or another of a cluster), every hub reads again."""

    def __init__(self, js: JetStreamContext, kv: KeyValue):
        self.js, self.kv = js, kv
        self.hubs: dict[str, Hub] = {}
        self.behind: dict[str, Hub] = {}   # the delayed hubs of games whose start set a spectator delay
        self.server = server_id(js._nc)
        when_reconnected(js._nc, self._reconnected)

    async def _reconnected(self) -> None:
        server = server_id(self.js._nc)
        if server == self.server:
            return
        self.server = server
        for hub in [*self.hubs.values(), *self.behind.values()]:
            try:
                await hub.read_again(self.js, self.kv)
            except Exception as error:  # noqa: BLE001 - the server went away again: the next reconnect reads
                log.warning("hub_read_again_failed", game=hub.game, error=repr(error)[:200])
                self.server = None

    def watched(self, game: str) -> bool:
        """Someone watches the game here: it is stored (the first to watch it was let in only if it was)."""
        return game in self.hubs or game in self.behind

    def released_view(self, game: str) -> str | None:
        """The view a delayed game's spectators see now here, as a frame (None when none watch it here, or none
        has been let out yet)."""
        hub = self.behind.get(game)
        return hub.view if hub is not None and hub.ready.is_set() else None

    async def join(self, game: str, spectator: Spectator, after: int | None = None, delay: float = 0) -> Hub:
        """The game's hub, live, or `delay` seconds behind it (a spectator of a game whose start set a delay)."""
        hubs = self.behind if delay else self.hubs
        hub = hubs.get(game)
        if hub is None:
            hub = hubs[game] = Hub(game, delay)
            hub.opening = asyncio.ensure_future(hub.open(self.js, self.kv))
        try:
            await asyncio.shield(hub.opening)
        except Exception:
            if hubs.get(game) is hub:
                del hubs[game]
                await hub.close()
            raise
        hub.join(spectator, after)
        SPECTATORS.inc()
        return hub

    async def leave(self, hub: Hub, spectator: Spectator) -> None:
        SPECTATORS.dec()
        hub.spectators.discard(spectator)
        hubs = self.behind if hub.delay else self.hubs
        if not hub.spectators and hubs.get(hub.game) is hub:
            del hubs[hub.game]
            await hub.close()

    async def close(self) -> None:
        for hub in [*self.hubs.values(), *self.behind.values()]:
            await hub.close()
        self.hubs.clear()
        self.behind.clear()
