"""A JetStream publish that waits for its ack, as `js.publish` does, at a fraction of its cost.

`js.publish` is a core request: a fresh token from the system's random source (a system call
each), a new task-bound wait with its own timer, and the ack read by `json.loads` into a
dataclass. Every command costs two such publishes (the sender's and the table's), and they were
a fifth of the table's CPU and a quarter of a sender's. Here the ack comes back through the
connection's own request inbox under a counter, the waits share one timer that fails the
overdue ones, and one msgspec decoder reads the ack.

It reaches into nats-py's request inbox (pinned to 2.16 in pyproject.toml); a client without
one falls back to `request`. `write_together` reaches into its writer, so that what a service
publishes in one turn of its event loop costs one system call; `publish_all` into its buffer, to
frame many messages at once.
"""
import asyncio
import itertools
import os
import secrets
import time
import types
from collections import deque
from dataclasses import dataclass, field

import msgspec
from nats.aio.client import Client
from nats.errors import NoRespondersError, TimeoutError
from nats.js import JetStreamContext
from nats.js.errors import APIError, NoStreamResponseError


class _ApiError(msgspec.Struct):
    code: int
    err_code: int | None = None
    description: str = ""


class Stored(msgspec.Struct):
    """The part of JetStream's answer to a publish that is read: the stored sequence (`duplicate` when
    a message with its Msg-Id was stored already, at `seq`), or the error; for an atomic batch's
    commit, the sequence of its last message and how many it stored."""
    seq: int = 0
    duplicate: bool = False
    count: int = 0
    error: _ApiError | None = None


_ack_decoder = msgspec.json.Decoder(Stored)


Message = tuple[str, bytes, dict[str, str] | None]   # subject, payload, headers


class _Acks:
    """One connection's acks outstanding: each under a token of its own in the request inbox, with
    the time it is overdue; one timer at a time, at the oldest, fails the overdue ones."""

    def __init__(self, nc: Client):
        self.nc = nc
        self.tokens = itertools.count()
        self.due: deque[tuple[float, str, asyncio.Future]] = deque()   # oldest first: one timeout for all
        self.timer: asyncio.TimerHandle | None = None

    async def request(self, subject: str, payload: bytes, timeout: float, headers: dict[str, str] | None):
        """Publish with a reply subject of the connection's request inbox and wait for the reply (a
        TimeoutError once `timeout` has passed)."""
        reply, = await self.requests([(subject, payload, headers)], timeout)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    async def requests(self, messages: list[Message], timeout: float) -> list:
        """Publish each (subject, payload, headers) at once, each with a reply subject of its own, then wait
        for every reply: the replies in order, each one that failed as its exception (a TimeoutError once
        `timeout` has passed). No task is made for any."""
        nc = self.nc
        if not nc._resp_sub_prefix:
            await nc._init_request_sub()
        loop = asyncio.get_running_loop()
        prefix = nc._resp_sub_prefix.decode()
        waiting: list[tuple[str, asyncio.Future]] = []
        try:
            for subject, payload, headers in messages:
                token = f"a{next(self.tokens)}"
                future = loop.create_future()
                nc._resp_map[token] = future
                self.due.append((time.monotonic() + timeout, token, future))
                waiting.append((token, future))
                if self.timer is None:
                    self.timer = loop.call_later(timeout, self._expire)
                await nc.publish(subject, payload, reply=prefix + token, headers=headers)
            replies = []
            for _, future in waiting:
                try:
                    replies.append(await future)
                except Exception as error:  # noqa: BLE001 - each message's own outcome, told to its caller
                    replies.append(error)
            return replies
        finally:
            for token, future in waiting:
                nc._resp_map.pop(token, None)
                if not future.done():   # a publish failed: nobody waits for this reply any more
                    future.cancel()

    def _expire(self) -> None:
        now = time.monotonic()
        due = self.due
        while due and (due[0][2].done() or due[0][0] <= now):
            _, _, future = due.popleft()
            if not future.done():
                future.set_exception(TimeoutError())
        self.timer = asyncio.get_running_loop().call_later(due[0][0] - now, self._expire) if due else None


