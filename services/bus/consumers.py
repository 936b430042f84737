"""How the services consume JetStream: FastStream subscribers for the quieter consumers,
a pinned pull consumer per partition for the table's commands, and one way to settle a message.

FastStream runs each message through its middlewares and dependency injection. For
the dealer and scoring, which see a few batches a hand, that costs nothing; for the
table, which sees every move of every game, it cost more than the table's own work
(about half its CPU). So the table's commands come through a PinnedConsumer: raw pull
requests on the broker's own connection, one consumer per partition whose priority group
pins one table instance at a time, each delivery handed straight to that partition's
per-game queues (services/bus/game_queues.py). The projector, which sees every batch of the
log, takes it through a PulledConsumer likewise, every instance pulling, each game's deliveries
handed over together (GameBatches), and acks none of them: what it derives it rebuilds from the
log itself (services/projector/service.py), so an ack a batch would only be a message more.
"""
import asyncio
import contextlib
import json
import random
import time
from collections.abc import Awaitable, Callable

import msgspec
import structlog
from faststream.message import StreamMessage
from faststream.middlewares import AckPolicy
from faststream.nats import JStream, PullSub
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import ConnectionClosedError
from nats.js.api import ConsumerConfig

from zioncheck.contracts.commands import ORIGINS
from zioncheck.services.bus import tasks
from zioncheck.services.bus.access import when_reconnected
from zioncheck.services.bus.delivered import delivery
from zioncheck.services.bus.game_queues import Drain, GameBatches, GameQueues
from zioncheck.services.bus.topology import TABLES_HERE, game_of, origin_of, partition_of, valid_game_key
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


ACK_WAIT = 2.0
PULL_BATCH_SHORT = 8   # a consumer with a shorter ack_wait asks for fewer at once: none waits out its ack_wait in hand


def consumer_config(max_deliver: int = MAX_DELIVER, ack_wait: float = ACK_WAIT) -> ConsumerConfig:
    """A new one each time: nats-py fills in the config it is given when it creates a consumer. A
    `max_deliver` of -1 delivers a message until it is acked (the archiver's: no game's end is given up)."""
    return ConsumerConfig(ack_wait=ack_wait, max_ack_pending=4096, max_deliver=max_deliver)


async def raw_message(message: StreamMessage) -> Msg:
    """Hand FastStream handlers the nats-py message itself. FastStream's default decoding and
    its injection of a NatsMessage parameter run sync code in a thread pool per message."""
    return message.raw_message


def subscriber(durable: str, subject: str, stream: str, inbox: str, workers: int = 1,
               max_deliver: int = MAX_DELIVER, ack_wait: float = ACK_WAIT) -> dict:
    """A FastStream pull subscriber's options; the handler settles each message itself. Its pulls
    are answered on `inbox`, the connection's own inbox prefix (no other login may read there)."""
    batch = 64 if ack_wait >= ACK_WAIT else PULL_BATCH_SHORT
    return dict(subject=subject, stream=JStream(stream, declare=False), durable=durable,
                inbox_prefix=f"{inbox}.".encode(),
                pull_sub=PullSub(batch_size=batch, timeout=PULL_SECONDS), ack_policy=AckPolicy.MANUAL,
                max_workers=workers, decoder=raw_message, config=consumer_config(max_deliver, ack_wait))


class Again(Exception):
    """What a handler raises when a message is to come again in `seconds`: something it needs is still to
    come (no failure, nothing counted as one)."""

    def __init__(self, seconds: float):
        super().__init__(f"again in {seconds:g} s")
        self.seconds = seconds


async def settle(raw: Msg, work: Awaitable[None], what: str, max_deliver: int = MAX_DELIVER) -> None:
    """Ack once the work is done. A message that cannot be decoded is terminated at once
    (it would fail the same way for ever); any other failure naks with a delay, up to
    `max_deliver` deliveries (-1: for ever), so one bad message never stops a consumer. A handler
    that raises Again has the message delivered again when it says."""
    try:
        await work
    except Again as again:
        await raw.nak(delay=again.seconds)
        return
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        await drop(raw, what, f"undecodable: {error}")
        return
    except Exception as error:  # noqa: BLE001 - the consumer must outlive any one message
        if not await failed(raw, what, error, max_deliver):
            log.error("handler_failed", what=what, subject=raw.subject, error=repr(error))
        return
    await raw.ack()


