"""Every service declared once: its name, how it is built, what it takes in, and its metrics.

`zioncheck serve`, `zioncheck run`, the AsyncAPI document (cli/asyncapi.py) and the
tests read SERVICES; adding a service is adding one ServiceSpec here. Each service gets
its own FastStream broker (its own connection, logged in as its own role), so they can
run together in one process or one per process. The dealer's, scoring's and archiver's readers of
the log are FastStream pull subscribers, one per partition's log stream (the archiver's one on its
removals too). What sees every message comes through raw pulls on the broker's connection
(services/bus/consumers.py says why): the table's commands through a PinnedConsumer, one pinned
pull consumer per partition, and the projector's log through a PulledConsumer a partition.
Handlers decode, call the service, and settle; retries, sequences and headers live in
the log store, not here.
"""
import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import msgspec
import nats.errors
import structlog
from faststream.nats import NatsBroker
from faststream.security import SASLPlaintext
from nats.js import JetStreamContext
from nats.js.errors import ServiceUnavailableError
from prometheus_client import Counter, Gauge, Histogram

from zioncheck.contracts.dealer import ReshuffleRefused, ReshuffleRequest
from zioncheck.contracts.log import decode_batch, encode
from zioncheck.services import observability as metrics
from zioncheck.services.archiver import service as archiver
from zioncheck.services.bots.service import BOT_GAMES, BotsService
from zioncheck.services.bus.access import Access, connect, fail_when_lost
from zioncheck.services.bus.consumers import (
    ACK_WAIT,
    MAX_DELIVER,
    PinnedConsumer,
    PulledConsumer,
    raw_message,
    settle,
    settled,
    subscriber,
)
from zioncheck.services.bus.delivered import delivery
from zioncheck.services.bus.game_queues import GameQueues
from zioncheck.services.bus.publish import write_together
from zioncheck.services.bus.topology import (
    REMOVALS,
    REMOVE_SUBJECTS,
    RESHUFFLE,
    commands_stream,
    ensure_topology,
    game_of,
    hand_boundaries,
    layout,
    log_stream,
    log_stream_subjects,
    missing_topology,
    stored_command_subject,
)
from zioncheck.services.dealer.service import DealerService
from zioncheck.services.intake.service import IntakeService
from zioncheck.services.projector.service import ProjectorService
from zioncheck.services.records.service import RecordsService
from zioncheck.services.scoring.service import ScoringService
from zioncheck.services.table.service import TableService

log = structlog.get_logger("services")


# The dealer's work on a hand's end is a few milliseconds: what a dealer killed with it in hand held comes to
# the other in half a second, not the 2 s every other consumer waits (a play's standstill, bench chaos).
DEALER_ACK_WAIT = 0.5


@dataclass(frozen=True)
class Takes:
    """One thing a service takes in. `log`: batches of the game log, decoded (in each partition a durable
    pull consumer shared by every instance), or, `together`, as delivered, each game's handed over
    together to the service's `on_batches` (a PulledConsumer a partition, which acks nothing: the service
    reads the log itself for what a delivery lost); `stored`: a stream's
    messages as stored, handed to the service's `on_stored` (a durable pull consumer likewise, one a
    stream); `commands`: each partition's commands stream (a pull consumer whose priority group pins
    one table instance at a time); `requests`: core NATS requests answered by one instance of a queue
    group. `subject` and `stream` name partition p's. A message of a durable consumer that acks is given
    up after `max_deliver` deliveries (-1: never), and comes again `ack_wait` seconds after a delivery not
    settled: to another instance, when the one it went to died."""
    kind: Literal["log", "stored", "commands", "requests"]
    subject: Callable[[int], str]
    group: str            # the durable consumer or queue group every instance shares
    stream: Callable[[int], str] | None = None
    workers: int = 1
    max_deliver: int = MAX_DELIVER
    together: bool = False
    ack_wait: float = ACK_WAIT


def _all_commands(p: int) -> str:
    return stored_command_subject(p, "*", "*")