async def publish_all(nc: Client, messages: list[Message], reply: str = "") -> None:
    """Core publishes of `messages` (each with `reply`, if given), framed here and put in the connection's
    buffer at once: nats-py frames a message's headers through checks of each, and a publish at a time
    (a projector's views, 1.5 KB each with one header: 9.8 us of CPU a view through `publish`, 3.7 us
    here; docs/scaling.md). Header names and values are the caller's own, with no line breaks. Where the
    connection is not up, or a payload is over the server's limit, nats-py's `publish` sends each (its
    buffering while reconnecting, its errors)."""
    send = getattr(nc, "_send_command", None)
    if send is None or not nc.is_connected or nc.is_draining_pubs or \
            any(len(payload) > nc._max_payload for _, payload, _ in messages):
        for subject, payload, headers in messages:
            await nc.publish(subject, payload, reply=reply, headers=headers)
        return
    frames = []
    for subject, payload, headers in messages:
        if headers:
            head = ("NATS/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n").encode()
            frames.append(b"HPUB %b %b %d %d\r\n%b%b\r\n" % (subject.encode(), reply.encode(), len(head),
                                                               len(head) + len(payload), head, payload))
        else:
            frames.append(b"PUB %b %b %d\r\n%b\r\n" % (subject.encode(), reply.encode(), len(payload), payload))
    nc.stats["out_msgs"] += len(messages)
    nc.stats["out_bytes"] += sum(len(payload) for _, payload, _ in messages)
    await send(b"".join(frames))
    if nc._flush_queue is not None and nc._flush_queue.empty():
        await nc._flush_pending()


def write_together(nc: Client) -> None:
    """What the connection's tasks publish in one turn of the event loop goes out in one socket write.

    nats-py's writer (its flusher task) wakes at a turn's first publish and writes at once, often
    before the turn's other handlers publish theirs: a service answering many deliveries in a turn
    made a system call for nearly each. Here the writer lets the turn finish first. Set on the
    connection itself, so it holds across reconnects (nats-py starts `nc._flusher()` again)."""
    if "_flusher" in vars(nc):
        return
    nc._flusher = types.MethodType(_flusher, nc)  # type: ignore[method-assign]
    running = nc._flusher_task
    if running is not None and not running.done():
        running.cancel()
        nc._flusher_task = asyncio.get_running_loop().create_task(nc._flusher())


async def _flusher(self: Client) -> None:
    """nats-py 2.16's Client._flusher, with one yield to the event loop before each write."""
    while self.is_connected and not self.is_connecting:
        future: asyncio.Future = await self._flush_queue.get()
        await asyncio.sleep(0)   # the rest of this turn's publishes join the write
        try:
            if self._pending_data_size > 0:
                self._transport.writelines(self._pending[:])
                self._pending = []
                self._pending_data_size = 0
                await self._transport.drain()
        except OSError as error:
            await self._error_cb(error)
            await self._process_op_err(error)
            break
        except (asyncio.CancelledError, RuntimeError, AttributeError):
            break
        finally:
            if not future.done():
                future.set_result(None)


class ConnectionLost(TimeoutError):
    """The connection to the server was lost while a request waited for its answer: the answer will not
    come, so the request fails at once rather than at its timeout (a TimeoutError, as one that never came).
    A sender with an idempotency key sends again as soon as it likes."""

    def __str__(self) -> str:
        return "nats: the connection was lost before the answer came"


def fail_pending(nc: Client) -> int:
    """Fail every request of the connection still waiting for its answer (nats-py's and this module's, which
    share its request inbox) with ConnectionLost: called when the connection is lost, since nats-py lets
    them wait out their timeouts. How many it failed."""
    failed = 0
    for future in list(getattr(nc, "_resp_map", {}).values()):
        if not future.done():
            future.set_exception(ConnectionLost())
            failed += 1
    return failed


