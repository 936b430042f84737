"""How the services consume JetStream: FastStream subscribers for the quieter consumers,
a direct consumer for the table's commands, and one way to settle a message.

FastStream runs each message through its middlewares and dependency injection. For
the dealer and scoring, which see a few batches a hand, that costs nothing; for the
table, which sees every move of every game, it cost more than the table's own work
(about half its CPU). So the table's commands come through a DirectConsumer: a durable
consumer read by nats-py on the broker's own connection, each delivery handed straight
to per-game queues (services/bus/game_queues.py).
"""
import contextlib
from collections.abc import Awaitable, Callable

import msgspec
import structlog
from faststream.message import StreamMessage
from faststream.middlewares import AckPolicy
from faststream.nats import JStream, PullSub
from nats.aio.msg import Msg
from nats.errors import ConnectionClosedError
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig

from zioncheck.contracts.commands import ORIGINS
from zioncheck.services.bus.game_queues import GameQueues
from zioncheck.services.bus.topology import game_of, origin_of, valid_game_id
from zioncheck.services.observability import DROPPED

log = structlog.get_logger("services")

# A pull returns as soon as messages are there, so a long one costs no latency. A short one
# expires often, and asyncio can drop a message that lands just as the wait times out; it
# then waits for redelivery (ack_wait). Every handler is idempotent, so a short ack_wait is safe.
PULL_SECONDS = 2.0


# A message whose handling fails this many times is given up (terminated, logged once) instead
# of coming back for ever. Content never fails a handler (a bad command is refused, and only
# the table writes the log), so this is the net for a bug or a long outage, not for input.
MAX_DELIVER = 20


def consumer_config() -> ConsumerConfig:
    """A new one each time: nats-py fills in the config it is given when it creates a consumer."""
    return ConsumerConfig(ack_wait=2, max_ack_pending=4096, max_deliver=MAX_DELIVER)


async def raw_message(message: StreamMessage) -> Msg:
    """Hand FastStream handlers the nats-py message itself. FastStream's default decoding and
    its injection of a NatsMessage parameter run sync code in a thread pool per message."""
    return message.raw_message


def subscriber(durable: str, subject: str, stream: str, inbox: str, workers: int = 1) -> dict:
    """A FastStream pull subscriber's options; the handler settles each message itself. Its pulls
    are answered on `inbox`, the connection's own inbox prefix (no other login may read there)."""
    return dict(subject=subject, stream=JStream(stream, declare=False), durable=durable,
                inbox_prefix=f"{inbox}.".encode(),
                pull_sub=PullSub(batch_size=64, timeout=PULL_SECONDS), ack_policy=AckPolicy.MANUAL,
                max_workers=workers, decoder=raw_message, config=consumer_config())


async def settle(raw: Msg, work: Awaitable[None], what: str) -> None:
    """Ack once the work is done. A message that cannot be decoded is terminated at once
    (it would fail the same way for ever); any other failure naks with a delay, up to
    MAX_DELIVER deliveries, so one bad message never stops a consumer."""
    try:
        await work
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        await drop(raw, what, f"undecodable: {error}")
        return
    except Exception as error:  # noqa: BLE001 - the consumer must outlive any one message
        if raw.metadata.num_delivered >= MAX_DELIVER:
            await drop(raw, what, f"failed {MAX_DELIVER} times, last: {error!r}")
            return
        log.error("handler_failed", what=what, subject=raw.subject, error=repr(error))
        await raw.nak(delay=1)
        return
    await raw.ack()


async def drop(raw: Msg, what: str, reason: str) -> None:
    """Give a message up for good: one log line, one count, never delivered again."""
    DROPPED.labels(what).inc()
    log.warning("message_dropped", what=what, subject=raw.subject[:120], reason=reason[:300])
    with contextlib.suppress(Exception):
        await raw.term()


Handler = Callable[[str, Msg, int], Awaitable[None]]


def settled(handler: Handler, what: str) -> Handler:
    """The handler, each message acked or nakked once it is handled."""
    return lambda game, raw, epoch: settle(raw, handler(game, raw, epoch), what)


class DirectConsumer:
    """A durable push consumer, shared by every instance through its deliver group, whose
    deliveries go straight to per-game queues. A push consumer hands each command over as
    soon as it is stored; a pull waits for the next fetch, which cost about a tenth of
    the throughput here."""

    def __init__(self, js: JetStreamContext, group: str, subject: str, stream: str, queues: GameQueues):
        self.js, self.group, self.subject, self.stream = js, group, subject, stream
        self.queues = queues
        self.sub = None

    async def start(self) -> None:
        # nats-py names the durable after the group, so every instance binds to the same consumer.
        self.sub = await self.js.subscribe(self.subject, queue=self.group, stream=self.stream, cb=self._on_message,
                                           manual_ack=True, config=consumer_config())

    async def _on_message(self, msg: Msg) -> None:
        if not valid_game_id(game_of(msg.subject)) or origin_of(msg.subject) not in ORIGINS:
            # No game to refuse it in (a wildcard or malformed subject): counted and dropped.
            await drop(msg, "command", "the subject names no valid game and origin")
            return
        self.queues.take([msg])

    async def stop(self) -> None:
        """Stop taking deliveries and drop what is queued: unacked, it comes again."""
        if self.sub is not None:
            with contextlib.suppress(ConnectionClosedError):
                await self.sub.unsubscribe()
        await self.queues.stop()
