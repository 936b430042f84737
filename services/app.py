"""The services as FastStream subscribers on one NATS server or cluster.

Each service gets its own broker (its own connection), so they can run together
in one process (`zioncheck run`) or one per process (`zioncheck serve table`).
Handlers decode, call the service, and ack; retries, sequences and headers live
in the services' log writer, not here. A handler that fails naks with a delay,
so one bad message never stops a consumer.
"""
import msgspec
import structlog
from faststream.middlewares import AckPolicy
from faststream.message import StreamMessage
from faststream.nats import JStream, NatsBroker, PullSub
from nats.aio.msg import Msg
from nats.js.api import ConsumerConfig

from contracts.dealer import ReshuffleRequest
from contracts.log import decode_batch, encode
from services.dealer import DealerService
from services.embedded import server_list
from services.projector import ProjectorService
from services.scoring import ScoringService
from services.table import TableService
from services.topology import COMMANDS, LOG, RESHUFFLE, ensure_topology, game_of

SERVICES = ("table", "dealer", "scoring", "projector")
log = structlog.get_logger("services")


class Holder:
    service = None


async def raw_message(message: StreamMessage) -> Msg:
    """Hand handlers the nats-py message itself. FastStream's default decoding and its
    injection of a NatsMessage parameter run sync code in a thread pool per message,
    which costs more than the table's own work."""
    return message.raw_message


def _consumer(durable: str, subject: str, stream: str, workers: int) -> dict:
    # A pull returns as soon as messages are there, so a long one costs no latency; a short
    # one expires often, and a message the server sends just as the client gives up waits
    # for redelivery (ack_wait). Every handler is idempotent, so a short ack_wait is safe.
    return dict(subject=subject, stream=JStream(stream, declare=False), durable=durable,
                pull_sub=PullSub(batch_size=64, timeout=2.0), ack_policy=AckPolicy.MANUAL,
                max_workers=workers, decoder=raw_message,
                config=ConsumerConfig(ack_wait=2, max_ack_pending=4096))


async def _settle(raw: Msg, work, what: str) -> None:
    try:
        await work
    except Exception as error:  # noqa: BLE001 - the consumer must outlive any one message
        log.error("handler_failed", what=what, subject=raw.subject, error=repr(error))
        await raw.nak(delay=1)
        return
    await raw.ack()


def _table(broker: NatsBroker, holder: Holder, workers: int) -> None:
    @broker.subscriber(**_consumer("zc-table", "zc.cmd.*", COMMANDS, workers))
    async def on_command(raw) -> None:
        await _settle(raw, holder.service.handle(game_of(raw.subject), raw.metadata.sequence.stream), "command")


def _dealer(broker: NatsBroker, holder: Holder, workers: int) -> None:
    @broker.subscriber(**_consumer("zc-dealer", "zc.log.*", LOG, 1))
    async def on_log(raw) -> None:
        await _settle(raw, holder.service.on_log(game_of(raw.subject), decode_batch(raw.data)), "log")

    @broker.subscriber(RESHUFFLE, queue="zc-dealer", decoder=raw_message)
    async def on_reshuffle(raw) -> bytes:
        request = msgspec.json.decode(raw.data, type=ReshuffleRequest)
        return encode(await holder.service.on_reshuffle(request))


def _scoring(broker: NatsBroker, holder: Holder, workers: int) -> None:
    @broker.subscriber(**_consumer("zc-scoring", "zc.log.*", LOG, 1))
    async def on_log(raw) -> None:
        work = holder.service.on_log(game_of(raw.subject), raw.metadata.sequence.stream, decode_batch(raw.data))
        await _settle(raw, work, "log")


def _projector(broker: NatsBroker, holder: Holder, workers: int) -> None:
    # Several workers: the service orders each game's batches itself (a lock and a catch-up per game).
    @broker.subscriber(**_consumer("zc-projector", "zc.log.*", LOG, workers))
    async def on_log(raw) -> None:
        work = holder.service.on_log(game_of(raw.subject), raw.metadata.sequence.stream, raw.headers,
                                     decode_batch(raw.data))
        await _settle(raw, work, "log")


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
        self.by_name: dict[str, object] = {}

    async def start(self, names, url: str, workers: int = 32, replicas: int = 1) -> "Services":
        for name in names:
            if name not in _REGISTER:
                raise ValueError(f"unknown service {name!r} (choose from {', '.join(SERVICES)})")
            holder = Holder()
            broker = NatsBroker(server_list(url), logger=None)
            _REGISTER[name](broker, holder, workers)
            await broker.connect()
            state = broker.config.connection_state
            await ensure_topology(state.stream, replicas)
            holder.service = _BUILD[name](state.connection, state.stream)
            await broker.start()
            self.brokers.append(broker)
            self.by_name[name] = holder.service
            log.info("service_started", service=name, nats=url)
        return self

    async def stop(self) -> None:
        for broker in reversed(self.brokers):
            await broker.stop()
        self.brokers.clear()