def _acks(nc: Client) -> _Acks | None:
    """The connection's acks outstanding (None for a client without nats-py's request inbox)."""
    found = getattr(nc, "_zc_acks", None)
    if found is None and hasattr(nc, "_resp_map") and hasattr(nc, "_init_request_sub"):
        found = nc._zc_acks = _Acks(nc)
    return found


async def request(nc: Client, subject: str, payload: bytes, timeout: float,
                  headers: dict[str, str] | None = None):
    """A core request and its reply message, the cheap way (nats-py's TimeoutError without one;
    NoRespondersError when nobody listens)."""
    acks = _acks(nc)
    if acks is None:
        return await nc.request(subject, payload, timeout=timeout, headers=headers)
    reply = await acks.request(subject, payload, timeout, headers)
    if reply.headers and reply.headers.get("Status") == "503" and not reply.data:
        raise NoRespondersError
    return reply


def _stored(reply) -> Stored:
    """The stored sequence in a stream's answer to a publish, or the error it says, raised."""
    if reply.headers and reply.headers.get("Status") == "503":   # no responders: no stream takes it
        raise NoStreamResponseError
    ack = _ack_decoder.decode(reply.data)
    if ack.error is not None:
        raise APIError.from_error(msgspec.structs.asdict(ack.error))
    return ack


async def publish_stored(js: JetStreamContext, subject: str, payload: bytes,
                         headers: dict[str, str] | None = None) -> int:
    """Publish and wait until a stream stored it; its stream sequence. Raises what `js.publish`
    raises: NoStreamResponseError when no stream takes the subject, an APIError (BadRequestError
    for a refused expectation, with its err_code) when the stream refuses it, and nats-py's
    TimeoutError when no ack comes in the context's timeout."""
    return (await _store_one(js, subject, payload, headers)).seq


async def store_each(js: JetStreamContext, messages: list[Message]) -> list:
    """Publish every (subject, payload, headers) at once and wait until a stream stored each: its stream
    sequence, or the exception `publish_stored` would have raised for it, in order. No task is made for
    any, so a service that stores several things at once (a game's views and feed: services/projector)
    pays for their acks alone."""
    acks = _acks(js._nc)
    if acks is None:
        return await asyncio.gather(*(publish_stored(js, *message) for message in messages), return_exceptions=True)
    stored = []
    for reply in await acks.requests(messages, js._timeout):
        try:
            if isinstance(reply, BaseException):
                raise reply
            stored.append(_stored(reply).seq)
        except Exception as error:  # noqa: BLE001 - each message's own outcome, told to its caller
            stored.append(error)
    return stored


async def _store_one(js: JetStreamContext, subject: str, payload: bytes, headers: dict[str, str] | None) -> Stored:
    nc = js._nc
    acks = _acks(nc)
    try:
        if acks is None:
            reply = await nc.request(subject, payload, timeout=js._timeout, headers=headers)
        else:
            reply = await acks.request(subject, payload, js._timeout, headers)
    except NoRespondersError:
        raise NoStreamResponseError from None
    return _stored(reply)


# A group commit takes at most this many appends: well under the server's ceiling of a batch
# (1,000 messages), and a batch refused is sent again one by one.
GROUP_MOST = 200
# A group commit is made of at least this many appends; fewer waiting are sent alone, at once. An atomic
# batch costs the server far more CPU than its messages sent alone (it stages each batch apart), so it
# pays only where it saves many syncs. ZIONCHECK_GROUP_COMMIT sets it: 0 sends every append alone.
GROUP_LEAST = int(os.environ.get("ZIONCHECK_GROUP_COMMIT", "") or 8)


@dataclass
class _Waiting:
    subject: str
    payload: bytes
    headers: dict[str, str]
    stored: asyncio.Future


@dataclass
class _Group:
    """One stream's appends waiting for its next group commit, and whether one is being sent."""
    waiting: list[_Waiting] = field(default_factory=list)
    sending: bool = False
    atomic: bool = True   # False once the stream said it takes no atomic batches (a store not moved yet)


ATOMIC_DISABLED = 10174   # the server's err_code for an atomic batch to a stream that does not allow them


