"""The bots service (`zioncheck serve bots`): the house's bots play the seats a game's start gave them,
unless the start says the program that started it plays them (GameStarted.bots_by): `zioncheck run`
and `play` seat their own, and the service never sits down at those.

It sees what its seats see and no more, and the server sees to it (docs/security.md): the projector
writes each seat the service plays a view of its own, `<tenant>.<game>.bot.<n>` in KV zc_views (that
seat's SeatView), and those are the only views, and the only game data, the bots' login may read; the log,
its live copy and every other seat's view are closed to it. The service follows zc.view.*.*.bot.*, where
the server republishes each: a game's first bot view comes with its start, and says which bot sits where
(`seats`) and their pace (`bot_seconds`). Each bot decides from its own seat's view (services/bots/views.py).

It keeps nothing of its own. At start, and every `rescan` seconds for a game whose views it may have
missed (core NATS can drop a message), it lists the bot views stored (one stream info, keys only), reads
one view of each game it is not playing by direct get, and takes up those not over; a game found over is
not read again. Killed at any moment, it picks every game up again where its views stand. Should it be
down for long, the table's own deadlines (R19) play the bot seats' turns meanwhile.

A program that starts a game and plays its bots itself (`play`) follows the game's log with its own login,
one that may read it; its bots decide from each seat's sight of the game all the same (bots/sight.py).
"""
import asyncio
import contextlib
import random

import msgspec
import structlog
from nats.aio.client import Client
from nats.js import JetStreamContext
from prometheus_client import Gauge

from zioncheck.bots import make_bot
from zioncheck.client import GameClient, read_view
from zioncheck.contracts.commands import PERSON
from zioncheck.contracts.events import GameStarted
from zioncheck.contracts.views import SeatView, decode_seat_view
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bots.views import SeatViews, play_views
from zioncheck.services.bus import tasks
from zioncheck.services.bus.access import when_reconnected
from zioncheck.services.bus.log_store import subject_counts
from zioncheck.services.bus.topology import (
    BOT_VIEWS,
    VIEWS,
    game_of,
    is_view_of,
    kv_stream,
    kv_subject,
    view_live_subject,
)
from zioncheck.services.observability import skipped

# How long the bots wait before playing a game on after a failed read or send, doubling up to the most.
RETRY_FIRST, RETRY_MOST = 0.05, 0.5
log = structlog.get_logger("bots")
BOT_GAMES = Gauge("zc_bot_games", "Games whose bot seats this bots service is playing now")


def bot_seats(started: GameStarted) -> dict[int, str]:
    """The seats a game's start gave the house's bots, and which bot sits in each."""
    return {seat: who for seat, who in enumerate(started.seats) if who != PERSON}