async def failed(raw: Msg, what: str, error: Exception, max_deliver: int = MAX_DELIVER) -> bool:
    """A message whose handling failed: given up once delivered `max_deliver` times (-1: never), else
    delivered again in a second. Whether it was given up."""
    if 0 < max_deliver <= raw.metadata.num_delivered:
        await drop(raw, what, f"failed {max_deliver} times, last: {error!r}")
        return True
    await raw.nak(delay=1)
    return False


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


# A partition's table gives way this long after it last pulled (the consumer's priority_timeout):
# the bound on failover. The pinned table's pulls expire three times as often, so that a live one,
# even idle, pulls again well within it; the table pinned next resets the consumer to its ack
# floor, so the commands the one before held unacked come at once, not after ack_wait. A table
# waiting for the pin looks every WATCH_SECONDS whether commands are held with no pin at all (their
# holder died, and no new command came to move the pin), and resets the consumer then.
PIN_SECONDS = 0.6
PINNED_PULL_SECONDS = PIN_SECONDS / 3
WATCH_SECONDS = PIN_SECONDS / 2
GROUP = "tables"
PULL_BATCH, PULLS_PINNED = 256, 2
REBALANCE_SECONDS = 2.0
HERE_SECONDS = 0.25   # how long a count of the table instances waits for their answers
NANOS = 1_000_000_000
CONSUMER_EXISTS = 10148   # the server's err_code for a consumer made already
CONSUMER_NOT_FOUND = 10014   # and for one that is not there


def pull_consumer_config(durable: str, subject: str, max_deliver: int = MAX_DELIVER) -> dict:
    """A durable pull consumer of `subject`, as the API takes it (consumer_config's settings)."""
    config = consumer_config(max_deliver)
    return {"durable_name": durable, "filter_subject": subject, "ack_policy": "explicit",
            "ack_wait": int(config.ack_wait * NANOS),
            "max_ack_pending": config.max_ack_pending, "max_deliver": config.max_deliver}


def pulled_consumer_config(durable: str, subject: str, start: int = 0) -> dict:
    """A PulledConsumer's durable consumer of `subject`, as the API takes it: one that acks nothing (a message
    delivered is settled), for a service that reads the stream itself for whatever a delivery lost; from
    stream sequence `start` if given, else from the first message."""
    config = {"durable_name": durable, "filter_subject": subject, "ack_policy": "none"}
    return config | {"deliver_policy": "by_start_sequence", "opt_start_seq": start} if start else config


def pinned_consumer_config(durable: str, subject: str) -> dict:
    """A durable pull consumer with one priority group whose policy pins one client at a time
    (NATS 2.11+, ADR-42): the server delivers to that client only, and pins another of the waiting
    ones once it has not pulled for PIN_SECONDS."""
    return pull_consumer_config(durable, subject) | {
        "priority_groups": [GROUP], "priority_policy": "pinned_client", "priority_timeout": int(PIN_SECONDS * NANOS)}


async def create_consumer(nc: Client, stream: str, config: dict, **request) -> dict | None:
    """Make the consumer `config` describes by a raw API request (nats-py has no priority groups, nor
    the request's `action`), with `request`'s fields beside it; the server's error, or None."""
    reply = await nc.request(f"$JS.API.CONSUMER.CREATE.{stream}.{config['durable_name']}",
                             json.dumps({"stream_name": stream, "config": config, **request}).encode(), timeout=5.0)
    return json.loads(reply.data).get("error")


async def create_pinned_consumer(nc: Client, stream: str, durable: str, subject: str, **more) -> dict | None:
    """Make the pinned consumer (pinned_consumer_config, with `more` config fields); the server's error, or None."""
    return await create_consumer(nc, stream, pinned_consumer_config(durable, subject) | more)


