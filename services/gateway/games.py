"""The gateway's writing side: opening games, playing their bot seats, a seat's commands and their outcomes.

The gateway writes only commands (zc.cmd.<game>); it learns each one's outcome from the
log like any client (services.client.Follower). It plays the bot seats of the games it
opens itself (services.bot_seats).
"""
import asyncio
import random
import uuid

import structlog
from prometheus_client import Counter

from bots import make_bot
from contracts import events as ev
from contracts.commands import SeatCommand, StartGame
from contracts.log import encode
from domain.views import redact
from services.bot_seats import play_seats
from services.client import Follower, GameClient
from services.gateway.reads import Reads
from services.gateway.wire import NewGame, Outcome

log = structlog.get_logger("gateway")
COMMANDS = Counter("zc_gateway_commands_total", "Seat commands the gateway sent and heard the outcome of, "
                   "by outcome and R18 reason", ["outcome", "reason"])


class Refused(Exception):
    """The rules refused to open the game (R18)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


class Games:
    def __init__(self, client: GameClient, reads: Reads, answer_within: float = 10.0):
        self.client, self.reads = client, reads
        self.answer_within = answer_within    # seconds to wait for the table's outcome of a command
        self.followers: dict[str, asyncio.Future[Follower]] = {}
        self.bots: dict[str, asyncio.Task] = {}

    async def stop(self) -> None:
        for task in list(self.bots.values()):
            task.cancel()
        await asyncio.gather(*self.bots.values(), return_exceptions=True)
        for game in list(self.followers):
            await self._drop(game)

    async def create(self, new: NewGame) -> str:
        game = f"game-{uuid.uuid4().hex[:12]}"
        follower = await self.client.follow(game)
        try:
            seq = await self.client.send(game, StartGame(game_id=game, players=new.players, dealer=new.dealer))
            first = (await follower.outcome(seq, self.answer_within))[0]
        except BaseException:
            await follower.stop()
            raise
        if isinstance(first, ev.Rejected):
            await follower.stop()
            raise Refused(first.reason, first.detail)
        self.followers[game] = _done(follower)
        rng = random.Random()
        bots = {seat: make_bot(name, rng) for seat, name in enumerate(new.seats) if name != "person"}
        if bots:
            self.bots[game] = asyncio.create_task(self._play(follower, bots, rng, new.pace))
        log.info("game_opened", game=game, seats=",".join(new.seats), pace=new.pace)
        return game

    async def _play(self, follower: Follower, bots: dict, rng: random.Random, pace: float) -> None:
        try:
            await play_seats(self.client, follower, bots, rng, pace, patience=None)
        except Exception as error:  # noqa: BLE001 - one game's bots must not take the gateway down
            log.error("bots_stopped", game=follower.game, error=repr(error))
        finally:
            self.bots.pop(follower.game, None)
            if follower.state.game_over:
                await self._drop(follower.game)

    async def command(self, game: str, command: SeatCommand) -> Outcome:
        """Send a seat's command and wait for its outcome; TimeoutError if the table does not answer."""
        follower = await self._follower(game)
        seq = await self.client.send(game, encode(command))
        events = await follower.outcome(seq, self.answer_within)
        if follower.state.game_over and game not in self.bots:
            await self._drop(game)
        kind = type(command).__struct_config__.tag
        if len(events) == 1 and isinstance(events[0], ev.Rejected):
            log.info("command", game=game, seq=seq, type=kind, outcome="rejected", reason=events[0].reason)
            COMMANDS.labels("rejected", events[0].reason).inc()
            return Outcome(game_id=game, seq=seq, accepted=False, reason=events[0].reason, detail=events[0].detail)
        log.info("command", game=game, seq=seq, type=kind, outcome="accepted")
        COMMANDS.labels("accepted", "").inc()
        drew = next((e.card for e in events if isinstance(e, ev.StockDrawn) and e.seat == command.seat), None)
        return Outcome(game_id=game, seq=seq, accepted=True, drew=drew,
                       events=[item for item in map(redact, events) if item is not None])

    async def _follower(self, game: str) -> Follower:
        if game not in self.followers:
            await self.reads.require(game)
            self.followers[game] = asyncio.ensure_future(self.client.follow(game))
        try:
            return await self.followers[game]
        except Exception:
            self.followers.pop(game, None)
            raise

    async def _drop(self, game: str) -> None:
        pending = self.followers.pop(game, None)
        if pending is not None and pending.done() and not pending.exception():
            await pending.result().stop()

def _done(value) -> asyncio.Future:
    future = asyncio.get_running_loop().create_future()
    future.set_result(value)
    return future