def _all_log(p: int) -> str:
    return log_stream_subjects(p)[0]


def _literal(subject: str) -> Callable[[int], str]:
    return lambda p: subject


@dataclass(frozen=True)
class Settings:
    """What services are built with besides their connections: where the logins are (the house's archive
    key is beside them: None, the Access's folder), and where the archiver writes and how long it keeps
    finished games hot (`zioncheck serve --archive DIR --retention SECONDS`)."""
    credentials: Path | None = None
    archive: Path | None = None          # a folder of archive files; None: the bucket zc_archive
    retention: float = archiver.DEFAULT_RETENTION


@dataclass(frozen=True)
class ServiceSpec:
    name: str             # also its login's role (services/bus/access.py)
    does: str             # one line for people
    build: Callable[..., object]   # (connection, JetStream), and the Settings too when `configured`
    takes: tuple[Takes, ...]
    metrics: tuple[Counter | Gauge | Histogram, ...]
    configured: bool = False


SPECS = (
    ServiceSpec("table", "the single writer of every game's log: decides each command in stream order",
                lambda nc, js: TableService(nc, js),
                (Takes("commands", _all_commands, "zc-tables", commands_stream),),
                (metrics.COMMANDS, metrics.APPEND_SECONDS, metrics.EVENTS_APPENDED, metrics.ACTIVE_GAMES,
                 metrics.LOG_CONFLICTS, metrics.DROPPED, metrics.TIMERS_SCHEDULED, metrics.TIMERS_HEALED,
                 metrics.JUNK)),
    ServiceSpec("dealer", "deals each hand from a secret seed, reveals it after the hand, answers reshuffles",
                lambda nc, js: DealerService(js),
                # a hand's end held by a dealer that died comes to another within DEALER_ACK_WAIT
                (Takes("log", hand_boundaries, "zc-dealer", log_stream, ack_wait=DEALER_ACK_WAIT),
                 Takes("requests", _literal(RESHUFFLE), "zc-dealer")),
                (metrics.DEALS, metrics.RESHUFFLES, metrics.SEEDS_REVEALED, metrics.REFUSED_ASKS, metrics.JUNK)),
    ServiceSpec("scoring", "folds hand ends into per-hand scores and standings",
                lambda nc, js: ScoringService(js),
                (Takes("log", hand_boundaries, "zc-scoring", log_stream),),
                (metrics.HANDS_SCORED, metrics.JUNK)),
    # Every batch of every game: each game's batches that came while its last were worked are folded
    # together and share one sending of the views.
    ServiceSpec("projector", "folds the log into public and seat views and the redacted feed",
                lambda nc, js: ProjectorService(js),
                (Takes("log", _all_log, "zc-projector", log_stream, together=True),),
                (metrics.VIEWS_WRITTEN, metrics.FEED_PUBLISHED, metrics.JUNK)),
    # Every game's end comes again until its archive is written, checked and indexed (max_deliver -1); a
    # removal likewise, until the game is out of the hot streams. A few workers: a game's archive takes a
    # few reads, a pack and a check.
    ServiceSpec("archiver", "writes each finished game's signed archive and index entry, and takes the game out of "
                "the hot streams once its retention has run",
                lambda nc, js, settings: archiver.built(js, settings.credentials, settings.archive,
                                                        settings.retention),
                (Takes("stored", hand_boundaries, "zc-archiver", log_stream, workers=4, max_deliver=-1),
                 Takes("stored", _literal(REMOVE_SUBJECTS), "zc-archiver", _literal(REMOVALS), workers=4,
                       max_deliver=-1)),
                (metrics.GAMES_ARCHIVED, metrics.ARCHIVE_BYTES, metrics.ARCHIVE_FAILURES, metrics.ARCHIVE_WAITS,
                 metrics.GAMES_REMOVED, metrics.LEFT_HOT, metrics.CAME_BACK, metrics.JUNK), configured=True),
    # Answers requests through NATS's Services API (its own queue group and discovery), so it is
    # started on its connection rather than wired here; stateless: run as many as the load needs.
    ServiceSpec("intake", "the one door for commands: checks each one and stores it in its game's partition",
                lambda nc, js: IntakeService(nc, js), (), (metrics.INTAKE,)),
    # Answers tenants' requests through the Services API, like the intake; stateless: run as many as needed.
    ServiceSpec("records", "answers each tenant's questions about its archived games: which, and each one's archive",
                lambda nc, js: RecordsService(nc, js), (), (metrics.RECORDS, metrics.JUNK)),
    # Takes nothing through a durable consumer: it follows its bot seats' views (zc.view.*.*.bot.*, read
    # by direct get on start), never the log, so every instance plays every game.
    ServiceSpec("bots", "plays the bot seats every game's start names, each from its own seat's view, resuming them "
                "from those views after a restart",
                lambda nc, js: BotsService(nc, js), (), (BOT_GAMES,)),
)
SERVICES = tuple(spec.name for spec in SPECS)
HOUSE = tuple(name for name in SERVICES if name != "bots")   # what runs a game whose starter plays its bots
BY_NAME = {spec.name: spec for spec in SPECS}


