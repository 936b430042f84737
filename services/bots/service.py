"""The bots service (`zioncheck serve bots`): the house's bots play the seats a game's start gave them,
unless the start says the program that started it plays them (GameStarted.bots_by): `zioncheck run`
and `play` seat their own, and the service never sits down at those.

Which seats are bots, and which bot, is in the log (GameStarted.seats), and so is the pace
(GameStarted.limits.bot_seconds): the service keeps nothing of its own. It hears each new
game's start on zc.live.*.hand, and every `rescan` seconds reads the hand boundaries stored
since its last look (at start, all of them) for a start it may have missed (core NATS can
drop one): each look costs what was stored since the one before, not the whole store. A game
started there and not over is taken up. Killed at any moment, it picks every game up again
where the log stands. Should it be down for long, the table's own deadlines (R19) play the
bot seats' turns meanwhile.
"""
import asyncio
import contextlib
import random

import structlog
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError
from prometheus_client import Gauge

from zioncheck.bots import make_bot
from zioncheck.client import GameClient
from zioncheck.contracts.commands import PERSON, SERVICE
from zioncheck.contracts.events import GameEnded, GameStarted
from zioncheck.contracts.log import decode_batch
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus import tasks
from zioncheck.services.bus.log_store import read_stored
from zioncheck.services.bus.topology import LOG, game_of, hand_boundaries, layout, live_subject, log_stream

# How long the bots wait before playing a game on after a failed read or send, doubling up to the most.
RETRY_FIRST, RETRY_MOST = 0.05, 0.5
log = structlog.get_logger("bots")
BOT_GAMES = Gauge("zc_bot_games", "Games whose bot seats this bots service is playing now")


def bot_seats(started: GameStarted) -> dict[int, str]:
    """The seats a game's start gave the house's bots, and which bot sits in each."""
    return {seat: who for seat, who in enumerate(started.seats) if who != PERSON}


def ours(started: GameStarted) -> bool:
    """Whether the bots service plays the game's bot seats: not when the program that started it does."""
    return started.bots_by == SERVICE


class BotsService:
    def __init__(self, nc: Client, js: JetStreamContext, seed: int | None = None, rescan: float = 30.0):
        self.client = GameClient(nc)
        self.js = js
        self.seed, self.rescan = seed, rescan
        self.playing: dict[str, asyncio.Task] = {}
        self.seen: dict[str, int] = {}    # each log stream's last sequence looked over
        self._tasks: list[asyncio.Task] = []
        self._sub = None

    async def start(self) -> None:
        self._sub = await self.client.nc.subscribe(live_subject("*", "hand"), cb=self._on_hand)
        await self.resume()
        self._tasks.append(asyncio.create_task(self._rescan_every()))

    async def stop(self) -> None:
        if self._sub is not None:
            with contextlib.suppress(Exception):
                await self._sub.unsubscribe()
        await tasks.stop([*self._tasks, *self.playing.values()])
        self.playing.clear()

    async def resume(self) -> int:
        """Take up the bot seats of each game started since the last look (at the first, of every stored
        game) and not over; returns how many."""
        where = await layout(self.js)
        games: set[str] = set()
        for p in range(where.partitions):
            stream = log_stream(p)
            try:
                found, self.seen[stream] = await read_stored(self.js, stream, hand_boundaries(p),
                                                             after=self.seen.get(stream, 0), whole=True)
            except Exception as error:  # noqa: BLE001 - the next look reads this partition from where it was
                log.warning("partition_unreadable", stream=stream, error=str(error)[:200])
                continue
            for msg in found:   # the game's key is its subject's (a start names the tenant's own id)
                try:
                    first = decode_batch(msg.data).events[:1]
                except Exception as error:  # noqa: BLE001 - one unreadable batch must not stop the others
                    log.warning("batch_unreadable", stream=stream, error=str(error)[:200])
                    continue
                if first and isinstance(first[0], GameStarted):
                    games.add(game_of(msg.subject))
        taken = 0
        for game in sorted(games - set(self.playing)):
            started = await self._not_over(game, where)
            if started is not None and game not in self.playing:   # (heard starting while its log was read)
                taken += self._take_up(game, started) if ours(started) else 0
        return taken

    async def _not_over(self, game: str, where) -> GameStarted | None:
        """The game's start, read from its log, if the game is not over."""
        stream, hands = where.log_stream(game), where.log_subject(game, "hand")
        try:
            first = decode_batch((await self.js.get_msg(stream, subject=hands, next=True, seq=1)).data)
            last = decode_batch((await self.js.get_msg(stream, subject=hands)).data)
        except NotFoundError:
            return None
        except Exception as error:  # noqa: BLE001 - one unreadable game must not stop the others
            log.warning("game_unreadable", game=game, error=str(error)[:200])
            return None
        started = first.events[0] if first.events else None
        if not isinstance(started, GameStarted) or any(isinstance(e, GameEnded) for e in last.events):
            return None
        return started

    async def _on_hand(self, msg) -> None:
        """A hand boundary as the log stored it: a new game's start names its bot seats."""
        if not (msg.headers or {}).get("Nats-Stream", "").startswith(f"{LOG}_"):
            return   # only the server's republished copy of a stored batch counts
        game = game_of(msg.subject)
        if game in self.playing:
            return
        try:
            batch = decode_batch(msg.data)
        except Exception:  # noqa: BLE001 - not a batch: nothing to play
            return
        if batch.events and isinstance(batch.events[0], GameStarted) and ours(batch.events[0]):
            self._take_up(game, batch.events[0])

    def play(self, game: str, started: GameStarted) -> asyncio.Task | None:
        """Play the bot seats of a game this program started (`bots_by` "starter"); the task that
        does, until the game is over (None when it seats no bot)."""
        self._take_up(game, started)
        return self.playing.get(game)

    def _take_up(self, game: str, started: GameStarted) -> int:
        seats = bot_seats(started)
        if not seats:
            return 0
        self.playing[game] = asyncio.create_task(self._play(game, seats, started.limits.bot_seconds))
        BOT_GAMES.set(len(self.playing))
        log.info("bots_seated", game=game, seats=",".join(f"{seat}:{name}" for seat, name in seats.items()))
        return 1

    async def _play(self, game: str, seats: dict[int, str], pace: float) -> None:
        """Play the game's bot seats until it is over. A failed read or send (a server or node gone, a
        leader being elected) is tried again after a pause that doubles up to RETRY_MOST: a game is
        given up only when it is over."""
        rng = random.Random(None if self.seed is None else f"{self.seed}/{game}")
        bots = {seat: make_bot(name, rng) for seat, name in seats.items()}
        pause = RETRY_FIRST
        try:
            while True:
                follower = None
                try:
                    follower = await self.client.follow(game)
                    await play_seats(self.client, follower, bots, rng, pace, patience=None)
                    log.info("bots_done", game=game)
                    return
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # noqa: BLE001 - the store comes back: play on from its log
                    log.warning("bots_retrying", game=game, error=str(error)[:200], after=pause)
                    await asyncio.sleep(pause)
                    pause = min(2 * pause, RETRY_MOST)
                finally:
                    if follower is not None:
                        with contextlib.suppress(Exception):
                            await follower.stop()
        finally:
            self.playing.pop(game, None)
            BOT_GAMES.set(len(self.playing))

    async def _rescan_every(self) -> None:
        while True:
            await asyncio.sleep(self.rescan)
            try:
                await self.resume()
            except Exception as error:  # noqa: BLE001 - the next look tries again
                log.warning("rescan_failed", error=str(error)[:200])
