"""Every service declared once: its name, how it is built, what it takes in, and its metrics.

`zioncheck serve`, `zioncheck run`, the AsyncAPI document (cli/asyncapi.py) and the
tests read SERVICES; adding a service is adding one ServiceSpec here. Each service gets
its own FastStream broker (its own connection, logged in as its own role), so they can
run together in one process or one per process. The log's readers are FastStream pull
subscribers; the table's commands, one message per move of every game, come through a
DirectConsumer on the broker's connection (services/bus/consumers.py says why).
Handlers decode, call the service, and settle; retries, sequences and headers live in
the log store, not here.
"""
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import msgspec
import structlog
from faststream.nats import NatsBroker
from faststream.security import SASLPlaintext
from nats.aio.client import Client
from nats.js import JetStreamContext
from prometheus_client import Counter, Gauge, Histogram

from zioncheck.contracts.dealer import ReshuffleRefused, ReshuffleRequest
from zioncheck.contracts.log import decode_batch, encode
from zioncheck.services import observability as metrics
from zioncheck.services.bots.service import BOT_GAMES, BotsService
from zioncheck.services.bus.access import Access, connect
from zioncheck.services.bus.consumers import DirectConsumer, raw_message, settle, settled, subscriber
from zioncheck.services.bus.game_queues import GameQueues
from zioncheck.services.bus.topology import (
    COMMAND_SUBJECTS,
    COMMANDS,
    HAND_BOUNDARIES,
    LOG,
    LOG_SUBJECTS,
    RESHUFFLE,
    ensure_topology,
    game_of,
    missing_topology,
)
from zioncheck.services.dealer.service import DealerService
from zioncheck.services.projector.service import ProjectorService
from zioncheck.services.scoring.service import ScoringService
from zioncheck.services.table.service import TableService

log = structlog.get_logger("services")


@dataclass(frozen=True)
class Takes:
    """One thing a service takes in. `log`: batches of the game log (a durable pull consumer shared
    by every instance); `commands`: the commands stream (the table's deliver group); `requests`:
    core NATS requests answered by one instance of a queue group."""
    kind: Literal["log", "commands", "requests"]
    subject: str
    group: str            # the durable consumer or queue group every instance shares
    stream: str | None = None
    workers: int = 1


@dataclass(frozen=True)
class ServiceSpec:
    name: str             # also its login's role (services/bus/access.py)
    does: str             # one line for people
    build: Callable[[Client, JetStreamContext], object]
    takes: tuple[Takes, ...]
    metrics: tuple[Counter | Gauge | Histogram, ...]


SPECS = (
    ServiceSpec("table", "the single writer of every game's log: decides each command in stream order",
                lambda nc, js: TableService(nc, js),
                (Takes("commands", COMMAND_SUBJECTS, "zc-tables", COMMANDS),),
                (metrics.COMMANDS, metrics.APPEND_SECONDS, metrics.EVENTS_APPENDED, metrics.ACTIVE_GAMES,
                 metrics.LOG_CONFLICTS, metrics.DROPPED, metrics.TIMERS_SCHEDULED)),
    ServiceSpec("dealer", "deals each hand from a secret seed, reveals it after the hand, answers reshuffles",
                lambda nc, js: DealerService(js),
                (Takes("log", HAND_BOUNDARIES, "zc-dealer", LOG), Takes("requests", RESHUFFLE, "zc-dealer")),
                (metrics.DEALS, metrics.RESHUFFLES, metrics.SEEDS_REVEALED, metrics.REFUSED_ASKS)),
    ServiceSpec("scoring", "folds hand ends into per-hand scores and standings",
                lambda nc, js: ScoringService(js),
                (Takes("log", HAND_BOUNDARIES, "zc-scoring", LOG),),
                (metrics.HANDS_SCORED,)),
    # Several workers: the projector orders each game's batches itself (a lock and a catch-up per game),
    # and batches folded while a write of the views waits share it. The workers bound how far it runs
    # ahead: the fewer its writes, the more of the disk the game services get.
    ServiceSpec("projector", "folds the log into public and seat views and the redacted feed",
                lambda nc, js: ProjectorService(js),
                (Takes("log", LOG_SUBJECTS, "zc-projector", LOG, workers=32),),
                (metrics.VIEWS_WRITTEN, metrics.FEED_PUBLISHED)),
    # Takes nothing through a durable consumer: it follows the games whose starts seated its bots
    # (read from the log on start, heard on zc.live.*.hand after), so every instance plays every game.
    ServiceSpec("bots", "plays the bot seats every game's start names, resuming them from the log after a restart",
                lambda nc, js: BotsService(nc, js), (), (BOT_GAMES,)),
)
SERVICES = tuple(spec.name for spec in SPECS)
BY_NAME = {spec.name: spec for spec in SPECS}


