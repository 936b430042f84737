"""The intake: the one door through which platforms, the gateway and the bots hand the house a command.

A request on zc.in.<tenant>.<game> carries a command's JSON and, to make it safe to send again, an
idempotency key (header Zc-Key). The intake checks what it can without the game's state (size,
nesting and shape by application/reading.py, the reading the table itself does, strict: a field no
command of its type declares is refused here, never by the table, which reads stored commands as it
always did; the game id; the key; the tenant's commands and bytes a second; that the game's commands
stream has room; that the tenant's games hold no more than its share of the feed and the views, which
every tenant shares; by the register of games in play, that a move's game is in play and that a
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
from collections.abc import Awaitable

import structlog
from nats.aio.client import Client
from nats.errors import Error as NatsError
from nats.js import JetStreamContext
from nats.js.errors import APIError
from nats.micro import add_service
from nats.micro.request import Request

from zioncheck.application.reading import read_command
from zioncheck.contracts.commands import MAX_COMMAND_BYTES, PLAY, Command, StartGame
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.intake import KEY_HEADER, KEY_MAX, REFUSALS, IntakeReason, Refused, Taken, limit_refusal
from zioncheck.contracts.log import encode
from zioncheck.services.bus import holdings, open_games
from zioncheck.services.bus.access import INBOXES, SERVICE_REPLIES
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
# A tenant's bytes of commands a second at one intake instance, and its burst (docs/scaling.md, Limits): a
# command is 36-40 bytes on average (a deal's 1 KB is the dealer's, not a tenant's), so 256 KiB/s carries
# 16,000 games at 0.4 commands a second, more than a tenant may have in play, and the command rate's 5,000
# a second at 52 bytes each; a flood of 16 KiB commands gets 16 a second, 76 times slower than the 19.5 MB/s
# the commands rate alone let through. The burst holds 64 commands of the most a command may be.
TENANT_BYTES, TENANT_BYTES_BURST = 256 * 1024.0, 1024 * 1024.0
MAX_TENANTS_COUNTED = 100_000   # and games taken as in play (InPlay)
IN_PLAY_SECONDS = 10.0
SHARE_SECONDS = 2.0     # how long what a tenant holds, as counted, is taken at its word (TenantShares)
STARTS_WITHIN = 0.75    # of a tenant's share of the feed: past it a start is refused, a move not yet
ROOM_SECONDS = 1.0      # how long a commands stream's fill, as asked, is taken at its word (CommandsRoom)

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
    command = read_command(data, PLAY, game, strict=True)   # a field no command declares is refused here alone
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
    """Each tenant's commands a second and bytes a second, two token buckets a tenant (per intake instance:
    n instances let a tenant send n times as much). A flood is refused here, before anything is stored."""

    def __init__(self, rate: float = TENANT_RATE, burst: float = TENANT_BURST, byte_rate: float = TENANT_BYTES,
                 byte_burst: float = TENANT_BYTES_BURST, clock=time.monotonic):
        if byte_burst < MAX_COMMAND_BYTES:
            raise ValueError(f"a burst of {byte_burst:g} bytes would refuse a command of {MAX_COMMAND_BYTES} for ever")
        self.rate, self.burst, self.byte_rate, self.byte_burst, self.clock = rate, burst, byte_rate, byte_burst, clock
        self.buckets: dict[str, tuple[float, float, float]] = {}   # tenant -> (commands, bytes, when counted)

    def take(self, tenant: str, size: int = 0) -> float:
        """Count a command of `size` bytes of the tenant's, and 0.0; or, when either bucket lacks room for
        it, count nothing and say in how many seconds it would have room."""
        now = self.clock()
        commands, data, then = self.buckets.get(tenant, (self.burst, self.byte_burst, now))
        commands = min(self.burst, commands + (now - then) * self.rate)
        data = min(self.byte_burst, data + (now - then) * self.byte_rate)
        wait = max((1 - commands) / self.rate, (size - data) / self.byte_rate)
        if wait > 0:
            self.buckets[tenant] = (commands, data, now)
            return wait
        self.buckets[tenant] = (commands - 1, data - size, now)
        if len(self.buckets) > MAX_TENANTS_COUNTED:   # a bound on what senders can make this hold
            self.buckets.pop(next(iter(self.buckets)))
        return 0.0

    def refusal(self, wait: float) -> Refused:
        """over_rate, with the tenant's rates and how long to wait before sending again."""
        return refused("over_rate", f"{REFUSALS['over_rate']} ({self.rate:g} commands and {self.byte_rate:,.0f} "
                                    f"bytes a second, {self.burst:g} and {self.byte_burst:,.0f} at once): "
                                    f"send again in {max(wait, 0.001):.3f} s")


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


