"""The table service: the single writer of each game's log.

Commands arrive on zc.cmd.<p>.<game>.<origin> through partition p's consumer, which the server
delivers to one table instance at a time (services/bus/consumers.py: PinnedConsumer). For each one the
table folds the game's log (cached), applies every earlier command of the game
it has not applied yet (so delivery order, redelivery after a crash, or a second
instance cannot reorder a game), decides, and appends the events as one batch.
Reading the earlier commands from the stream is skipped while the deliveries
themselves prove nothing was missed (services/bus/game_queues.py). Each command takes its
turn once (application/turns.py), the dealer service answering the reshuffles it needs.

The table alone reads the clock (R19-R21): it asks the server to deliver the game's next
timeout (domain/timers.py `deadline`) no later than it falls due, as a message schedule on
zc.timer.<p>.<game>; the timeout comes back as a command on zc.cmd.<p>.<game>.timer, ordered
with every other. A stale one changes nothing in the game and sets the schedule again for the
deadline its game calls for then (`_schedule` says why this costs a schedule a turn_seconds, not
one a turn).

It does not trust its memory of a pending schedule: every HEAL_SECONDS, and when it starts, it
looks over the store for games with no schedule pending (`heal`). One not over whose log calls
for a deadline lost its schedule (a restart between a batch and its schedule, an operator's
purge): its schedule is set again, so no game waits past its deadline for longer than that.

It keeps the register of games in play (services/bus/open_games.py), by which the intake counts a
tenant's games and stores nothing for a game not in play: a game is marked before the batch that
starts it is appended, and unmarked once a batch ends it; the heal mends what a restart between the
two left undone.
"""
import asyncio
import datetime
import math
import time
from collections import defaultdict

import msgspec
import nats.errors
import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from prometheus_client import Counter

from zioncheck.application.reading import read_command
from zioncheck.application.turns import play_turn_async, stale_timer, told_not_logged
from zioncheck.contracts.commands import TIMER, Reshuffle
from zioncheck.contracts.dealer import ReshuffleRefused, ReshuffleRequest
from zioncheck.contracts.events import AnyEvent, GameStarted, Rejected
from zioncheck.contracts.log import Batch, encode, tag_of
from zioncheck.domain import fold
from zioncheck.domain.refusal import refusal_of
from zioncheck.domain.timers import Deadline, deadline
from zioncheck.services.bus import log_store, open_games, tasks
from zioncheck.services.bus.log_store import (
    LogConflict,
    LoggedGame,
    ended,
    read_stored,
    schedule_pending,
    unscheduled,
)
from zioncheck.services.bus.publish import publish_stored
from zioncheck.services.bus.topology import (
    RESHUFFLE,
    SCHEDULER_HEADER,
    commands_stream,
    layout,
    origin_of,
    rejected_subject,
    schedule_headers,
    schedule_subject,
    stored_command_subject,
    tenant_of,
)
from zioncheck.services.observability import (
    ACTIVE_GAMES,
    APPEND_SECONDS,
    COMMANDS,
    EVENTS_APPENDED,
    LOG_CONFLICTS,
    TIMERS_HEALED,
    TIMERS_SCHEDULED,
)

log = structlog.get_logger("table")


HEAL_SECONDS = 30.0   # how often the table looks for games whose deadline has no schedule pending


