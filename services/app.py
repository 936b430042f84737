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

from contracts.dealer import ReshuffleRequest
from contracts.log import decode_batch, encode
from services.consuming import DirectConsumer, raw_message, settle, settled, subscriber
from services.dealer import DealerService
from services.embedded import server_list
from services.game_queues import GameQueues
from services.projector import ProjectorService
from services.scoring import ScoringService
from services.table import TableService
from services.topology import COMMANDS, HAND_BOUNDARIES, LOG, LOG_SUBJECTS, RESHUFFLE, ensure_topology, game_of

SERVICES = ("table", "dealer", "scoring", "projector")
log = structlog.get_logger("services")


class Holder:
    service = None


def _table(broker: NatsBroker, holder: Holder):
    async def handle(game: str, raw, epoch: int) -> None:
        await holder.service.handle(game, raw.metadata.sequence.stream, raw, epoch)
    return lambda js: DirectConsumer(js, "zc-tables", "zc.cmd.*", COMMANDS, GameQueues(settled(handle, "command")))


def _dealer(broker: NatsBroker, holder: Holder) -> None:
    @broker.subscriber(**subscriber("zc-dealer", HAND_BOUNDARIES, LOG))
    async def on_log(raw) -> None:
        await settle(raw, holder.service.on_log(game_of(raw.subject), decode_batch(raw.data)), "log")

    @broker.subscriber(RESHUFFLE, queue="zc-dealer", decoder=raw_message)
    async def on_reshuffle(raw) -> bytes:
        request = msgspec.json.decode(raw.data, type=ReshuffleRequest)
        return encode(await holder.service.on_reshuffle(request))


def _scoring(broker: NatsBroker, holder: Holder) -> None:
    @broker.subscriber(**subscriber("zc-scoring", HAND_BOUNDARIES, LOG))
    async def on_log(raw) -> None:
        work = holder.service.on_log(game_of(raw.subject), raw.metadata.sequence.stream, decode_batch(raw.data))
        await settle(raw, work, "log")


def _projector(broker: NatsBroker, holder: Holder) -> None:
    # Several workers: the service orders each game's batches itself (a lock and a catch-up per game),
    # and batches folded while a write of the views waits share it. The workers bound how far the
    # projector runs ahead: the fewer its writes, the more of the disk the game services get.
    @broker.subscriber(**subscriber("zc-projector", LOG_SUBJECTS, LOG, workers=32))
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

    async def start(self, names, url: str, replicas: int = 1) -> "Services":
        for name in names:
            if name not in _REGISTER:
                raise ValueError(f"unknown service {name!r} (choose from {', '.join(SERVICES)})")
            holder = Holder()
            broker = NatsBroker(server_list(url), logger=None)
            direct = _REGISTER[name](broker, holder)  # FastStream subscribers, or a DirectConsumer to start
            await broker.connect()
            state = broker.config.connection_state
            await ensure_topology(state.stream, replicas)
            holder.service = _BUILD[name](state.connection, state.stream)
            await broker.start()
            self.brokers.append(broker)
            if direct is not None:
                self.direct.append(direct(state.stream))
                await self.direct[-1].start()
            self.by_name[name] = holder.service
            log.info("service_started", service=name, nats=url)
        return self

    async def stop(self) -> None:
        for consumer in self.direct:
            await consumer.stop()
        self.direct.clear()
        for broker in reversed(self.brokers):
            await broker.stop()
        self.brokers.clear()
