"""The intake: the one door through which platforms, the gateway and the bots hand the house a command.

A request on zc.in.<tenant>.<game> carries a command's JSON and, to make it safe to send again, an
idempotency key (header Zc-Key). The intake checks what it can without the game's state (size,
nesting and shape by application/reading.py, the reading the table itself does; the game id; the
key; the tenant's rate; by the register of games in play, that a move's game is in play and that a
start's tenant has room for one more game), and either refuses it with a reason
(contracts.intake.Refused), nothing stored, or stores it in its game's partition commands stream
with headers it sets itself and answers the sender with the command's sequence (contracts.intake.Taken)
or the limit that stopped it. Whatever headers a sender puts on its request, none reaches the stream:
the store honours what a publish carries (rollup, msg-id, schedules, expectations). The tenant is the
subject's, which the server let the sender publish on.

The stores of many games made at once share one synced write (services/bus/publish.py,
store_grouped): each request's store is waited for in a task of its own, so no request holds up the
next, and commands keep the order in which they reached an instance; the stream's sequence orders
every game's commands for the table.

It keeps nothing between requests but, for seconds, which games it found in play, so any number of
instances answer in one queue group, found and counted through NATS's Services API
($SRV.PING.zc-intake, $SRV.STATS.zc-intake). It waits for the store only to ask the register (a
game's first move in IN_PLAY_SECONDS, a start) before it hands the command on.
"""
import asyncio
import string
import time

import structlog
from nats.aio.client import Client
from nats.errors import Error as NatsError
from nats.js import JetStreamContext
from nats.js.errors import APIError
from nats.micro import add_service
from nats.micro.request import Request

from zioncheck.application.reading import read_command
from zioncheck.contracts.commands import PLAY, Command, StartGame
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.intake import KEY_HEADER, KEY_MAX, REFUSALS, IntakeReason, Refused, Taken, limit_refusal
from zioncheck.contracts.log import encode
from zioncheck.services.bus import open_games
from zioncheck.services.bus.access import INBOXES
from zioncheck.services.bus.publish import store_grouped
from zioncheck.services.bus.topology import (
    INTAKE_GROUP,
    INTAKE_SUBJECTS,
    Layout,
    StoreLimits,
    commands_stream,
    game_key,
    layout,
    stored_command_subject,
    valid_game_id,
)
from zioncheck.services.observability import INTAKE

_STORED = INTAKE.labels("stored", "")

log = structlog.get_logger("intake")
# A tenant's commands a second at one intake instance, and the burst it may send at once; far above
# what people play (docs/scaling.md: 0.4 a second a game), far below what fills a disk.
TENANT_RATE, TENANT_BURST = 5_000.0, 10_000.0
MAX_TENANTS_COUNTED = 100_000   # and games taken as in play (InPlay)
IN_PLAY_SECONDS = 10.0

_KEY_LETTERS = frozenset(string.ascii_letters + string.digits + string.punctuation)


def refused(reason: IntakeReason, detail: str = "", rejected: Rejected | None = None) -> Refused:
    return Refused(reason=reason, detail=detail or REFUSALS[reason], rejected=rejected)


def check(tenant: str, game: str, data: bytes, key: str | None) -> Refused | Command:
    """Why the intake refuses this command for the tenant's game `game` without storing it, or the
    command: what is checked before any game's state is read (the table decides the rest, R18)."""
    if not (valid_game_id(tenant) and valid_game_id(game)):
        return refused("bad_game", f"{REFUSALS['bad_game']}, not {game[:80]!r}")
    if key is not None and not (0 < len(key) <= KEY_MAX and _KEY_LETTERS.issuperset(key)):
        return refused("bad_key")
    command = read_command(data, PLAY, game)
    if isinstance(command, Rejected):
        return refused("bad_command", command.detail, command)
    return command


def message_id(game: str, key: str) -> str:
    """The stored command's message id: the sender's key scoped to its tenant's game (a game key), under
    a prefix no house service uses (the dealer's are `deal:`, `reshuffle:`, `reveal:`), so a key
    collides with nothing but the same game's same key."""
    return f"in:{game}:{key}"


def tenant_in(subject: str) -> tuple[str, str]:
    """The tenant and game id a request's subject zc.in.<tenant>.<game> names ("" for a token it lacks)."""
    parts = subject.split(".")
    return (parts[2], parts[3]) if len(parts) == 4 else ("", "")