class TenantShares:
    """What each tenant's games hold of the feed and the views bucket, which every tenant shares, against
    its share of them (StoreLimits.tenant_share): counted by the server (services/bus/holdings.py), taken
    at its word for SHARE_SECONDS and counted on meanwhile by what this instance lets through. A tenant's
    games are those in play and those over until the archiver removes them, once their retention has run.

    A start is refused (too_many_games) when its views would take the tenant past its share of the views,
    or when its games hold STARTS_WITHIN of its share of the feed, so that those in play have the rest to
    go on in; a move (store_full) only once they hold the whole of it. Each command makes at most one feed
    batch, so between counts a tenant overshoots by its commands of SHARE_SECONDS at most."""

    def __init__(self, js: JetStreamContext, limits: StoreLimits, clock=time.monotonic):
        self.js, self.clock = js, clock
        self.feed_most, self.views_most = limits.tenant_feed_batches(), limits.tenant_view_keys()
        self.feed: dict[str, tuple[int, float]] = {}    # tenant -> (feed batches held, counted until when)
        self.views: dict[str, tuple[int, float]] = {}   # tenant -> (views held, counted until when)

    async def refusal(self, tenant: str, command: Command) -> Refused | None:
        feed, until = await self._held(self.feed, tenant, holdings.feed_batches)
        if isinstance(command, StartGame):
            views, counted = await self._held(self.views, tenant, holdings.views)
            needs = 1 + 2 * command.players   # its public view, and at most two a seat (a bot seat's own)
            if views + needs > self.views_most:
                return refused("too_many_games", f"{REFUSALS['too_many_games']}: its games hold {views:,} views, "
                                                 f"and a game of {command.players} seats takes up to {needs} more, "
                                                 f"past its share of the views bucket ({self.views_most:,})")
            if feed >= self.feed_most * STARTS_WITHIN:
                return refused("too_many_games", f"{REFUSALS['too_many_games']}: its games hold {feed:,} feed "
                                                 f"batches, {STARTS_WITHIN:.0%} of its share of the feed "
                                                 f"({self.feed_most:,}), the rest kept for its games in play")
            self.views[tenant] = (views + needs, counted)
            return None
        if feed >= self.feed_most:
            return refused("store_full", f"{REFUSALS['store_full']}: the tenant's games hold its share of the feed "
                                         f"({self.feed_most:,} batches) until the archiver removes finished ones")
        self.feed[tenant] = (feed + 1, until)
        return None

    async def _held(self, counts: dict[str, tuple[int, float]], tenant: str, count) -> tuple[int, float]:
        now = self.clock()
        held = counts.get(tenant)
        if held is None or held[1] <= now:
            held = counts[tenant] = (await count(self.js, tenant), now + SHARE_SECONDS)
            if len(counts) > MAX_TENANTS_COUNTED:
                counts.pop(next(iter(counts)))
        return held


class CommandsRoom:
    """Whether a partition's commands stream has room for a sender's command. The stream discards old, as
    message schedules require, so at its byte limit its oldest commands would go, a finished game's record
    among them before it is archived: the intake refuses (store_full) once it holds COMMANDS_HIGH_WATER of
    its limit, and the rest is room for the dealer's and the timers' commands. Asked of the server at most
    every ROOM_SECONDS a partition (one stream info)."""

    def __init__(self, js: JetStreamContext, clock=time.monotonic):
        self.js, self.clock = js, clock
        self.known: dict[int, tuple[int, int, float]] = {}   # partition -> (bytes held, byte limit, until when)

    async def refusal(self, partition: int) -> Refused | None:
        now = self.clock()
        held, most, until = self.known.get(partition, (0, 0, 0.0))
        if until <= now:
            info = await self.js.stream_info(commands_stream(partition))
            held, most = info.state.bytes, max(info.config.max_bytes or 0, 0)
            self.known[partition] = (held, most, now + ROOM_SECONDS)
        if most and held >= most * StoreLimits.COMMANDS_HIGH_WATER:
            return refused("store_full", f"{REFUSALS['store_full']} ({commands_stream(partition)} holds {held:,} "
                                         f"bytes of its {most:,})")
        return None


class IntakeService:
    """Answers zc.in.<tenant>.<game>: stores a command or refuses it (module docstring)."""

    def __init__(self, nc: Client, js: JetStreamContext, rates: TenantRates | None = None,
                 limits: StoreLimits | None = None):
        self.nc, self.js = nc, js
        self.layout: Layout | None = None
        self.service = None
        self.rates = rates or TenantRates()
        limits = limits or StoreLimits.configured()
        self.in_play = InPlay(js, limits.tenant_games_in_play())
        self.shares = TenantShares(js, limits)
        self.room = CommandsRoom(js)
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
        through: so only a reply subject in an inbox (INBOXES, which no stream captures) or the one the
        server made for a tenant's request (SERVICE_REPLIES: it carries the answer back into the tenant's own
        account) is ever answered, and a request with any other stores nothing and is answered nowhere."""
        reply = request._msg.reply   # nats.micro keeps the message; its reply subject is the sender's to set
        if not reply.startswith((INBOXES, SERVICE_REPLIES)):
            INTAKE.labels("refused", "bad_reply").inc()
            log.warning("intake_unanswerable", subject=request.subject[:120], reply=reply[:120])
            return
        tenant, game = tenant_in(request.subject)   # the tenant is the one the server let the sender name
        key = (request.headers or {}).get(KEY_HEADER)
        command = check(tenant, game, request.data, key)
        game = game_key(tenant, game)
        problem = command if isinstance(command, Refused) else None
        if problem is None and (wait := self.rates.take(tenant, len(request.data))):
            problem = self.rates.refusal(wait)
        if problem is None:
            problem = await self._asked(self.room.refusal(self.layout.of(game)))
        if problem is None:
            problem = await self._asked(self.shares.refusal(tenant, command))
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
        return await self._asked(self.in_play.refusal(tenant, game, command))

    @staticmethod
    async def _asked(asking: Awaitable[Refused | None]) -> Refused | None:
        """The refusal of a check that asks the server; unavailable when it did not answer: nothing stored,
        the sender asks again."""
        try:
            return await asking
        except NatsError as error:
            return refused("unavailable", f"{REFUSALS['unavailable']} ({error!r:.80})")

    async def _answer(self, request: Request, answer: Refused, game: str) -> None:
        INTAKE.labels("refused", answer.reason).inc()
        log.info("intake_refused", game=game[:80], reason=answer.reason, detail=answer.detail[:200])
        try:
            await request.respond(encode(answer))
        except NatsError as error:   # the sender's connection is gone: it asks again with its key
            log.warning("intake_unanswered", game=game[:80], error=str(error)[:200])

