"""Messages stored in a stream without an ack each: JetStream's fast ingest (ADR-50, nats-server 2.14+,
a stream with `allow_batched`).

A FastIngest keeps one batch open on the server: each message goes out with a reply subject naming the
batch, its sequence in it and what it is (`<inbox>.<id>.<flow>.fail.<n>.<op>.$FI`), and the server
stores it at once and answers only every `flow` messages (it sets `flow`, at most FLOW) with the batch
sequence stored so far. The batch is in "gap fail" mode: a message missing or refused ends it there,
so what a batch stored is always all of its messages up to one, in the order sent. A batch quiet for
IDLE_SECONDS is ended (its end stores nothing and is answered with the count stored), and the next
message opens another.

Each message is sent on behalf of an owner (the projector's: a game). Whatever a batch did not store
(refused, a gap, a lost connection, no answer within DEADLINE_SECONDS) is told to `lost` with the
owners of the messages not stored, once, when the batch is found over; the owner then stores them
some other way (the projector folds the game again from its log) and says so (`repaired`). Until
then the owner is barred: its messages are dropped, not sent, so that none is stored after one of
its own that was lost; and the next batch opens only once the last one's fate is known. So each
owner's messages are stored in the order sent, with no gap.
"""
import asyncio
import contextlib
import secrets
from collections import deque
from collections.abc import Callable

import msgspec
import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import Header

from zioncheck.services.bus.publish import Message, publish_all

log = structlog.get_logger("fast_ingest")
STATUS = Header.STATUS.value   # the header of a status message (503: no stream takes the subject)

FLOW = 100               # the most messages the server may store between two of its answers
OUTSTANDING = 2          # answers a batch may be behind before sending waits for one
IDLE_SECONDS = 1.0       # a batch with nothing sent for this long is ended (the server drops one after 10 s)
DEADLINE_SECONDS = 5.0   # an answer awaited longer ends the batch, every message not known stored lost
REST_SECONDS = 1.0       # after a batch that could not be opened, messages are told lost at once this long

OPEN, ADD, END = 0, 1, 3      # the operation a reply subject names: the batch's first message, another,
PING = 4                      # its end (which stores nothing), and a request for the last answer again
NOT_ENABLED = 10205           # the server's err_code for a fast batch to a stream without allow_batched
UNKNOWN_BATCH = 10208         # and for a message of a batch it does not know (dropped, or another leader's)


class FlowAck(msgspec.Struct):
    """The server's answer: `seq`, the batch sequence stored up to ('ack'), or where a gap was ('gap')."""
    type: str = ""
    seq: int = 0
    msgs: int = 0


class Answer(msgspec.Struct):
    """A batch's end, `count` messages of it stored; or the error that refused the message it answers."""
    count: int = 0
    error: dict | None = None


_flow = msgspec.json.Decoder(FlowAck)
_answer = msgspec.json.Decoder(Answer)