def _wire(broker: NatsBroker, takes: Takes, service: Callable[[], object], inbox: str):
    """Subscribe the service to what it takes; returns a DirectConsumer to start, or None."""
    if takes.kind == "commands":
        async def handle(game: str, raw, epoch: int) -> None:
            await service().handle(game, raw.metadata.sequence.stream, raw, epoch)
        return lambda js: DirectConsumer(js, takes.group, takes.subject, takes.stream,
                                         GameQueues(settled(handle, "command")))
    if takes.kind == "log":
        @broker.subscriber(**subscriber(takes.group, takes.subject, takes.stream, inbox, workers=takes.workers))
        async def on_log(raw) -> None:
            await settle(raw, fold(raw), "log")

        async def fold(raw) -> None:  # decoded inside settle: a batch no one can read is dropped at once
            await service().on_log(game_of(raw.subject), raw.metadata.sequence.stream, raw.headers,
                                   decode_batch(raw.data))
        return None

    @broker.subscriber(takes.subject, queue=takes.group, decoder=raw_message)
    async def on_request(raw) -> bytes:
        try:
            request = msgspec.json.decode(raw.data, type=ReshuffleRequest)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            return encode(ReshuffleRefused(reason=f"not a reshuffle request: {error}"[:200]))
        return encode(await service().on_reshuffle(request))
    return None


def _when_built(built: list) -> Callable[[], object]:
    """The service `built` holds once it is built: its handlers are wired before it is."""
    return lambda: built[0]


class Services:
    """Running services; `await stop()` drains them."""

    def __init__(self):
        self.brokers: list[NatsBroker] = []
        self.direct: list[DirectConsumer] = []
        self.by_name: dict[str, object] = {}
        self.topology_changes: list[str] = []   # what starting them changed in the streams, one line each

    async def start(self, names, access: Access, replicas: int | None = None) -> "Services":
        """Start each named service logged in as its own role. The streams are made first, as the
        operator, when its credentials are at hand; without them they must exist already."""
        for name in names:
            if name not in BY_NAME:
                raise ValueError(f"unknown service {name!r} (choose from {', '.join(SERVICES)})")
        self.topology_changes = await prepare_topology(access, replicas)
        for name in names:
            spec, built = BY_NAME[name], []
            options = access.connect_options(name)
            login = SASLPlaintext(username=options.pop("user"), password=options.pop("password"))
            broker = NatsBroker(logger=None, security=login, **options)
            direct = [_wire(broker, takes, _when_built(built), options["inbox_prefix"]) for takes in spec.takes]
            await broker.connect()
            connection = broker.config.connection_state
            built.append(spec.build(connection.connection, connection.stream))
            await broker.start()
            self.brokers.append(broker)
            for make in filter(None, direct):
                self.direct.append(make(connection.stream))
                await self.direct[-1].start()
            self.by_name[name] = built[0]
            if hasattr(built[0], "start"):   # a service that runs on its own (the bots), not on deliveries
                await built[0].start()
            log.info("service_started", service=name, nats=",".join(access.servers))
        return self

    async def stop(self) -> None:
        for service in self.by_name.values():
            if hasattr(service, "stop"):
                await service.stop()
        for consumer in self.direct:
            await consumer.stop()
        self.direct.clear()
        for broker in reversed(self.brokers):
            await broker.stop()
        self.brokers.clear()


async def prepare_topology(access: Access, replicas: int | None = None) -> list[str]:
    """Make the missing streams and buckets as the operator; without the operator's credentials,
    check that they exist and say how to make them if not."""
    if "operator" not in access.users():
        nc = await connect(access, next(iter(access.users()), "table"))
        try:
            missing = await missing_topology(nc.jetstream())
        finally:
            await nc.close()
        if missing:
            raise TopologyMissing(f"streams {', '.join(missing)} do not exist, and only the operator may make "
                                  f"them: run `zioncheck serve` once with a --credentials folder holding "
                                  f"operator.json")
        return []
    nc = await connect(access, "operator")
    try:
        return await ensure_topology(nc.jetstream(), replicas)
    finally:
        await nc.close()


class TopologyMissing(Exception):
    """The streams the services need are not there, and these credentials may not make them."""
