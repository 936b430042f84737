"""The gateway's side of NATS: opening games, a seat's commands and their outcomes, views, logs, replays.

The gateway writes only commands (zc.cmd.<game>); it learns each one's outcome from the
log like any client (services.client.Follower), and reads views from KV zc_views.
It plays the bot seats of the games it opens itself (services.bot_seats).
"""
import asyncio
import random
import uuid
from collections import OrderedDict

import msgspec
import structlog
from nats.js.errors import NotFoundError

from bots import make_bot
from contracts import events as ev
from contracts.commands import SeatCommand, StartGame
from contracts.log import encode, entries_of, write_jsonl
from domain.views import Projection, advance, feed_batch, public_view, redact
from services.bot_seats import play_seats
from services.client import Follower, GameClient
from services.game_log import read_batches
from services.gateway.wire import GameSummary, NewGame, Outcome, ReplayStep
from services.topology import LOG, VIEWS, ensure_topology, game_of, log_subject, valid_game_id

log = structlog.get_logger("gateway")


class GameNotFound(Exception):
    def __init__(self, game: str):
        super().__init__(f"no game {game!r} is stored (GET /games lists them)")


class NoView(Exception):
    """The game exists, but the projector has not written the view asked for (yet)."""


class InPlay(Exception):
    """The game is in play: its log holds the cards of every hand, so it is not served yet."""


class Refused(Exception):
    """The rules refused to open the game (R18)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


class _Seq(msgspec.Struct):
    seq: int = 0
    players: int = 0
    hand: int = 0
    turn: int | None = None
    game_over: bool = False
    totals: list[int] = []
    winners: list[int] = []


class Games:
    def __init__(self, client: GameClient, answer_within: float = 10.0, replays_kept: int = 4):
        self.client, self.js = client, client.js
        self.answer_within = answer_within    # seconds to wait for the table's outcome of a command
        self.followers: dict[str, asyncio.Future[Follower]] = {}
        self.bots: dict[str, asyncio.Task] = {}
        self.replays: OrderedDict[str, tuple[list[Projection], list[list]]] = OrderedDict()
        self.replays_kept = replays_kept

    async def start(self) -> "Games":
        await ensure_topology(self.js)
        self.kv = await self.js.key_value(VIEWS)
        return self

    async def stop(self) -> None:
        for task in list(self.bots.values()):
            task.cancel()
        await asyncio.gather(*self.bots.values(), return_exceptions=True)
        for game in list(self.followers):
            await self._drop(game)

    # --- opening a game, and a seat's commands ---------------------------------------

    async def create(self, new: NewGame) -> str:
        game = f"game-{uuid.uuid4().hex[:12]}"
        follower = await self.client.follow(game)
        seq = await self.client.send(game, StartGame(game_id=game, players=new.players, dealer=new.dealer))
        first = (await follower.outcome(seq, self.answer_within))[0]
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
            await play_seats(self.client, follower, bots, rng, pace)
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
            return Outcome(game_id=game, seq=seq, accepted=False, reason=events[0].reason, detail=events[0].detail)
        log.info("command", game=game, seq=seq, type=kind, outcome="accepted")
        drew = next((e.card for e in events if isinstance(e, ev.StockDrawn) and e.seat == command.seat), None)
        return Outcome(game_id=game, seq=seq, accepted=True, drew=drew,
                       events=[item for item in map(redact, events) if item is not None])

    async def _follower(self, game: str) -> Follower:
        if game not in self.followers:
            await self.require(game)
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

    # --- reading ----------------------------------------------------------------------

    async def require(self, game: str) -> None:
        """GameNotFound unless the game has a log."""
        if not valid_game_id(game):
            raise GameNotFound(game)
        try:
            await self.js.get_msg(LOG, subject=log_subject(game))
        except NotFoundError:
            raise GameNotFound(game) from None

    async def view(self, game: str, key: str) -> bytes:
        """A view's JSON from KV zc_views: GameNotFound, or NoView while the projector has not written it."""
        await self.require(game)
        try:
            return (await self.kv.get(key)).value
        except NotFoundError:  # KeyNotFoundError and KeyDeletedError are NotFoundErrors
            raise NoView("no view of this game yet: is the projector running?") from None

    async def summaries(self) -> list[GameSummary]:
        """Every stored game, the most recently changed first."""
        try:
            info = await self.js.stream_info(LOG, subjects_filter="zc.log.>")
        except NotFoundError:
            return []
        counts = {game_of(subject): count for subject, count in (info.state.subjects or {}).items()}
        found = await asyncio.gather(*(self._summary(game, count) for game, count in counts.items()))
        return sorted(found, key=lambda s: (-(s.updated or 0), s.game_id))

    async def _summary(self, game: str, batches: int) -> GameSummary:
        try:
            msg = await self.js.get_msg(f"KV_{VIEWS}", subject=f"$KV.{VIEWS}.{game}.public")
            seen = msgspec.json.decode(msg.data, type=_Seq)
        except (NotFoundError, msgspec.DecodeError):
            return GameSummary(game_id=game, batches=batches)
        return GameSummary(game_id=game, batches=batches, seq=seen.seq, players=seen.players, hand=seen.hand,
                           turn=seen.turn, game_over=seen.game_over, totals=seen.totals, winners=seen.winners,
                           updated=msg.time.timestamp() if msg.time else None)

    async def finished_log(self, game: str) -> bytes:
        """A finished game's log as JSON lines; InPlay while it is in play."""
        _, batches = await self._replay(game)
        return write_jsonl(entries_of(batches))

    async def replay(self, game: str, step: int | None) -> ReplayStep:
        projections, batches = await self._replay(game)
        steps = len(batches)
        step = steps if step is None else step
        if not 0 <= step <= steps:
            raise ValueError(f"step must be 0..{steps}, not {step}")
        feed = feed_batch(game, step, batches[step - 1].events) if step else None
        return ReplayStep(game_id=game, step=step, steps=steps, view=public_view(projections[step]), feed=feed)

    async def _replay(self, game: str) -> tuple[list[Projection], list]:
        """Every public projection of a finished game, from its log; the last few games are kept."""
        if game in self.replays:
            self.replays.move_to_end(game)
            return self.replays[game]
        await self.require(game)
        batches = [batch for _, batch in await read_batches(self.js, game)]
        projections = [Projection()]
        for batch in batches:
            projections.append(advance(projections[-1], batch.events))
        if not projections[-1].game.game_over:
            raise InPlay("the game is in play, and its log holds the cards of every hand: "
                         "it is served once the game is over (watch it live on its public WebSocket)")
        self.replays[game] = projections, batches
        while len(self.replays) > self.replays_kept:
            self.replays.popitem(last=False)
        return projections, batches


def _done(value) -> asyncio.Future:
    future = asyncio.get_running_loop().create_future()
    future.set_result(value)
    return future