def _wire(broker: NatsBroker, takes: Takes, service: Callable[[], object], inbox: str, partitions: int):
    """Subscribe the service to what it takes; returns what makes the consumers to start on the connection
    (a PinnedConsumer, or a PulledConsumer a partition), or None."""
    if takes.kind == "commands":
        async def handle(game: str, raw, epoch: int) -> None:
            await service().handle(game, delivery(raw).stream_seq, raw, epoch)
        stream = takes.stream or commands_stream
        return lambda nc: PinnedConsumer(nc, [stream(p) for p in range(partitions)],
                                         [takes.subject(p) for p in range(partitions)], takes.group,
                                         lambda: GameQueues(settled(handle, "command")))
    if takes.kind == "log" and takes.together:
        stream = takes.stream or log_stream
        return lambda nc: [PulledConsumer(nc, stream(p), takes.subject(p), takes.group,
                                          lambda game, raws: service().on_batches(game, raws))
                          for p in range(partitions)]
    if takes.kind == "stored":
        stream = takes.stream or log_stream
        for name, subject in dict.fromkeys((stream(p), takes.subject(p)) for p in range(partitions)):
            @broker.subscriber(**subscriber(takes.group, subject, name, inbox, workers=takes.workers,
                                            max_deliver=takes.max_deliver))
            async def on_stored(raw) -> None:
                await settle(raw, service().on_stored(raw), "stored", takes.max_deliver)
        return None
    if takes.kind == "log":
        async def fold(raw) -> None:  # decoded inside settle: a batch no one can read is dropped at once
            await service().on_log(game_of(raw.subject), raw.metadata.sequence.stream, raw.headers,
                                   decode_batch(raw.data))

        for p in range(partitions):
            @broker.subscriber(**subscriber(takes.group, takes.subject(p), (takes.stream or log_stream)(p), inbox,
                                            workers=takes.workers, ack_wait=takes.ack_wait))
            async def on_log(raw) -> None:
                await settle(raw, fold(raw), "log")
        return None

    @broker.subscriber(takes.subject(0), queue=takes.group, decoder=raw_message)
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
        self.direct: list[PinnedConsumer | PulledConsumer] = []
        self.by_name: dict[str, object] = {}
        self.topology_changes: list[str] = []   # what starting them changed in the streams, one line each
        self.partitions = 0                     # P, as the server's mapping says

    async def start(self, names, access: Access, replicas: int | None = None,
                    settings: Settings | None = None) -> "Services":
        """Start each named service logged in as its own role, built with `settings`. The streams are made
        first, as the operator, when its credentials are at hand; without them they must exist already."""
        settings = settings or Settings()
        if settings.credentials is None:
            settings = replace(settings, credentials=access.credentials)
        for name in names:
            if name not in BY_NAME:
                raise ValueError(f"unknown service {name!r} (choose from {', '.join(SERVICES)})")
        self.topology_changes, partitions = await prepare_topology(access, replicas)
        self.partitions = partitions
        for name in names:
            spec, built = BY_NAME[name], []
            options = access.connect_options(name)
            login = SASLPlaintext(username=options.pop("user"), password=options.pop("password"))
            broker = NatsBroker(logger=None, security=login, **options)
            direct = [_wire(broker, takes, _when_built(built), options["inbox_prefix"], partitions)
                      for takes in spec.takes]
            await broker.connect()
            connection = broker.config.connection_state
            write_together(connection.connection)
            fail_when_lost(connection.connection)
            built.append(spec.build(connection.connection, connection.stream, *([settings] * spec.configured)))
            await broker.start()
            self.brokers.append(broker)
            if (await layout(connection.stream)).partitions != partitions:
                raise TopologyMissing("the server's partitions changed while the services started")
            for make in filter(None, direct):
                made = make(connection.connection)
                for consumer in made if isinstance(made, list) else [made]:
                    self.direct.append(consumer)
                    await consumer.start()
            self.by_name[name] = built[0]
            if hasattr(built[0], "start"):   # a service that runs on its own (the bots), not on deliveries
                await built[0].start()
            log.info("service_started", service=name, nats=",".join(access.servers))
        return self

    async def stop(self) -> None:
        # the direct consumers first, all at once: no delivery reaches a service that has stopped
        await asyncio.gather(*(consumer.stop() for consumer in self.direct))
        self.direct.clear()
        for service in self.by_name.values():
            if hasattr(service, "stop"):
                await service.stop()
        for broker in reversed(self.brokers):
            await broker.stop()
        self.brokers.clear()


