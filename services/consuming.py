"""How the services consume JetStream: FastStream subscribers for the quiet consumers,
a plain pull loop for the busy ones, and one way to settle a message.

FastStream runs each message through its middlewares and dependency injection. For
the dealer and scoring, which see a few batches a hand, that costs nothing; for the
table, which sees every move of every game, it cost more than the table's own work
(about half its CPU). So the table's consumer is worked by PullLoop: the same durable
pull consumer, fetched by nats-py on the broker's own connection, each fetch handed
whole to per-game queues (services.game_queues).
"""
import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import structlog
from faststream.message import StreamMessage
from faststream.middlewares import AckPolicy
from faststream.nats import JStream, PullSub
from nats.aio.msg import Msg
from nats.errors import ConnectionClosedError
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig

from services.game_queues import GameQueues

log = structlog.get_logger("services")
FETCH = 256

# A pull returns as soon as messages are there, so a long one costs no latency. A short one
# expires often, and asyncio can drop a message that lands just as the wait times out; it
# then waits for redelivery (ack_wait). Every handler is idempotent, so a short ack_wait is safe.
PULL_SECONDS = 2.0
CONSUMER = ConsumerConfig(ack_wait=2, max_ack_pending=4096)


async def raw_message(message: StreamMessage) -> Msg:
    """Hand FastStream handlers the nats-py message itself. FastStream's default decoding and
    its injection of a NatsMessage parameter run sync code in a thread pool per message."""
    return message.raw_message


def subscriber(durable: str, subject: str, stream: str, workers: int = 1) -> dict:
    """A FastStream pull subscriber's options; the handler settles each message itself."""
    return dict(subject=subject, stream=JStream(stream, declare=False), durable=durable,
                pull_sub=PullSub(batch_size=64, timeout=PULL_SECONDS), ack_policy=AckPolicy.MANUAL,
                max_workers=workers, decoder=raw_message, config=CONSUMER)


async def settle(raw: Msg, work: Awaitable[None], what: str) -> None:
    """Ack once the work is done; a failure naks with a delay, so one bad message never stops a consumer."""
    try:
        await work
    except Exception as error:  # noqa: BLE001 - the consumer must outlive any one message
        log.error("handler_failed", what=what, subject=raw.subject, error=repr(error))
        await raw.nak(delay=1)
        return
    await raw.ack()


Handler = Callable[[str, Msg, int], Awaitable[None]]


def settled(handler: Handler, what: str) -> Handler:
    """The handler, each message acked or nakked once it is handled."""
    return lambda game, raw, epoch: settle(raw, handler(game, raw, epoch), what)


class PullLoop:
    """A durable pull consumer whose fetches go whole to per-game queues."""

    def __init__(self, js: JetStreamContext, durable: str, subject: str, stream: str, dispatch: GameQueues):
        self.js, self.durable, self.subject, self.stream = js, durable, subject, stream
        self.dispatch = dispatch
        self.pull = None
        self.task: asyncio.Task | None = None
        self.running = False

    async def start(self) -> None:
        self.pull = await self.js.pull_subscribe(self.subject, durable=self.durable, stream=self.stream,
                                                 config=CONSUMER)
        self.running = True
        self.task = asyncio.create_task(self._run(self.pull))

    async def _run(self, pull) -> None:
        # Checked as well as cancelled: on Python 3.11 a wait that ends just as it is
        # cancelled can swallow the cancellation.
        while self.running:
            try:
                messages = await pull.fetch(FETCH, timeout=PULL_SECONDS)
            except TimeoutError:
                continue
            except ConnectionClosedError:
                return
            except Exception as error:  # noqa: BLE001 - a leader election or a reconnect: try again shortly
                log.warning("fetch_failed", consumer=self.durable, error=repr(error))
                await asyncio.sleep(0.5)
                continue
            self.dispatch.take(messages)

    async def stop(self) -> None:
        """Stop fetching and drop what is in hand: unacked, it comes again."""
        self.running = False
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
            # Unsubscribed, or the connection's drain would wait on its unread messages.
            with contextlib.suppress(ConnectionClosedError):
                await self.pull.unsubscribe()
        await self.dispatch.stop()