class TenantRates:
    """Each tenant's commands a second, a token bucket a tenant (per intake instance: n instances let a
    tenant send n times as much). A flood is refused here, before anything is stored."""

    def __init__(self, rate: float = TENANT_RATE, burst: float = TENANT_BURST, clock=time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self.buckets: dict[str, tuple[float, float]] = {}   # tenant -> (tokens, when counted)

    def take(self, tenant: str) -> bool:
        now = self.clock()
        tokens, then = self.buckets.get(tenant, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens < 1:
            self.buckets[tenant] = (tokens, now)
            return False
        self.buckets[tenant] = (tokens - 1, now)
        if len(self.buckets) > MAX_TENANTS_COUNTED:   # a bound on what senders can make this hold
            self.buckets.pop(next(iter(self.buckets)))
        return True


class InPlay:
    """Which games are in play, as the register (services/bus/open_games.py) says, and how many a tenant
    has; a start it lets through is marked in play before it is stored. A game found in play is taken
    at its word for IN_PLAY_SECONDS (one get a game that long, a bounded memory): a game over
    meanwhile may have a few more moves stored, which the table refuses (R18 game_over). A game not
    found is asked about again each time: its start may be stored any moment."""

    def __init__(self, js: JetStreamContext, tenant_games: int, clock=time.monotonic):
        self.js, self.tenant_games, self.clock = js, tenant_games, clock
        self.seen: dict[str, float] = {}   # game key -> until when it is taken as in play

    async def refusal(self, tenant: str, game: str, command: Command) -> Refused | None:
        """no_game for a move of a game not in play, too_many_games for a start past the tenant's games."""
        if isinstance(command, StartGame):
            if await open_games.tenant_games(self.js, tenant) >= self.tenant_games:
                return refused("too_many_games", f"{REFUSALS['too_many_games']} ({self.tenant_games:,})")
            # Counted from now: one instance takes its requests one at a time, so it lets no tenant past its
            # games (n instances, at most n - 1 more). A start the table refuses leaves a mark its heal takes away.
            await open_games.mark_open(self.js, game)
            return None
        now = self.clock()
        if self.seen.get(game, 0.0) > now:
            return None
        if not await open_games.in_play(self.js, game):
            return refused("no_game")
        self.seen[game] = now + IN_PLAY_SECONDS
        if len(self.seen) > MAX_TENANTS_COUNTED:
            self.seen.pop(next(iter(self.seen)))
        return None


class IntakeService:
    """Answers zc.in.<tenant>.<game>: stores a command or refuses it (module docstring)."""

    def __init__(self, nc: Client, js: JetStreamContext, rates: TenantRates | None = None,
                 limits: StoreLimits | None = None):
        self.nc, self.js = nc, js
        self.layout: Layout | None = None
        self.service = None
        self.rates = rates or TenantRates()
        self.in_play = InPlay(js, (limits or StoreLimits.configured()).tenant_games)
        self.storing: set[asyncio.Task] = set()   # stores on their way, each answering its sender

    async def start(self) -> None:
        self.layout = await layout(self.js)
        self.service = await add_service(self.nc, name=INTAKE_GROUP, version="1.0.0",
                                         description="Checks and stores the commands platforms, the gateway "
                                                     "and the bots send (zc.in.<game>)")
        await self.service.add_endpoint(name="commands", subject=INTAKE_SUBJECTS, queue_group=INTAKE_GROUP,
                                        handler=self.on_request)

    async def stop(self) -> None:
        if self.service is not None:
            await self.service.stop()
        if self.storing:   # every command taken in is stored, or its sender told why not
            await asyncio.wait(self.storing)

    async def on_request(self, request: Request) -> None:
        """Check the command and hand it to be stored, in arrival order; the store answers the sender.

        The reply subject is the sender's to choose, and whatever is published on it the server lets
        through: so only a reply subject in an inbox (INBOXES, which no stream captures) is ever
        answered, and a request with any other stores nothing and is answered nowhere."""
        reply = request._msg.reply   # nats.micro keeps the message; its reply subject is the sender's to set
        if not reply.startswith(INBOXES):
            INTAKE.labels("refused", "bad_reply").inc()
            log.warning("intake_unanswerable", subject=request.subject[:120], reply=reply[:120])
            return
        tenant, game = tenant_in(request.subject)   # the tenant is the one the server let the sender name
        key = (request.headers or {}).get(KEY_HEADER)
        command = check(tenant, game, request.data, key)
        game = game_key(tenant, game)
        problem = command if isinstance(command, Refused) else None
        if problem is None and not self.rates.take(tenant):
            problem = refused("over_rate", f"{REFUSALS['over_rate']} ({self.rates.rate:g} a second, "
                                           f"{self.rates.burst:g} at once)")
        if problem is None:
            problem = await self._in_play(tenant, game, command)
        if problem is not None:
            await self._answer(request, problem, game)
            return
        task = asyncio.ensure_future(self._store(request, game, key))
        self.storing.add(task)
        task.add_done_callback(self.storing.discard)

    async def _store(self, request: Request, game: str, key: str | None) -> None:
        partition = self.layout.of(game)
        try:
            stored = await store_grouped(self.js, commands_stream(partition), stored_command_subject(
                partition, game, PLAY), request.data, {"Nats-Msg-Id": message_id(game, key)} if key else None)
        except APIError as error:   # the stream refused it: a limit of the stream or the account
            await self._answer(request, limit_refusal(error.description or ""), game)
            return
        except NatsError as error:   # not known to be stored (a timeout): the sender asks again
            await self._answer(request, refused("unavailable", f"{REFUSALS['unavailable']} ({error!r:.80})"), game)
            return
        _STORED.inc()
        try:
            await request.respond(encode(Taken(seq=stored.seq, duplicate=stored.duplicate)))
        except NatsError as error:   # the sender's connection is gone: it asks again with its key
            log.warning("intake_unanswered", game=game[:80], error=str(error)[:200])

    async def _in_play(self, tenant: str, game: str, command: Command) -> Refused | None:
        try:
            return await self.in_play.refusal(tenant, game, command)
        except NatsError as error:   # the register did not answer: nothing stored, the sender asks again
            return refused("unavailable", f"{REFUSALS['unavailable']} ({error!r:.80})")

    async def _answer(self, request: Request, answer: Refused, game: str) -> None:
        INTAKE.labels("refused", answer.reason).inc()
        log.info("intake_refused", game=game[:80], reason=answer.reason, detail=answer.detail[:200])
        try:
            await request.respond(encode(answer))
        except NatsError as error:   # the sender's connection is gone: it asks again with its key
            log.warning("intake_unanswered", game=game[:80], error=str(error)[:200])