class Pulls:
    """The pull requests one consumer has outstanding from this connection, made raw (nats-py has no API
    for what they carry) and answered on subjects of the connection's own inbox. A delivery does not say
    which pull it answers: it is counted against the oldest. A pull past its expiry with no answer (lost
    with a reconnect) is forgotten, so that it is made again."""

    def __init__(self, nc: Client, stream: str, durable: str):
        self.nc, self.api = nc, f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{durable}"
        self.inbox = nc.new_inbox()
        self.count = 0
        self.open: dict[str, list] = {}    # reply subject -> [messages it may still bring, when it expires]

    def __len__(self) -> int:
        return len(self.open)

    def asked(self) -> int:
        """The messages the pulls outstanding may still bring."""
        return sum(pull[0] for pull in self.open.values())

    async def listen(self, on_message: Callable[[Msg], Awaitable[None]]):
        """The subscription every pull's answers come on."""
        return await self.nc.subscribe(f"{self.inbox}.*", cb=on_message, pending_msgs_limit=-1,
                                       pending_bytes_limit=-1)

    async def ask(self, batch: int, expires: float = PULL_SECONDS, **request) -> None:
        """One pull of up to `batch` messages, expiring after `expires` seconds; `request`, the pull
        request's other fields."""
        self.count += 1
        reply = f"{self.inbox}.{self.count}"
        self.open[reply] = [batch, time.monotonic() + expires]
        await self.nc.publish(self.api, json.dumps({"batch": batch, "expires": int(expires * NANOS),
                                                    **request}).encode(), reply=reply)

    def took(self, msg: Msg) -> bool:
        """Whether `msg` is a delivery (counted against the oldest pull), not a status that ends its pull:
        expired (408), the pin lost (423), the consumer gone (409), ..."""
        if (msg.headers or {}).get("Status") or not msg.reply:
            self.open.pop(msg.subject, None)
            return False
        reply = next(iter(self.open), None)
        if reply is not None:
            self.open[reply][0] -= 1
            if self.open[reply][0] <= 0:
                del self.open[reply]
        return True

    def forget_lost(self) -> bool:
        """Forget the pulls past their expiry with no answer; whether there were any."""
        now = time.monotonic()
        lost = [reply for reply, (_, expires) in self.open.items() if expires + 1.0 < now]
        for reply in lost:
            del self.open[reply]
        return bool(lost)

    def clear(self) -> None:
        """Forget every pull: the server that held them is gone, or the consumer is given away."""
        self.open.clear()


async def reset(nc: Client, stream: str, durable: str) -> bool:
    """Deliver again at once every message of the consumer not acked yet (a consumer reset to its ack floor,
    nats-server 2.14+), rather than after ack_wait: a new holder of a pin, or a service started again, takes
    over what the one before held when it died. Every handler is idempotent, so what comes twice is settled
    twice and applied once. A reset that fails leaves those messages to ack_wait, as before. Whether it
    was made."""
    try:
        reply = await nc.request(f"$JS.API.CONSUMER.RESET.{stream}.{durable}", b"", timeout=2.0)
        error = json.loads(reply.data).get("error")
    except Exception as failure:  # noqa: BLE001 - ack_wait brings them all the same
        error = repr(failure)
    if error:
        log.warning("consumer_reset_failed", stream=stream, durable=durable, error=str(error)[:200])
    return not error


async def consumer_info(nc: Client, stream: str, durable: str, timeout: float = 2.0) -> dict:
    """The consumer's info as the API answers it (an "error" field where there is none)."""
    return json.loads((await nc.request(f"$JS.API.CONSUMER.INFO.{stream}.{durable}", b"", timeout=timeout)).data)


SERVING_TRIES, SERVING_PAUSE = 100, 0.1


async def until_serving(nc: Client, stream: str, durable: str) -> None:
    """Wait until the server answers for the consumer, at most SERVING_TRIES looks SERVING_PAUSE apart: a server
    just back may not serve the stream yet (on a cluster, until its leader is elected), and a pull made before
    then is lost without a word (it would be made again only once past its expiry)."""
    for _ in range(SERVING_TRIES):
        try:
            if ((await consumer_info(nc, stream, durable, 0.5)).get("error") or {}).get("code") != 503:
                return
        except Exception:  # noqa: BLE001 - no responders, a timeout: not serving yet
            pass
        await asyncio.sleep(SERVING_PAUSE)