class FastIngest:
    """One open fast batch at a time on `nc`, its messages owned by the callers that `add` them. `usable`
    turns False for good when the stream takes no fast batches (made before `allow_batched`)."""

    def __init__(self, nc: Client, lost: Callable[[set[str]], None]):
        self.nc, self.lost = nc, lost
        self.usable = True
        self.inbox = ""
        self.sub = None
        self.batch = ""               # the open batch's id, "" when none is open
        self.subject = ""             # a subject of the stream, for the batch's end and pings
        self.sent = 0                 # the open batch's last sequence sent
        self.stored = 0               # and the last known stored
        self.flow = 1
        self.pending: deque[tuple[int, str]] = deque()   # (sequence, owner) sent and not known stored
        self.opened: asyncio.Future | None = None        # the first answer of the batch being opened
        self.ending: asyncio.Future | None = None        # the answer to the open batch's end: its count
        self.answered = asyncio.Event()                   # set at each answer
        self.lock = asyncio.Lock()    # one open, send or end at a time
        self.idle: asyncio.TimerHandle | None = None
        self.ends: set[asyncio.Task] = set()
        self.barred: set[str] = set()   # owners told their messages were lost, not repaired yet
        self.rest_until = 0.0           # the loop's time until which no batch is opened
        self.last_sent = 0.0            # the loop's time of the last message sent

    async def settle(self, owner: str) -> None:
        """The fate of the owner's messages in the open batch known: the batch ended if it holds any (what
        was not stored told to `lost`, and the owner barred), so that the owner may store some other way
        without one of its messages in flight behind it."""
        if any(pending == owner for _, pending in self.pending):
            await self._end()

    def repaired(self, owner: str) -> None:
        """The owner stored what it lost some other way: its messages are sent again."""
        self.barred.discard(owner)

    async def add(self, owner: str, messages: list[Message]) -> int:
        """Send the owner's messages (subject, payload, headers each) into the open batch in order, opening
        one first if none is (or the last ended while this waited for room); what is not stored is told
        to `lost`. How many were sent: none while the owner is barred."""
        sent = 0
        async with self.lock:
            for subject, payload, headers in messages:
                if owner in self.barred:
                    break
                if not self.batch and asyncio.get_running_loop().time() < self.rest_until:
                    self._tell({owner}, "not sent: the last batch could not be opened", 0)
                    break
                self.subject = subject
                if self.batch:
                    await self._room()
                if owner in self.barred:
                    break
                if self.batch:
                    self.sent += 1
                    self.pending.append((self.sent, owner))
                    await publish_all(self.nc, [(subject, payload, headers)], self._reply(self.sent, ADD))
                else:
                    await self._open(owner, subject, payload, headers)
                sent += 1
            if sent:
                self._idle_later()
        return sent

    async def close(self) -> None:
        """End the open batch and wait for its answer (what was not stored is told to `lost`)."""
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None
        await self._end()
        await asyncio.gather(*self.ends, return_exceptions=True)
        if self.sub is not None:
            with contextlib.suppress(Exception):
                await self.sub.unsubscribe()
            self.sub = None

    def _reply(self, n: int, op: int) -> str:
        return f"{self.inbox}.{self.batch}.{FLOW}.fail.{n}.{op}.$FI"

    async def _open(self, owner: str, subject: str, payload: bytes, headers: dict[str, str] | None) -> None:
        if self.sub is None:
            self.inbox = self.nc.new_inbox()
            self.sub = await self.nc.subscribe(f"{self.inbox}.>", cb=self._on_answer)
        self.batch, self.sent, self.stored, self.flow = secrets.token_hex(8), 1, 0, 1
        self.pending.append((1, owner))
        self.opened = opened = asyncio.get_running_loop().create_future()
        await self.nc.publish(subject, payload, reply=self._reply(1, OPEN), headers=headers)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(opened, DEADLINE_SECONDS)
        if not opened.done():
            self._rest()
            self._over(0, "no answer to the batch's first message")

    def _rest(self) -> None:
        """No batch opened for REST_SECONDS: the server is away, or no stream takes the subject."""
        self.rest_until = asyncio.get_running_loop().time() + REST_SECONDS

    async def _room(self) -> None:
        """Wait while the batch is OUTSTANDING answers behind; ask once for the last answer again when one
        is late, and end the batch when none comes."""
        for ask in (True, False):
            while self.batch and self.sent - self.stored >= self.flow * OUTSTANDING:
                self.answered.clear()
                try:
                    await asyncio.wait_for(self.answered.wait(), DEADLINE_SECONDS / 2)
                except TimeoutError:
                    break
            else:
                return
            if ask:   # the ping names the last sequence sent, so that it makes no gap
                await self.nc.publish(self.subject, b"", reply=self._reply(self.sent, PING))
        self._over(self.stored, "no answer from the server")

    async def _end(self) -> None:
        async with self.lock:
            if not self.batch:
                return
            self.ending = ending = asyncio.get_running_loop().create_future()
            try:   # the end takes the next sequence and is not stored
                await self.nc.publish(self.subject, b"", reply=self._reply(self.sent + 1, END))
                await asyncio.wait_for(ending, DEADLINE_SECONDS)
            except Exception:  # noqa: BLE001 - not sent, or no answer: what was not acked is lost
                pass
            if self.batch:
                self._over(ending.result() if ending.done() else self.stored,
                           "" if ending.done() else "no answer to the batch's end")

    def _idle_later(self) -> None:
        """The batch ended IDLE_SECONDS after its last message: one timer, looked at when it is due."""
        loop = asyncio.get_running_loop()
        self.last_sent = loop.time()
        if self.idle is None:
            self.idle = loop.call_later(IDLE_SECONDS, self._end_soon)

    def _end_soon(self) -> None:
        loop = asyncio.get_running_loop()
        quiet = loop.time() - self.last_sent
        if quiet < IDLE_SECONDS:   # sent since: looked at again when that one has been quiet long enough
            self.idle = loop.call_later(IDLE_SECONDS - quiet, self._end_soon)
            return
        self.idle = None
        task = asyncio.ensure_future(self._end())
        self.ends.add(task)
        task.add_done_callback(self.ends.discard)

    async def _on_answer(self, msg: Msg) -> None:
        parts = msg.subject[len(self.inbox) + 1:].split(".")
        if len(parts) < 4 or parts[0] != self.batch:   # a batch over already
            return
        n = parts[3]   # the sequence of the message answered
        data = msg.data or b""
        if not data:   # a status alone: no stream takes the subject (503), or the like
            if self.opened is not None and not self.opened.done():
                self._rest()
            self._over(self.stored, f"no stream answered (status {(msg.headers or {}).get(STATUS, '')})")
            return
        try:
            if data.startswith(b'{"type"'):
                flow = _flow.decode(data)
                if flow.type == "ack":
                    self._stored(flow.seq)
                    self.flow = max(1, min(flow.msgs or self.flow, FLOW))
                    if self.opened is not None and not self.opened.done():
                        self.opened.set_result(None)
                    self.answered.set()
                return   # a gap: the batch's end comes next
            answer = _answer.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            self._over(self.stored, f"an answer not understood: {error}")
            return
        if answer.error:
            code = answer.error.get("err_code")
            self.usable = self.usable and code != NOT_ENABLED
            # a message refused (too large, say): every one before it stored, in gap-fail mode; a batch the
            # server does not know (a new leader, a batch it dropped): only what it acked is known stored
            known = int(n) - 1 if n.isdigit() and code != UNKNOWN_BATCH else self.stored
            self._over(min(known, self.sent), str(answer.error.get("description", "refused")))
        elif self.ending is not None:
            self._over(answer.count, "")
        else:
            self._over(answer.count, "a message of the batch went missing")

    def _stored(self, upto: int) -> None:
        self.stored = max(self.stored, upto)
        while self.pending and self.pending[0][0] <= upto:
            self.pending.popleft()

    def _over(self, count: int, why: str) -> None:
        """The open batch is over with its first `count` messages stored: the owners of any other are told,
        and whoever waits on it goes on."""
        self._stored(count)
        owners = {owner for _, owner in self.pending}
        self.pending.clear()
        for waiting in (self.opened, self.ending):
            if waiting is not None and not waiting.done():
                waiting.set_result(count)
        self.batch, self.opened, self.ending = "", None, None
        self.answered.set()
        if owners:
            self._tell(owners, why, count)

    def _tell(self, owners: set[str], why: str, stored: int) -> None:
        """Bar `owners` until each is repaired, and tell them lost."""
        self.barred |= owners
        log.warning("fast_batch_lost", why=why, owners=len(owners), stored=stored, usable=self.usable)
        self.lost(owners)