async def prepare_topology(access: Access, replicas: int | None = None) -> tuple[list[str], int]:
    """Make the missing streams and buckets as the operator; without the operator's credentials,
    check that they exist and say how to make them if not. Returns what changed and P, the
    partitions the server's account maps games to."""
    if "operator" not in access.users():
        nc = await connect(access, next(iter(access.users()), "table"))
        try:
            await jetstream_answering(nc.jetstream())
            missing = await missing_topology(nc.jetstream())
            partitions = (await layout(nc.jetstream())).partitions
        finally:
            await nc.close()
        if missing:
            raise TopologyMissing(f"streams {', '.join(missing)} do not exist, and only the operator may make "
                                  f"them: run `zioncheck serve` once with a --credentials folder holding "
                                  f"operator.json")
        return [], partitions
    nc = await connect(access, "operator")
    try:
        await jetstream_answering(nc.jetstream())
        changes = await ensure_topology(nc.jetstream(), replicas)
        return changes, (await layout(nc.jetstream())).partitions
    finally:
        await nc.close()


class TopologyMissing(Exception):
    """The streams the services need are not there, and these credentials may not make them."""


class JetStreamAway(Exception):
    """The servers answer, but their JetStream did not within JETSTREAM_WAIT seconds."""


JETSTREAM_WAIT = 60.0   # seconds a starting service waits for JetStream: a cluster just started elects a leader


async def jetstream_answering(js: JetStreamContext, within: float = JETSTREAM_WAIT) -> None:
    """Return once the JetStream API answers (its account's limits). The nodes of a cluster just started answer
    only once they have chosen a leader, seconds later: said once, and waited for; JetStreamAway after `within`
    seconds."""
    deadline, said = time.monotonic() + within, False
    while True:
        try:
            await js.account_info()
            return
        except (nats.errors.TimeoutError, nats.errors.NoRespondersError, ServiceUnavailableError) as error:
            reason = f"{type(error).__name__}: {error}"[:200]
            if time.monotonic() >= deadline:
                raise JetStreamAway(f"the NATS servers answer, but their JetStream did not within {within:g} s "
                                    f"(last: {reason}); is JetStream enabled, and has the cluster a quorum?"
                                    ) from None
            if not said:
                log.warning("waiting_for_jetstream", reason=reason, within=within)
                said = True
            await asyncio.sleep(0.5)