class Echoes:
    """The deliveries a reset brings a second time, to be skipped: the messages this instance took from its
    pin's first pulls, before the reset's deliveries began (they start again from the ack floor, so the stream
    sequence goes back). Each is skipped once; its first copy is being handled, and its ack settles both."""

    def __init__(self) -> None:
        self.seqs: set[int] = set()
        self.recording, self.top = False, 0

    def reset_at(self, seq: int) -> None:
        self.seqs, self.recording, self.top = {seq}, True, seq

    def forget(self) -> None:
        self.seqs, self.recording = set(), False

    def echo(self, seq: int) -> bool:
        """Whether the delivery of stream sequence `seq` is a reset's second copy of one already taken."""
        if self.recording and seq > self.top:
            self.seqs.add(seq)
            self.top = seq
            return False
        self.recording = False
        if seq in self.seqs:
            self.seqs.discard(seq)
            return True
        return False


class Partition:
    """One partition's commands as this instance sees them: pulls outstanding on its consumer, the pin
    the server gave this instance (None while another instance holds it), and its game queues."""

    def __init__(self, nc: Client, stream: str, subject: str, durable: str, queues: GameQueues, index: int,
                 partitions: int):
        self.nc, self.stream, self.subject, self.durable, self.queues = nc, stream, subject, durable, queues
        self.index, self.partitions = index, partitions
        self.pin: str | None = None
        self.pulls = Pulls(nc, stream, durable)
        self.resting_until = 0.0            # given away: no pulls until then, so the pin goes elsewhere
        self.sub = None
        self.echoes = Echoes()
        self.watcher: asyncio.Task | None = None

    async def start(self) -> None:
        if "error" in await consumer_info(self.nc, self.stream, self.durable, 5.0):
            error = await create_pinned_consumer(self.nc, self.stream, self.durable, self.subject)
            if error and error.get("err_code") != CONSUMER_EXISTS:  # made meanwhile by another
                raise RuntimeError(f"consumer {self.durable} on {self.stream}: {error.get('description')}")
        self.sub = await self.pulls.listen(self._on_message)
        await self.refill()
        self.watcher = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        """Pulls lost with a reconnect are made again. While another instance holds the pin, or none does:
        commands delivered and not acked with no pin held were taken by an instance that died, and the
        server let its pin go; on a quiet partition no new command comes to pin this one. The consumer is
        reset then, so they come now, not after ack_wait."""
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            with contextlib.suppress(Exception):   # pulls lost with a reconnect: made again now
                await self.forget_lost_pulls()
            if self.pin is None and self.sub is not None and time.monotonic() >= self.resting_until:
                with contextlib.suppress(Exception):   # a missed look is taken again next time
                    if await self.orphaned():
                        log.info("partition_commands_orphaned", stream=self.stream)
                        await reset(self.nc, self.stream, self.durable)

    async def orphaned(self) -> bool:
        """Whether some commands are delivered and not acked while no instance holds the pin."""
        info = await consumer_info(self.nc, self.stream, self.durable)
        pinned = any(group.get("pinned_client_id") for group in info.get("priority_groups") or [])
        return info.get("num_ack_pending", 0) > 0 and not pinned

    def held(self) -> bool:
        return self.pin is not None

    async def refill(self) -> None:
        if self.sub is None or time.monotonic() < self.resting_until:
            return
        wanted = PULLS_PINNED if self.pin else 1   # a standby keeps one pull waiting for the pin
        while len(self.pulls) < wanted:
            if self.pin:
                await self.pulls.ask(PULL_BATCH, PINNED_PULL_SECONDS, group=GROUP, id=self.pin)
            else:
                await self.pulls.ask(PULL_BATCH, group=GROUP)

    async def _on_message(self, msg: Msg) -> None:
        headers = msg.headers or {}
        if not self.pulls.took(msg):   # the pull is over
            if headers.get("Status") == "423":   # the pin lost
                self.pin = None
            await self.refill()
            return
        pin, seq, first = headers.get("Nats-Pin-Id"), delivery(msg).stream_seq, False
        if pin and pin != self.pin and time.monotonic() >= self.resting_until:  # not a late one of a pin given away
            if self.pin is None:
                log.info("partition_pinned", stream=self.stream)
            self.pin = pin
            first = await reset(self.nc, self.stream, self.durable)
            if first:
                self.echoes.reset_at(seq)
            else:
                self.echoes.forget()
        game = game_of(msg.subject)
        if not first and self.echoes.echo(seq):
            pass   # taken already, before the reset
        elif not valid_game_key(game) or origin_of(msg.subject) not in ORIGINS:
            await drop(msg, "command", "the subject names no valid game and origin")
        elif partition_of(game, self.partitions) != self.index:
            # Published straight into a partition that is not the game's: never applied.
            await drop(msg, "command", f"game {game} is in partition {partition_of(game, self.partitions)}, "
                                       f"not {self.index}")
        else:
            self.queues.take([msg])
        await self.refill()

    async def forget_lost_pulls(self) -> None:
        """Pulls past their expiry with no answer (lost with a reconnect): forgotten, and pulled again."""
        self.pulls.forget_lost()
        await self.refill()

    async def give_away(self) -> None:
        """Stop pulling for a while and let the server pin a waiting instance now."""
        self.resting_until = time.monotonic() + 3 * REBALANCE_SECONDS
        self.pin = None
        self.pulls.clear()
        with contextlib.suppress(Exception):
            await self.nc.request(f"$JS.API.CONSUMER.UNPIN.{self.stream}.{self.durable}",
                                  json.dumps({"group": GROUP}).encode(), timeout=2.0)
        log.info("partition_given_away", stream=self.stream)

    async def waiting_others(self) -> int | None:
        """How many pulls wait on this consumer beyond this instance's own (None when unknown): near,
        since deliveries are counted against this instance's oldest pull."""
        try:
            info = await consumer_info(self.nc, self.stream, self.durable)
            return int(info.get("num_waiting", 0)) - len(self.pulls)
        except Exception:  # noqa: BLE001 - a missed look is taken again next time
            return None

    async def stop(self) -> None:
        await tasks.stop([self.watcher])
        if self.sub is not None:
            with contextlib.suppress(ConnectionClosedError):
                await self.sub.unsubscribe()
            self.sub = None
        await self.queues.stop()