class TableService:
    def __init__(self, nc: Client, js: JetStreamContext, dealer_timeout: float = 5.0):
        self.nc, self.js = nc, js
        self.dealer_timeout = dealer_timeout
        self.games: dict[str, LoggedGame] = {}
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.clock = lambda: datetime.datetime.now(datetime.UTC)
        self.over: set[str] = set()   # games seen over: never looked at again by `heal`
        self._orphans: set[str] = set()   # marked in play with no log at the last look (heal_register)
        self._healing: asyncio.Task | None = None

    async def start(self) -> None:
        self._healing = asyncio.ensure_future(self._heal_forever())

    async def stop(self) -> None:
        await tasks.stop([self._healing])

    async def _heal_forever(self) -> None:
        while True:
            try:
                await self.heal()
            except Exception as error:  # noqa: BLE001 - the next look tries again
                log.warning("heal_failed", error=str(error)[:200])
            await asyncio.sleep(HEAL_SECONDS)

    async def heal(self) -> list[str]:
        """Set again the schedule of every game whose log calls for a deadline and that has none
        pending; the games it set one for. A game over is looked at once."""
        healed = []
        stored = set(await log_store.stored_games(self.js))   # one count of the logs for both looks
        for game in await unscheduled(self.js, self.over, stored, "table"):
            async with self.locks[game]:
                logged = await self._log(game)
                due = deadline(logged.state)
                if logged.state.game_over:
                    self.over.add(game)
                    self.games.pop(game, None)
                    continue
                if due is None or await schedule_pending(self.js, logged.partition, game):
                    continue   # waits on the dealer, or a schedule was set meanwhile
                logged.timer_at = None
                await self._schedule_again(logged)
                TIMERS_HEALED.inc()
                log.warning("timer_healed", game=game, due=logged.due_at)
                healed.append(game)
        await self.heal_register(stored)
        return healed

    async def _unmark(self, game: str) -> None:
        """The game is over: out of the register of games in play (or by the next heal)."""
        self.over.add(game)
        try:
            await open_games.mark_over(self.js, game)
        except Exception as error:  # noqa: BLE001 - the heal takes it out
            log.warning("unmark_failed", game=game, error=str(error)[:200])

    async def heal_register(self, logged: set[str]) -> None:
        """Mend the register of games in play (services/bus/open_games.py) against the logs (`logged`,
        every game with one): a game over still marked, a mark with no log at two looks running (a
        start that was never logged), a game in play with no mark."""
        marked = await open_games.marked(self.js)
        for game in sorted((marked & self.over) | (marked - logged) & self._orphans):
            await open_games.mark_over(self.js, game)
            log.warning("register_healed", game=game, marked=False)
        self._orphans = marked - logged
        where = await layout(self.js)
        for game in sorted(logged - marked - self.over):
            is_over = await ended(self.js, where.of(game), game, "table")
            if is_over:
                self.over.add(game)
            elif is_over is not None:
                await open_games.mark_open(self.js, game)
                log.warning("register_healed", game=game, marked=True)

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
                        self.games[game].due_at = self.games[game].timer_at = None   # its deadline, unknown here
                        known = self.games[game]
                        await log_store.catch_up(self.js, known, await log_store.last_seq(self.js, known.stream,
                                                                                          known.subject), "table")
                except BaseException:
                    if game in self.games:
                        self.games[game].in_order_since = None  # the next command checks the stream again
                    raise
            raise LogConflict(f"game {game}: gave up on command {seq} after repeated conflicts")

    async def _catch_up(self, game: str, seq: int, delivered: Msg | None, epoch: int) -> None:
        """Read the game's commands from the stream itself, in stream order, up to `seq`;
        or, when this epoch's deliveries already proved the game in order, take the delivered one."""
        logged = await self._log(game)
        if delivered is not None and epoch and logged.in_order_since == epoch and logged.applied < seq:
            await self._apply(logged, seq, delivered.data, origin_of(delivered.subject), delivered.headers)
            return
        # Deliveries broke their chain (another instance may have worked the game meanwhile and set its
        # schedule): this instance's note of the schedule pending is not to be trusted.
        logged.timer_at = None
        if logged.applied < seq:
            # Batched direct gets: any replica holds a prefix of the stream, so what it returns is truly
            # the game's next commands, read at least up to `seq` (log_store: read your writes).
            commands, _ = await read_stored(self.js, commands_stream(logged.partition),
                                            stored_command_subject(logged.partition, game), after=logged.applied,
                                            whole=True, at_least=seq)
            for command in commands:
                if command.seq > seq:
                    break
                await self._apply(logged, command.seq, command.data or b"", origin_of(command.subject),
                                  command.headers)
        if delivered is not None:
            logged.in_order_since = epoch

    async def _log(self, game: str) -> LoggedGame:
        if game not in self.games:
            self.games[game] = await log_store.load(self.js, game, "table")
        return self.games[game]

    async def _apply(self, logged: LoggedGame, seq: int, data: bytes, origin: str,
                     headers: dict[str, str] | None = None) -> None:
        events = await self._decide(logged, data, origin, headers)
        if told_not_logged(logged.state, events, logged.refusals):   # said on zc.rejected alone
            await self.nc.publish(rejected_subject(logged.game), encode(events[0]), headers={"Zc-Cause": str(seq)})
            logged.applied = seq
            _count(logged.game, seq, events)
            return
        if origin == TIMER:
            logged.timer_at = None   # the schedule fired: none is pending now
        if stale_timer(events):  # a timer come after its turn changes nothing; the log need not say so
            logged.applied = seq
            _count(logged.game, seq, events)
            await self._schedule_again(logged)
            return
        after = fold(logged.state, events)
        if after.started and not logged.state.started:   # in play from now: marked so before its log says so
            await open_games.mark_open(self.js, logged.game)
        due = deadline(after)
        started = time.perf_counter()
        schedule, begun = None, None
        if due != deadline(logged.state):   # the batch changes the deadline its game calls for
            logged.due_at = begun = None if due is None else self.clock().timestamp() + due.seconds
            if due is not None and (logged.timer_at is None or logged.timer_at > logged.due_at):
                schedule = self._schedule(logged, due, logged.due_at)
        appended = log_store.append(self.js, logged, Batch(cause=seq, events=events), after, begun)
        if schedule is None:
            await appended
        else:  # the schedule is sent first, on the same connection; both are waited for together
            await asyncio.gather(schedule, appended)
        APPEND_SECONDS.observe(time.perf_counter() - started)
        EVENTS_APPENDED.inc(len(events))
        _count(logged.game, seq, events)
        if isinstance(events[0], GameStarted) or logged.state.game_over:
            if logged.state.game_over:
                self.games.pop(logged.game, None)
                await self._unmark(logged.game)
            ACTIVE_GAMES.set(sum(1 for g in self.games.values() if g.state.started and not g.state.game_over))

    async def _schedule(self, logged: LoggedGame, due: Deadline, at: float) -> None:
        """Ask the server to deliver the game's next timeout at `at` (seconds since the epoch).

        Sent when a batch makes the deadline its game calls for earlier than the schedule pending,
        or when none is known to be pending; sent just before that batch's append, on the same
        connection, so a table that dies once the batch is out has sent its schedule too. A deadline
        that moves later keeps the schedule it had: that one comes early, is stale, and sets the
        schedule again for the deadline then called for (`_schedule_again`). So a game whose turns
        take less than `turn_seconds` costs a schedule a `turn_seconds`, not one a turn; and at any
        time a schedule is pending that comes no later than the game's deadline.
        """
        payload = encode(due.command)
        at = max(at, self.clock().timestamp() + 1.0)   # a deadline passed already is due now, not in the past
        when = datetime.datetime.fromtimestamp(math.ceil(at), datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        game, partition = logged.game, logged.partition
        try:
            await publish_stored(self.js, schedule_subject(partition, game), payload,
                                 headers=schedule_headers(partition, game, when))
        except Exception as error:  # noqa: BLE001 - the game goes on; its seats just have no deadline yet
            log.warning("timer_not_scheduled", game=game, error=str(error)[:200])
            return
        logged.timer_at = at
        TIMERS_SCHEDULED.inc()
        log.info("timer_scheduled", game=game, at=when, command=tag_of(due.command))

    async def _schedule_again(self, logged: LoggedGame) -> None:
        """A stale timeout came: the schedule for the deadline the game calls for now. Its time was
        noted when the batch that began it was appended; a table that did not append it (another
        instance, or before a restart) counts from the stored time of the game's last batch."""
        due = deadline(logged.state)
        if due is None or logged.timer_at is not None:
            return
        if logged.due_at is None:
            try:
                last = await self.js.get_msg(logged.stream, subject=logged.subject)
                began = last.time.timestamp() if last.time else self.clock().timestamp()
            except Exception:  # noqa: BLE001 - counted from now: later, never earlier
                began = self.clock().timestamp()
            logged.due_at = began + due.seconds
        await self._schedule(logged, due, logged.due_at)

    async def _decide(self, logged: LoggedGame, data: bytes, origin: str,
                      headers: dict[str, str] | None = None) -> list[AnyEvent]:
        forged = provenance(logged.game, logged.partition, origin, headers)
        if forged:
            return [Rejected(seat=None, command=origin, reason="bad_command", detail=forged)]
        command = read_command(data, origin, tenant_of(logged.game)[1])   # a start names its own game id
        if isinstance(command, Rejected):
            return [command]
        # The house names a game by its key (a tenant's game id is its own), and the dealer reads the log
        # at least as far as this table folded it (services/bus/log_store.py: read your writes).
        return await play_turn_async(logged.state, command, lambda request: self._ask_dealer(
            msgspec.structs.replace(request, game_id=logged.game, log_seq=logged.last_seq)))

    async def _ask_dealer(self, request: ReshuffleRequest) -> Reshuffle:
        """R16: the dealer service's order for the reshuffle a draw waits for. The order is the seed's, whoever
        answers, so a try a dealer did not answer (killed as it read it, say) is made again after DEALER_TRY
        seconds, to whichever dealer is there, until `dealer_timeout` has passed."""
        deadline_at = time.monotonic() + self.dealer_timeout
        while True:
            left = deadline_at - time.monotonic()
            try:
                reply = await self.nc.request(RESHUFFLE, encode(request), timeout=max(min(DEALER_TRY, left), 0.01))
                break
            except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
                if time.monotonic() + 0.05 >= deadline_at:
                    raise
                await asyncio.sleep(0.05)
        answer = msgspec.json.decode(reply.data, type=Reshuffle | ReshuffleRefused)
        if isinstance(answer, ReshuffleRefused):
            raise DealerRefused(f"game {request.game_id}: the dealer refused reshuffle {request.reshuffle}: "
                                f"{answer.reason}")
        return answer


def provenance(game: str, partition: int, origin: str, headers: dict[str, str] | None) -> str:
    """Why a message may not be the command its subject says, or "".

    A timeout must come from the game's own schedule: the server marks what a schedule delivers
    with Nats-Scheduler (the schedule's subject), which no client may set, and only the table may
    publish on zc.timer.<p>.<game>. A client's own schedule on zc.cmd.<game>.play (the commands stream
    allows schedules) could deliver on any command subject, the dealer's too: what it delivers
    names that subject as its scheduler, and is refused here; so is the schedule message itself.
    """
    headers = headers or {}
    scheduler = headers.get(SCHEDULER_HEADER)
    if origin == TIMER:
        own = scheduler == schedule_subject(partition, game)
        return "" if own else "a timeout the game's own timer did not deliver"
    if scheduler is not None:
        return f"delivered by a schedule on {scheduler[:80]!r}, not sent by a seat or the dealer"
    if any(name.startswith("Nats-Schedule") for name in headers):
        return "a message schedule is not a command"
    return ""


# One try of a reshuffle's request to the dealer: a dealer answers in milliseconds.
DEALER_TRY = 0.5


class DealerRefused(LogConflict):
    """The dealer, reading the log, sees another state of the game than this table's copy: another
    writer moved the log on. Like any conflict: fold what it appended, then decide again."""


_ACCEPTED = COMMANDS.labels("accepted", "")
_REJECTED: dict[str, Counter] = {}   # the counter's child for each reason, looked up once


def _count(game: str, seq: int, events: list[AnyEvent]) -> None:
    """One log line and one metric per command: game, seq, what happened."""
    if rejected := refusal_of(events):
        counted = _REJECTED.get(rejected.reason)
        if counted is None:
            counted = _REJECTED[rejected.reason] = COMMANDS.labels("rejected", rejected.reason)
        counted.inc()
        log.info("command", game=game, seq=seq, command=rejected.command, outcome="rejected",
                 reason=rejected.reason, detail=rejected.detail)
    else:
        _ACCEPTED.inc()
        log.info("command", game=game, seq=seq, outcome="accepted", first_event=tag_of(events[0]))

