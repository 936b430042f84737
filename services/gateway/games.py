"""The gateway's writing side: opening games, a seat's commands and their outcomes.

The gateway writes only commands (zc.cmd.<game>); it learns each one's outcome from the
log like any client (zioncheck.client.Follower). The bot seats of the games it opens are
named in their start (StartGame.seats) and played by the bots service, so a gateway
restarted mid-game leaves no game waiting on it.

What it holds for a game (a Held: the follower) is let go once the game is
over, or once no one has moved in it for `idle_after` seconds:
nothing a game leaves behind grows with the number of games ever opened. A key holds at
most `open_per_key` games at a time; games followed only for a seat's commands (opened
elsewhere, or let go here while idle) are at most `followed_kept`, the least recently
moved let go first.
"""
import asyncio
import contextlib
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import structlog
from prometheus_client import Counter as Metric
from prometheus_client import Gauge

from zioncheck.client import Follower, GameClient
from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import SeatCommand, StartGame
from zioncheck.contracts.log import encode, tag_of
from zioncheck.domain.refusal import refusal_of
from zioncheck.domain.views import redact
from zioncheck.services.bus import tasks
from zioncheck.services.bus.topology import DEFAULT_TENANT, game_key, new_game_id, tenant_of
from zioncheck.services.gateway.reads import Reads
from zioncheck.services.gateway.roll_call import RollCall
from zioncheck.services.gateway.wire import NewGame, Outcome, limits_of

log = structlog.get_logger("gateway")
COMMANDS = Metric("zc_gateway_commands_total", "Seat commands the gateway sent and heard the outcome of, "
                  "by outcome and R18 reason", ["outcome", "reason"])
HELD = Gauge("zc_gateway_games_held", "Games this gateway follows right now")


