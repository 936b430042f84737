"""The services on one NATS server or cluster.

Each service gets its own FastStream broker (its own connection), so they can run
together in one process (`zioncheck run`) or one per process (`zioncheck serve table`).
The dealer, scoring and projector are FastStream subscribers; the table's commands,
one message per move of every game, come through a DirectConsumer on the broker's
connection (services.consuming says why). Handlers decode, call the service, and
settle; retries, sequences and headers live in the services' log writer, not here.
"""
import msgspec
import structlog
from faststream.nats import NatsBroker
from faststream.security import SASLPlaintext

from contracts.dealer import ReshuffleRefused, ReshuffleRequest
from contracts.log import decode_batch, encode
from services.consuming import DirectConsumer, raw_message, settle, settled, subscriber
from services.dealer import DealerService
from services.access import Access, connect
from services.game_queues import GameQueues
from services.projector import ProjectorService
from services.scoring import ScoringService
from services.table import TableService
from services.topology import (COMMAND_SUBJECTS, COMMANDS, HAND_BOUNDARIES, LOG, LOG_SUBJECTS, RESHUFFLE,
                               ensure_topology, game_of, missing_topology)

SERVICES = ("table", "dealer", "scoring", "projector")
log = structlog.get_logger("services")


class Holder:
    service = None


def _table(broker: NatsBroker, holder: Holder, inbox: str):
    async def handle(game: str, raw, epoch: int) -> None:
        await holder.service.handle(game, raw.metadata.sequence.stream, raw, epoch)
    return lambda js: DirectConsumer(js, "zc-tables", COMMAND_SUBJECTS, COMMANDS, GameQueues(settled(handle, "command")))


def _dealer(broker: NatsBroker, holder: Holder, inbox: str) -> None:
    @broker.subscriber(**subscriber("zc-dealer", HAND_BOUNDARIES, LOG, inbox))
    async def on_log(raw) -> None:
        await settle(raw, holder.service.on_log(game_of(raw.subject), decode_batch(raw.data)), "log")

    @broker.subscriber(RESHUFFLE, queue="zc-dealer", decoder=raw_message)
    async def on_reshuffle(raw) -> bytes:
        try:
            request = msgspec.json.decode(raw.data, type=ReshuffleRequest)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            return encode(ReshuffleRefused(reason=f"not a reshuffle request: {error}"[:200]))
        return encode(await holder.service.on_reshuffle(request))


def _scoring(broker: NatsBroker, holder: Holder, inbox: str) -> None:
    @broker.subscriber(**subscriber("zc-scoring", HAND_BOUNDARIES, LOG, inbox))
    async def on_log(raw) -> None:
        work = holder.service.on_log(game_of(raw.subject), raw.metadata.sequence.stream, decode_batch(raw.data))
        await settle(raw, work, "log")


def _projector(broker: NatsBroker, holder: Holder, inbox: str) -> None:
    # Several workers: the service orders each game's batches itself (a lock and a catch-up per game),
    # and batches folded while a write of the views waits share it. The workers bound how far the
    # projector runs ahead: the fewer its writes, the more of the disk the game services get.
    @broker.subscriber(**subscriber("zc-projector", LOG_SUBJECTS, LOG, inbox, workers=32))
    async def on_log(raw) -> None:
        work = holder.service.on_log(game_of(raw.subject), raw.metadata.sequence.stream, raw.headers,
                                     decode_batch(raw.data))
        await settle(raw, work, "log")


_REGISTER = {"table": _table, "dealer": _dealer, "scoring": _scoring, "projector": _projector}
_BUILD = {
    "table": lambda nc, js: TableService(nc, js),
    "dealer": lambda nc, js: DealerService(js),
    "scoring": lambda nc, js: ScoringService(js),
    "projector": lambda nc, js: ProjectorService(js),
}


class Services:
    """Running services; `await stop()` drains them."""

    def __init__(self):
        self.brokers: list[NatsBroker] = []
        self.direct: list[DirectConsumer] = []
        self.by_name: dict[str, object] = {}

    async def start(self, names, access: Access, replicas: int | None = None) -> "Services":
        """Start each named service logged in as its own role. The streams are made first, as the
        operator, when its credentials are at hand; without them they must exist already."""
        for name in names:
            if name not in _REGISTER:
                raise ValueError(f"unknown service {name!r} (choose from {', '.join(SERVICES)})")
        await prepare_topology(access, replicas)
        for name in names:
            holder = Holder()
            options = access.connect_options(name)
            login = SASLPlaintext(username=options.pop("user"), password=options.pop("password"))
            broker = NatsBroker(logger=None, security=login, **options)
            direct = _REGISTER[name](broker, holder, options["inbox_prefix"])  # FastStream subscribers, or a DirectConsumer to start
            await broker.connect()
            state = broker.config.connection_state
            holder.service = _BUILD[name](state.connection, state.stream)
            await broker.start()
            self.brokers.append(broker)
            if direct is not None:
                self.direct.append(direct(state.stream))
                await self.direct[-1].start()
            self.by_name[name] = holder.service
            log.info("service_started", service=name, nats=",".join(access.servers))
        return self

    async def stop(self) -> None:
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
            raise TopologyMissing(f"streams {', '.join(missing)} do not exist: run `zioncheck setup` "
                                  f"with the operator's credentials first")
        return []
    nc = await connect(access, "operator")
    try:
        return await ensure_topology(nc.jetstream(), replicas)
    finally:
        await nc.close()


class TopologyMissing(Exception):
    """The streams the services need are not there, and these credentials may not make them."""
