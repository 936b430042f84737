"""The table service: the single writer of each game's log.

Commands arrive on zc.cmd.<game> through a durable consumer. For each one the
table folds the game's log (cached), applies every earlier command of the game
it has not applied yet (so delivery order, redelivery after a crash, or a second
instance cannot reorder a game), decides, and appends the events as one batch.
Reading the earlier commands from the stream is skipped while the deliveries
themselves prove nothing was missed (services.game_queues).
"""
import asyncio
import time
from collections import defaultdict

import msgspec
import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from contracts.commands import Reshuffle
from contracts.dealer import ReshuffleRefused, ReshuffleRequest
from contracts.events import GameStarted, Rejected
from contracts.log import Batch, encode
from domain import decide, fold
from engine.intake import read_command, stock_empty
from services import game_log
from services.game_log import GameLog, LogConflict
from services.observability import ACTIVE_GAMES, APPEND_SECONDS, COMMANDS, EVENTS_APPENDED, LOG_CONFLICTS
from services.topology import COMMANDS as COMMAND_STREAM
from services.topology import RESHUFFLE, command_subject, origin_of, rejected_subject

log = structlog.get_logger("table")


class TableService:
    def __init__(self, nc: Client, js: JetStreamContext, dealer_timeout: float = 5.0):
        self.nc, self.js = nc, js
        self.dealer_timeout = dealer_timeout
        self.games: dict[str, GameLog] = {}
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def handle(self, game: str, seq: int, delivered: Msg | None = None, epoch: int = 0) -> None:
        """Apply command `seq` of `game` and every earlier one not yet applied.

        `delivered` is the command's message as the consumer delivered it in `epoch`.
        """
        async with self.locks[game]:
            for _ in range(5):
                try:
                    await self._catch_up(game, seq, delivered, epoch)
                    return
                except LogConflict as conflict:
                    LOG_CONFLICTS.inc()
                    log.warning("log_conflict", game=game, seq=seq, detail=str(conflict))
                    if game in self.games:  # fold what the other writer appended, then decide again
                        self.games[game].in_order_since = None
                        await game_log.catch_up(self.js, self.games[game])
                except BaseException:
                    if game in self.games:
                        self.games[game].in_order_since = None  # the next command checks the stream again
                    raise
            raise LogConflict(f"game {game}: gave up on command {seq} after repeated conflicts")

    async def _catch_up(self, game: str, seq: int, delivered: Msg | None, epoch: int) -> None:
        """Read the game's commands from the stream itself, in stream order, up to `seq`;
        or, when this epoch's deliveries already proved the game in order, take the delivered one."""
        state = await self._log(game)
        if delivered is not None and epoch and state.in_order_since == epoch and state.applied < seq:
            await self._apply(state, seq, delivered.data, origin_of(delivered.subject))
            return
        while state.applied < seq:
            # A direct get: the raw message, no JSON envelope; any replica holds a prefix of the
            # stream, so what it returns is truly the next command (or nothing yet: retried).
            command = await self.js.get_msg(COMMAND_STREAM, seq=state.applied + 1,
                                            subject=command_subject(game, "*"), next=True, direct=True)
            await self._apply(state, command.seq, command.data or b"", origin_of(command.subject))
        if delivered is not None:
            state.in_order_since = epoch

    async def _log(self, game: str) -> GameLog:
        if game not in self.games:
            self.games[game] = await game_log.load(self.js, game)
        return self.games[game]

    async def _apply(self, state: GameLog, seq: int, data: bytes, origin: str) -> None:
        events = await self._decide(state, data, origin)
        if not state.state.started and not isinstance(events[0], GameStarted):
            # Nothing is logged for a game that does not exist; the refusal still reaches the sender.
            await self.nc.publish(rejected_subject(state.game), encode(events[0]), headers={"Zc-Cause": str(seq)})
            state.applied = seq
            _count(state.game, seq, events[0])
            return
        started = time.perf_counter()
        await game_log.append(self.js, state, Batch(cause=seq, events=events))
        APPEND_SECONDS.observe(time.perf_counter() - started)
        EVENTS_APPENDED.inc(len(events))
        _count(state.game, seq, events[0])
        if isinstance(events[0], GameStarted) or state.state.game_over:
            if state.state.game_over:
                self.games.pop(state.game, None)
            ACTIVE_GAMES.set(sum(1 for g in self.games.values() if g.state.started and not g.state.game_over))

    async def _decide(self, state: GameLog, data: bytes, origin: str) -> list:
        command = read_command(data, origin, state.game)
        if isinstance(command, Rejected):
            return [command]
        events = decide(state.state, command)
        if stock_empty(events):
            reshuffled = decide(state.state, await self._ask_dealer(state))
            return reshuffled + decide(fold(state.state, reshuffled), command)
        return events

    async def _ask_dealer(self, state: GameLog) -> Reshuffle:
        s = state.state
        request = ReshuffleRequest(game_id=state.game, hand=s.hand, reshuffle=s.reshuffles + 1,
                                   count=len(s.discard) - 1)
        reply = await self.nc.request(RESHUFFLE, encode(request), timeout=self.dealer_timeout)
        answer = msgspec.json.decode(reply.data, type=Reshuffle | ReshuffleRefused)
        if isinstance(answer, ReshuffleRefused):
            raise DealerRefused(f"game {state.game}: the dealer refused reshuffle {request.reshuffle}: {answer.reason}")
        return answer


class DealerRefused(LogConflict):
    """The dealer, reading the log, sees another state of the game than this table's copy: another
    writer moved the log on. Like any conflict: fold what it appended, then decide again."""


def _count(game: str, seq: int, first) -> None:
    """One log line and one metric per command: game, seq, what happened."""
    if isinstance(first, Rejected):
        COMMANDS.labels("rejected", first.reason).inc()
        log.info("command", game=game, seq=seq, command=first.command, outcome="rejected",
                 reason=first.reason, detail=first.detail)
    else:
        COMMANDS.labels("accepted", "").inc()
        log.info("command", game=game, seq=seq, outcome="accepted", first_event=type(first).__struct_config__.tag)