class StartRefused(Exception):
    """The rules refused the game's StartGame (R18), so no game opened."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


class TooManyOpen(Exception):
    """The key already holds as many open games as one key may."""


@dataclass
class Held:
    """What the gateway keeps for one game: its follower, and whose key opened it here."""
    follower: asyncio.Future              # of a Follower: concurrent first commands share one
    owner: str | None = None              # the key that opened it here; None: followed for a seat's command
    busy: int = 0                         # commands waiting for their outcome
    moves: int = 0                        # log batches seen when last looked at
    since: float = field(default_factory=time.monotonic)   # when it last moved

    def ready(self) -> Follower | None:
        """The follower, once it follows; None while it is starting or if it failed."""
        if self.follower.done() and not self.follower.cancelled() and not self.follower.exception():
            return self.follower.result()
        return None


class Games:
    def __init__(self, client: GameClient, reads: Reads, answer_within: float = 10.0, open_per_key: int = 50,
                 idle_after: float = 1800.0, followed_kept: int = 1000, roll_call: RollCall | None = None):
        self.client, self.reads = client, reads
        self.roll_call = roll_call            # when given, a game starts only while the services it needs answer
        self.answer_within = answer_within    # seconds to wait for the table's outcome of a command
        self.open_per_key, self.idle_after, self.followed_kept = open_per_key, idle_after, followed_kept
        self.held: dict[str, Held] = {}
        self.opening: Counter[str] = Counter()   # games each key is opening right now
        self.waiting: Counter[str] = Counter()   # lobbies each key holds, not yet started (lobbies.py)
        self._sweeper: asyncio.Task | None = None

    def start(self) -> "Games":
        self._sweeper = asyncio.create_task(self._sweep_every(min(self.idle_after / 4, 60.0)))
        return self

    async def stop(self) -> None:
        await tasks.stop([self._sweeper])
        for game in list(self.held):
            await self._release(game, "gateway stopped")

    def open_by(self, owner: str) -> int:
        """Games the key holds here: open ones, ones being opened, and lobbies waiting to start."""
        return self.opening[owner] + self.waiting[owner] + sum(1 for held in self.held.values() if held.owner == owner)

    def check_room(self, owner: str) -> None:
        """TooManyOpen when the key may open no more games until one of its games ends or idles."""
        if self.open_by(owner) >= self.open_per_key:
            raise TooManyOpen(f"platform key {owner!r} holds {self.open_per_key} games not yet over, as many as a "
                              f"key may: one must end, or go {self.idle_after / 60:g} minutes without a move, "
                              "before it opens another")

    async def create(self, new: NewGame, owner: str, game: str | None = None, tenant: str = DEFAULT_TENANT) -> str:
        """Open a game for the key `owner` (TooManyOpen when it holds its fill); its start seats its bots.

        `game` is the id a lobby reserved for it; without one the game gets a new id. NotServed, before anything
        is sent, when a service the game needs does not answer (roll_call.py)."""
        if self.roll_call is not None:   # before check_room: from there to `opening` nothing may await
            await self.roll_call.check_can_play()
        self.check_room(owner)
        self.opening[owner] += 1   # before any await: concurrent requests see this one's place taken
        try:
            game, follower = await self._start(new, game or game_key(tenant, new_game_id()))
        finally:
            self.opening[owner] -= 1
            if not self.opening[owner]:
                del self.opening[owner]
        self.held[game] = Held(_done(follower), owner=owner, moves=len(follower.batches))
        HELD.set(len(self.held))
        log.info("game_opened", game=game, key=owner, seats=",".join(new.seats), pace=new.pace)
        return game

    async def _start(self, new: NewGame, game: str) -> tuple[str, Follower]:
        follower = await self.client.follow(game)
        try:
            limits = limits_of(new)
            seq = await self.client.send(game, StartGame(game_id=tenant_of(game)[1], players=new.players,
                                                         dealer=new.dealer, decks=new.decks, rules=new.rules,
                                                         seats=list(new.seats), limits=limits,
                                                         public=new.public, delay_seconds=new.delay_seconds))
            rejected = refusal_of(await follower.outcome(seq, self.answer_within))
        except BaseException:
            await follower.stop()
            raise
        if rejected:
            await follower.stop()
            raise StartRefused(rejected.reason, rejected.detail)
        return game, follower

    async def command(self, game: str, command: SeatCommand) -> Outcome:
        """Send a seat's command and wait for its outcome; TimeoutError if the table does not answer."""
        held = await self._hold(game)   # busy: no sweep lets it go while its command is out
        try:
            follower = held.ready()
            # A key of its own: a send the store does not answer is sent again, and stored once.
            seq = await self.client.send(game, encode(command), msg_id=f"gw-{uuid.uuid4().hex}")
            events = await follower.outcome(seq, self.answer_within)
        finally:
            held.busy -= 1
        # This outcome has been read, by this request alone: the follower need not keep it.
        follower.outcomes.pop(seq, None)
        follower.arrived.pop(seq, None)
        held.since = time.monotonic()
        if follower.state.game_over:
            await self._release(game, "over", held)
        return _outcome(game, seq, command, events)

    async def _hold(self, game: str) -> Held:
        """The game's Held, marked busy (the caller unmarks it), following the game now if this gateway
        does not (a game opened elsewhere, or let go here)."""
        held = self.held.get(game)
        if held is None:
            await self.reads.require(game)
            held = self.held.get(game)   # another request may have started following it meanwhile
            if held is None:
                self._make_room_to_follow()
                held = self.held[game] = Held(asyncio.ensure_future(self.client.follow(game)))
                HELD.set(len(self.held))
        held.busy += 1
        try:
            await asyncio.shield(held.follower)
        except BaseException:   # the follow failed (forget it), or this request was cancelled
            held.busy -= 1
            if held.follower.done() and held.ready() is None:
                self._forget(game, held)
            raise
        return held

    def _make_room_to_follow(self) -> None:
        """Let go of the least recently moved games followed only for commands, down to `followed_kept` - 1."""
        followed = sorted((held.since, game) for game, held in self.held.items()
                          if held.owner is None and not held.busy and held.ready())
        count = sum(1 for held in self.held.values() if held.owner is None)
        for _, game in followed[:max(0, count - self.followed_kept + 1)]:
            held = self._forget(game)
            stopping = asyncio.ensure_future(self._stop(held))   # forgotten at once; unsubscribing may take a moment
            stopping.add_done_callback(lambda task: task.exception())
            log.info("game_released", game=game, key=None, why="followed too many")

    async def sweep(self, now: float | None = None) -> None:
        """Let go of games over and of games no one has moved in for `idle_after` seconds, all at once."""
        now = time.monotonic() if now is None else now
        going = []
        for game, held in list(self.held.items()):
            follower = held.ready()
            if follower is None or held.busy:
                continue
            if len(follower.batches) != held.moves:
                held.moves, held.since = len(follower.batches), now
            elif follower.state.game_over:
                going.append(self._release(game, "over", held))
            elif now - held.since >= self.idle_after:
                going.append(self._release(game, "idle", held))
        await asyncio.gather(*going)

    async def _sweep_every(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await self.sweep()
            except Exception as error:  # noqa: BLE001 - the next sweep tries again
                log.error("sweep_failed", error=repr(error))

    async def _release(self, game: str, why: str, held: Held | None = None) -> None:
        """Forget the game (only `held`, if given), then stop its follower."""
        held = self._forget(game, held)
        if held is not None:
            await self._stop(held)
            log.info("game_released", game=game, key=held.owner, why=why)

    def _forget(self, game: str, held: Held | None = None) -> Held | None:
        if game not in self.held or (held is not None and self.held[game] is not held):
            return None
        HELD.set(len(self.held) - 1)
        return self.held.pop(game)

    async def _stop(self, held: Held) -> None:
        follower = held.ready()
        if follower is not None:
            with contextlib.suppress(Exception):   # the connection may be closing
                await follower.stop()


def _outcome(game: str, seq: int, command: SeatCommand, events: list) -> Outcome:
    kind = tag_of(command)
    if rejected := refusal_of(events):
        log.info("command", game=game, seq=seq, type=kind, outcome="rejected", reason=rejected.reason)
        COMMANDS.labels("rejected", rejected.reason).inc()
        return Outcome(game_id=game, seq=seq, accepted=False, reason=rejected.reason, detail=rejected.detail)
    log.info("command", game=game, seq=seq, type=kind, outcome="accepted")
    COMMANDS.labels("accepted", "").inc()
    drew = next((e.card for e in events if isinstance(e, ev.StockDrawn) and e.seat == command.seat), None)
    return Outcome(game_id=game, seq=seq, accepted=True, drew=drew,
                   events=[item for item in map(redact, events) if item is not None])


def _done(value) -> asyncio.Future:
    future = asyncio.get_running_loop().create_future()
    future.set_result(value)
    return future
