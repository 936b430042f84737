"""Delivered messages queued per game: one worker per game, all games at once.

A consumer hands over messages as they come. Each game's messages are worked one
at a time in delivery order, while other games go on, and taking a delivery never
waits for a slow game (the consumer's max_ack_pending bounds what is in hand).

Each message also gets the delivery epoch it arrived in. A consumer first delivers
messages in stream order and numbers its deliveries 1, 2, 3...; while this process
sees every number in turn and no redelivery, nothing it did not see can sit between
two messages it saw. The epoch changes whenever that chain breaks: at start, after a
gap (another instance took a delivery, a message was lost on the way) or a redelivery.
Within one epoch, a game whose order was once checked against the stream stays
checked (services/table uses this to skip reading the stream for each command).
"""
import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

from nats.aio.msg import Msg

from zioncheck.services.bus import tasks
from zioncheck.services.bus.delivered import delivery
from zioncheck.services.bus.topology import game_of

Work = Callable[[str, Msg, int], Awaitable[None]]


class GameQueues:
    def __init__(self, work: Work):
        self.work = work            # (game, message, epoch): handles, then acks or naks the message
        self.queues: dict[str, deque[tuple[Msg, int]]] = {}
        self.workers: set[asyncio.Task] = set()
        self.last_delivery: int | None = None
        self.epoch = 0              # 0: none yet; the first delivery starts epoch 1
        self.stopped = False

    def take(self, messages: list[Msg]) -> None:
        for msg in messages:
            _, consumer_seq, delivered = delivery(msg)
            follows = self.last_delivery is not None and consumer_seq == self.last_delivery + 1
            if not follows or delivered > 1:
                self.epoch += 1
            self.last_delivery = consumer_seq
            game = game_of(msg.subject)
            queue = self.queues.get(game)
            if queue is None:
                queue = self.queues[game] = deque()
                worker = asyncio.create_task(self._drain(game, queue))
                self.workers.add(worker)
                worker.add_done_callback(self.workers.discard)
            queue.append((msg, self.epoch))

    async def _drain(self, game: str, queue: deque[tuple[Msg, int]]) -> None:
        try:
            while queue and not self.stopped:
                msg, epoch = queue[0]
                await self.work(game, msg, epoch)
                queue.popleft()
        finally:
            del self.queues[game]

    async def stop(self) -> None:
        """Drop what is queued (unacked, it comes again) and end the workers."""
        self.stopped = True
        await tasks.stop(list(self.workers))


Drain = Callable[[str, list[Msg]], Awaitable[None]]


class GameBatches:
    """Each game's deliveries handed over together: one drain of a game at a time, in delivery order, and
    a drain takes every message of the game that came while the one before it was worked. All games go on
    at once. `done(n)` is told each time n messages leave hand, worked or not."""

    def __init__(self, drain: Drain, done: Callable[[int], None]):
        self.drain, self.done = drain, done
        self.queues: dict[str, list[Msg]] = {}
        self.workers: set[asyncio.Task] = set()
        self.stopped = False

    def take(self, msg: Msg) -> None:
        game = game_of(msg.subject)
        queue = self.queues.get(game)
        if queue is None:
            queue = self.queues[game] = []
            worker = asyncio.create_task(self._drain(game, queue))
            self.workers.add(worker)
            worker.add_done_callback(self.workers.discard)
        queue.append(msg)

    async def _drain(self, game: str, queue: list[Msg]) -> None:
        try:
            while queue and not self.stopped:
                taken = queue[:]
                del queue[:]
                try:
                    await self.drain(game, taken)
                finally:
                    self.done(len(taken))
        finally:
            del self.queues[game]
            self.done(len(queue))   # stopped: dropped (the consumer's service reads the stream for them)

    async def stop(self) -> None:
        """Drop what is queued and end the workers."""
        self.stopped = True
        await tasks.stop(list(self.workers))