_batch_prefix = secrets.token_hex(6)   # atomic batch ids: unique to this process, then a counter
_batch_ids = itertools.count()


async def publish_grouped(js: JetStreamContext, stream: str, subject: str, payload: bytes,
                          headers: dict[str, str] | None = None) -> int:
    """publish_stored, sharing the stream's synced write with the appends of other games made meanwhile.

    While one round of `stream`'s appends is on its way, the appends that come are kept; when it is
    stored they go together as the next: at least GROUP_LEAST of them as one JetStream atomic batch
    (the stream allows them), one write and one sync for all, each message keeping its own headers,
    expectations and Msg-Id; fewer, each alone at once. The server stores a batch whole or not at all:
    when it refuses one (a message's expectation failed, a duplicate Msg-Id, a timeout), every
    append of it is sent again on its own, so each gets the answer publish_stored would have given it.
    """
    return (await store_grouped(js, stream, subject, payload, headers)).seq


async def store_grouped(js: JetStreamContext, stream: str, subject: str, payload: bytes,
                        headers: dict[str, str] | None = None) -> Stored:
    """publish_grouped's whole answer: the sequence, and whether it was a duplicate of a Msg-Id stored."""
    groups = _groups(js._nc)
    group = groups.get(stream)
    if group is None:
        group = groups[stream] = _Group()
    stored = asyncio.get_running_loop().create_future()
    group.waiting.append(_Waiting(subject, payload, headers or {}, stored))
    if not group.sending:
        group.sending = True
        asyncio.ensure_future(_send_groups(js, group))
    return await stored


def _groups(nc: Client) -> dict[str, _Group]:
    found = getattr(nc, "_zc_groups", None)
    if found is None:
        found = nc._zc_groups = {}
    return found


async def _send_groups(js: JetStreamContext, group: _Group) -> None:
    try:
        while group.waiting:
            members, group.waiting = group.waiting[:GROUP_MOST], group.waiting[GROUP_MOST:]
            members = [m for m in members if not m.stored.done()]   # its caller gave up waiting
            if GROUP_LEAST and len(members) >= max(GROUP_LEAST, 2) and group.atomic:
                try:
                    last = await _commit(js, members)
                except APIError as error:  # none of it was stored: each goes again alone, for its own answer
                    group.atomic = error.err_code != ATOMIC_DISABLED
                except Exception:
                    pass
                else:
                    first = last - len(members) + 1
                    for offset, member in enumerate(members):
                        if not member.stored.done():
                            member.stored.set_result(Stored(seq=first + offset))
                    continue
            await asyncio.gather(*(_alone(js, member) for member in members))
    finally:
        group.sending = False


async def _alone(js: JetStreamContext, member: _Waiting) -> None:
    try:
        stored = await _store_one(js, member.subject, member.payload, member.headers or None)
    except Exception as error:
        if not member.stored.done():
            member.stored.set_exception(error)
    else:
        if not member.stored.done():
            member.stored.set_result(stored)


async def _commit(js: JetStreamContext, members: list[_Waiting]) -> int:
    """Send `members` as one atomic batch; the stream sequence of its last message."""
    nc = js._nc
    batch = f"{_batch_prefix}{next(_batch_ids)}"
    for number, member in enumerate(members[:-1], 1):
        await nc.publish(member.subject, member.payload,
                         headers=member.headers | {"Nats-Batch-Id": batch, "Nats-Batch-Sequence": str(number)})
    last = members[-1]
    headers = last.headers | {"Nats-Batch-Id": batch, "Nats-Batch-Sequence": str(len(members)),
                              "Nats-Batch-Commit": "1"}
    acks = _acks(nc)
    if acks is None:
        reply = await nc.request(last.subject, last.payload, timeout=js._timeout, headers=headers)
    else:
        reply = await acks.request(last.subject, last.payload, js._timeout, headers)
    ack = _stored(reply)
    if ack.count != len(members):
        raise ValueError(f"an atomic batch of {len(members)} stored {ack.count}")
    return ack.seq