class PinnedConsumer:
    """The table's commands: in each partition one instance at a time, by the server's own pin.

    Every instance keeps pulls outstanding on every partition's consumer (raw pull requests with
    the priority group and, once pinned, the pin id from the Nats-Pin-Id header: nats-py has no
    API for them). The server delivers to the pinned instance only; when it dies, another
    waiting one is pinned within PIN_SECONDS. Instances spread the partitions: each counts the
    instances that answer on TABLES_HERE, and one that holds more than its share gives the excess
    away (unpin) where another waits, so with two instances each works about half. The server's
    count of pulls waiting cannot tell alone: a delivery does not say which pull it answers, so an
    instance's count of its own is near, not exact, and one instance alone used to see another.
    """

    def __init__(self, nc: Client, streams: list[str], subjects: list[str], durable: str,
                 queues: Callable[[], GameQueues]):
        """`streams[p]` and `subjects[p]`: partition p's commands stream and the commands in it (its
        schedules, the games' deadlines, are the server's to deliver, not the table's to read)."""
        self.partitions = [Partition(nc, stream, subject, durable, queues(), index, len(streams))
                           for index, (stream, subject) in enumerate(zip(streams, subjects, strict=True))]
        self.nc = nc
        self.here = None
        self.balancer: asyncio.Task | None = None
        self.again: asyncio.Task | None = None

    async def start(self) -> None:
        self.here = await self.nc.subscribe(TABLES_HERE, cb=self._answer)
        order = list(self.partitions)
        random.shuffle(order)  # instances starting together come first on different partitions
        for partition in order:
            await partition.start()
        self.balancer = asyncio.create_task(self._balance())
        when_reconnected(self.nc, self.pull_again)

    async def pull_again(self) -> None:
        """The connection came back: the server it reaches holds none of the pulls made before, so they
        are made again as soon as it serves the consumers, not once they would have expired."""
        self.again = asyncio.create_task(self._pull_again())

    async def _pull_again(self) -> None:
        for partition in self.partitions:
            await until_serving(self.nc, partition.stream, partition.durable)
            partition.pulls.clear()
            await partition.refill()

    async def _answer(self, msg: Msg) -> None:
        if msg.reply:
            await self.nc.publish(msg.reply, b"")

    async def instances(self) -> int:
        """How many table instances answer on TABLES_HERE within HERE_SECONDS, this one too."""
        answers = 0

        async def count(_: Msg) -> None:
            nonlocal answers
            answers += 1
        inbox = self.nc.new_inbox()
        sub = await self.nc.subscribe(inbox, cb=count)
        try:
            await self.nc.publish(TABLES_HERE, b"", reply=inbox)
            await asyncio.sleep(HERE_SECONDS)
        finally:
            await sub.unsubscribe()
        return answers

    def held(self) -> list[str]:
        return [p.stream for p in self.partitions if p.held()]

    async def _balance(self) -> None:
        while True:
            await asyncio.sleep(REBALANCE_SECONDS * random.uniform(0.8, 1.2))
            try:
                await self._look()
            except Exception as error:  # noqa: BLE001 - the next look tries again (a reconnect, say)
                log.warning("partitions_look_failed", error=repr(error)[:200])

    async def _look(self) -> None:
        """Pull again where pulls were lost, and give away what is beyond this instance's share."""
        for partition in self.partitions:
            await partition.forget_lost_pulls()   # and a rest over: back to waiting
        held = [p for p in self.partitions if p.held()]
        if not held:
            return
        instances = await self.instances()
        share = -(-len(self.partitions) // max(instances, 1))
        for partition in held[share:]:
            others = await partition.waiting_others()
            if others is not None and others >= 1:   # another instance waits there for the pin
                await partition.give_away()

    async def stop(self) -> None:
        await tasks.stop([self.balancer, self.again])
        if self.here is not None:
            with contextlib.suppress(ConnectionClosedError):
                await self.here.unsubscribe()
            self.here = None
        for partition in self.partitions:
            await partition.stop()


# Deliveries a PulledConsumer holds at once (asked for and in hand): the bound on how far its service runs
# ahead of what it has settled.
IN_HAND = 512
STOP_SECONDS = 2.0   # how long a stopping PulledConsumer lets the deliveries in hand be worked


class PulledConsumer:
    """A durable pull consumer on one stream that every instance shares (no pin: the server spreads the
    deliveries), pulled raw on the connection's own inbox, each game's deliveries handed over together
    to `drain(game, messages)` (GameBatches). It acks nothing (pulled_consumer_config): a delivery is
    settled once sent, and one its service failed on, or lost with a connection or a stop, is never
    delivered again; the service reads the stream itself for those. At most `in_hand` messages are asked
    for or in hand; a pull that outlives its expiry unanswered (lost with a reconnect) is forgotten and
    made again."""

    def __init__(self, nc: Client, stream: str, subject: str, durable: str, drain: Drain,
                 in_hand: int = IN_HAND):
        self.nc, self.stream, self.subject, self.durable = nc, stream, subject, durable
        self.in_hand = in_hand
        self.batches = GameBatches(drain, self._done)
        self.pulls = Pulls(nc, stream, durable)
        self.held = 0                       # delivered and not yet settled
        self.closing = False                # stopping: nothing more is asked for
        self.sub = None
        self.ticker: asyncio.Task | None = None
        self.refilling: asyncio.Task | None = None
        self.again: asyncio.Task | None = None   # pulling again once the connection is back
        self.settled = False                # settled since the last refill began: room to ask for more

    async def start(self) -> None:
        await self._ensure()
        self.sub = await self.pulls.listen(self._on_message)
        self.ticker = asyncio.create_task(self._tick())
        await self.refill()
        when_reconnected(self.nc, self.pull_again)

    async def pull_again(self) -> None:
        """The connection came back: the server it reaches holds none of the pulls made before, so they are
        made again as soon as it serves the consumer, not once they would have expired (a game's views waited
        seconds after a restart)."""
        self.again = asyncio.create_task(self._pull_again())

    async def _pull_again(self) -> None:
        await until_serving(self.nc, self.stream, self.durable)
        self.pulls.clear()
        await self.refill()

    async def _ensure(self) -> None:
        """The consumer made, unless it is there; one there that acks its deliveries (made before they
        were not acked) is made again to ack none, from the first message it had not settled."""
        config = pulled_consumer_config(self.durable, self.subject)
        error = await create_consumer(self.nc, self.stream, config, action="create")
        if not error or error.get("err_code") != CONSUMER_EXISTS:
            if error:
                raise RuntimeError(f"consumer {self.durable} on {self.stream}: {error.get('description')}")
            return
        # 10148: there already, with another config (made by `zioncheck migrate`, say): left as it is
        # unless it acks, which this consumer never does
        info = await consumer_info(self.nc, self.stream, self.durable, 5.0)
        if info.get("config", {}).get("ack_policy", "none") == "none":
            return
        floor = (info.get("ack_floor") or {}).get("stream_seq", 0)
        deleted = json.loads((await self.nc.request(f"$JS.API.CONSUMER.DELETE.{self.stream}.{self.durable}", b"",
                                                    timeout=5.0)).data or b"{}")
        if not deleted.get("success") and (deleted.get("error") or {}).get("err_code") != CONSUMER_NOT_FOUND:
            raise RuntimeError(f"consumer {self.durable} on {self.stream} acks its deliveries and could not be "
                               f"made again: {(deleted.get('error') or {}).get('description')}")
        again = pulled_consumer_config(self.durable, self.subject, floor + 1)
        error = await create_consumer(self.nc, self.stream, again, action="create")
        if error and error.get("err_code") != CONSUMER_EXISTS:
            raise RuntimeError(f"consumer {self.durable} on {self.stream}: {error.get('description')}")
        if error:   # made meanwhile by another instance: as this one would make it, or this start fails
            made = await consumer_info(self.nc, self.stream, self.durable, 5.0)
            if made.get("config", {}).get("ack_policy", "none") != "none":
                raise RuntimeError(f"consumer {self.durable} on {self.stream} acks its deliveries")
        log.info("consumer_made_again", stream=self.stream, durable=self.durable, ack_policy="none", start=floor + 1)

    async def refill(self) -> None:
        """Ask for as many as there is room for, in one pull, once there is room for a quarter of `in_hand`
        (or nothing is asked for)."""
        if self.sub is None or self.closing:
            return
        room = self.in_hand - self.held - self.pulls.asked()
        if room <= 0 or (len(self.pulls) and room < self.in_hand // 4):
            return
        await self.pulls.ask(room)

    async def _on_message(self, msg: Msg) -> None:
        if not self.pulls.took(msg):   # the pull is over
            await self.refill()
            return
        self.held += 1
        self.batches.take(msg)

    def _done(self, settled: int) -> None:
        self.held -= settled
        if settled:
            self.settled = True
            if self.refilling is None or self.refilling.done():
                self.refilling = asyncio.create_task(self._refill_again())

    async def _refill_again(self) -> None:
        """Refill until no message has been settled since the last refill began."""
        while self.settled:
            self.settled = False
            await self.refill()

    async def _tick(self) -> None:
        """Pulls past their expiry with no answer forgotten, and pulled again; the consumer made again
        when it is gone (an operator's delete, a store made again)."""
        while True:
            await asyncio.sleep(PULL_SECONDS)
            try:
                if self.pulls.forget_lost():
                    await self._ensure()
                await self.refill()
            except Exception as error:  # noqa: BLE001 - the next tick tries again (a reconnect, say)
                log.warning("pull_failed", stream=self.stream, error=repr(error)[:200])

    async def stop(self) -> None:
        """Stop pulling, and let what is in hand be worked first (for at most STOP_SECONDS): a delivery
        dropped here is never delivered again, and is read from the stream only by a sweep."""
        self.closing = True
        await tasks.stop([self.ticker, self.refilling, self.again])
        deadline = time.monotonic() + STOP_SECONDS
        while self.held and time.monotonic() < deadline and self.nc.is_connected:
            await asyncio.sleep(0.02)
        if self.sub is not None:
            with contextlib.suppress(ConnectionClosedError):
                await self.sub.unsubscribe()
            self.sub = None
        await self.batches.stop()