class BotsService:
    def __init__(self, nc: Client, js: JetStreamContext, seed: int | None = None, rescan: float = 30.0):
        self.client = GameClient(nc)
        self.js = js
        self.seed, self.rescan = seed, rescan
        self.playing: dict[str, asyncio.Task] = {}
        self.tables: dict[str, SeatViews] = {}   # the games played from their bot views: each one's views
        self.over: set[str] = set()               # games whose bot views say they are over: not read again
        self._tasks: list[asyncio.Task] = []
        self._sub = None

    async def start(self) -> None:
        self._sub = await self.client.nc.subscribe(view_live_subject(BOT_VIEWS), cb=self._on_view)
        await self.resume()
        self._tasks.append(asyncio.create_task(self._rescan_every()))
        when_reconnected(self.client.nc, self._reconnected)

    async def _reconnected(self) -> None:
        """The connection is back: the views republished while it was away never came. Each game played here
        reads its stored views now, and games started meanwhile are looked for."""
        for table in self.tables.values():
            table.look_now()
        self._tasks = [task for task in self._tasks if not task.done()]
        self._tasks.append(asyncio.create_task(self._resume_soon()))

    async def _resume_soon(self) -> None:
        """Take up the games started while the connection was away, once the server serves its streams."""
        for _ in range(20):
            try:
                await self.resume()
                return
            except Exception as error:  # noqa: BLE001 - a server just back may not serve its streams yet
                log.info("resume_failed", error=str(error)[:200])
                await asyncio.sleep(RETRY_MOST)

    async def stop(self) -> None:
        if self._sub is not None:
            with contextlib.suppress(Exception):
                await self._sub.unsubscribe()
        await tasks.stop([*self._tasks, *self.playing.values()])
        self.playing.clear()
        self.tables.clear()

    async def resume(self) -> int:
        """Take up each game with bot views stored that is neither played here nor over; returns how many.
        One view of each such game is read; a game found over is remembered, and never read again."""
        keys = await subject_counts(self.js, kv_stream(VIEWS), kv_subject(VIEWS, BOT_VIEWS))
        games: dict[str, str] = {}
        for subject in sorted(keys):
            games.setdefault(game_of(subject), subject.removeprefix(kv_subject(VIEWS, "")))
        self.over &= set(games)   # a game whose views are gone (archived and removed) is forgotten
        taken = 0
        for game, key in games.items():
            if game in self.playing or game in self.over:
                continue
            try:
                data = await read_view(self.client.nc, key)
                view = decode_seat_view(data) if data else None
            except Exception as error:  # noqa: BLE001 - one unreadable game must not stop the others
                log.warning("game_unreadable", game=game, error=str(error)[:200])
                continue
            if view is None or game in self.playing:   # (heard starting while the views were listed)
                continue
            if view.public.game_over:
                self.over.add(game)
                continue
            taken += self._take_up(game, view)
        return taken

    async def _on_view(self, msg) -> None:
        """A bot seat's view, live from the projector or as the server republished its store: its game's bots
        look at it, or, for a game not played here yet, it is the game's start (or the first view heard since
        this service started)."""
        if not is_view_of(msg, msg.subject.removeprefix(view_live_subject(""))):
            return
        try:
            view = decode_seat_view(msg.data)
        except msgspec.DecodeError as error:   # not a view: nothing to play
            skipped("bots", "views", msg.subject, str(error))
            return
        game = game_of(msg.subject)
        table = self.tables.get(game)
        if table is not None:
            table.offer(view)
        elif not view.public.game_over and game not in self.over:
            self._take_up(game, view)

    def play(self, game: str, started: GameStarted) -> asyncio.Task | None:
        """Play the bot seats of a game this program started (`bots_by` "starter"), following its log with
        this program's own login (one that may read it); the task that does, until the game is over (None
        when it seats no bot)."""
        seats = bot_seats(started)
        if not seats:
            return None
        self.playing[game] = asyncio.create_task(self._play(game, seats, started.limits.bot_seconds))
        log.info("bots_seated", game=game, seats=",".join(f"{seat}:{name}" for seat, name in seats.items()))
        return self.playing[game]

    def _take_up(self, game: str, view: SeatView) -> int:
        """Play the bot seats of a game whose bot view this is: every seat its start gave a bot, as only a
        game whose bots this service plays has bot views (domain/views/projection.py, served_seats)."""
        seats = {seat: who for seat, who in enumerate(view.public.seats) if who != PERSON}
        if view.seat not in seats:
            return 0
        table = self.tables[game] = SeatViews(self.client.nc, game, seats)
        table.offer(view)
        self.playing[game] = asyncio.create_task(self._play(game, seats, view.public.bot_seconds, table))
        BOT_GAMES.set(len(self.playing))
        log.info("bots_seated", game=game, seats=",".join(f"{seat}:{name}" for seat, name in seats.items()))
        return 1

    async def _play(self, game: str, seats: dict[int, str], pace: float, table: SeatViews | None = None) -> None:
        """Play the game's bot seats until it is over: from their views (`table`), or else from the game's
        log. A failed read or send (a server or node gone, a leader being elected) is tried again after a
        pause that doubles up to RETRY_MOST: a game is given up only when it is over."""
        rng = random.Random(None if self.seed is None else f"{self.seed}/{game}")
        bots = {seat: make_bot(name, rng) for seat, name in seats.items()}
        pause = RETRY_FIRST
        try:
            while True:
                follower = None
                try:
                    if table is not None:
                        await play_views(self.client, table, bots, rng, pace)
                        self.over.add(game)
                    else:
                        follower = await self.client.follow(game)
                        await play_seats(self.client, follower, bots, rng, pace, patience=None)
                    log.info("bots_done", game=game)
                    return
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # noqa: BLE001 - the store comes back: play on from where it stands
                    log.warning("bots_retrying", game=game, error=str(error)[:200], after=pause)
                    await asyncio.sleep(pause)
                    pause = min(2 * pause, RETRY_MOST)
                finally:
                    if follower is not None:
                        with contextlib.suppress(Exception):
                            await follower.stop()
        finally:
            self.playing.pop(game, None)
            self.tables.pop(game, None)
            BOT_GAMES.set(len(self.playing))

    async def _rescan_every(self) -> None:
        while True:
            await asyncio.sleep(self.rescan)
            try:
                await self.resume()
            except Exception as error:  # noqa: BLE001 - the next look tries again
                log.warning("rescan_failed", error=str(error)[:200])
