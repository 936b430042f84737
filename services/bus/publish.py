"""A JetStream publish that waits for its ack, as `js.publish` does, at a fraction of its cost.

`js.publish` is a core request: a fresh token from the system's random source (a system call
each), a new task-bound wait with its own timer, and the ack read by `json.loads` into a
dataclass. Every command costs two such publishes (the sender's and the table's), and they were
a fifth of the table's CPU and a quarter of a sender's. Here the ack comes back through the
connection's own request inbox under a counter, the waits share one timer that fails the
overdue ones, and one msgspec decoder reads the ack.

It reaches into nats-py's request inbox (pinned to 2.16 in pyproject.toml); a client without
one falls back to `request`.
"""
import asyncio
import itertools
import time
from collections import deque

import msgspec
from nats.aio.client import Client
from nats.errors import NoRespondersError, TimeoutError
from nats.js import JetStreamContext
from nats.js.errors import APIError, NoStreamResponseError


class _ApiError(msgspec.Struct):
    code: int
    err_code: int | None = None
    description: str = ""


class _PubAck(msgspec.Struct):
    """The part of JetStream's answer to a publish that is read: the stored sequence, or the error."""
    seq: int = 0
    error: _ApiError | None = None


_ack_decoder = msgspec.json.Decoder(_PubAck)


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
        nc = self.nc
        if not nc._resp_sub_prefix:
            await nc._init_request_sub()
        token = f"a{next(self.tokens)}"
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        nc._resp_map[token] = future
        self.due.append((time.monotonic() + timeout, token, future))
        if self.timer is None:
            self.timer = loop.call_later(timeout, self._expire)
        try:
            await nc.publish(subject, payload, reply=nc._resp_sub_prefix.decode() + token, headers=headers)
            return await future
        finally:
            nc._resp_map.pop(token, None)
            if not future.done():   # the publish failed: nobody waits for this reply any more
                future.cancel()

    def _expire(self) -> None:
        now = time.monotonic()
        due = self.due
        while due and (due[0][2].done() or due[0][0] <= now):
            _, _, future = due.popleft()
            if not future.done():
                future.set_exception(TimeoutError())
        self.timer = asyncio.get_running_loop().call_later(due[0][0] - now, self._expire) if due else None


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


def _stored(reply) -> _PubAck:
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
    nc = js._nc
    acks = _acks(nc)
    try:
        if acks is None:
            reply = await nc.request(subject, payload, timeout=js._timeout, headers=headers)
        else:
            reply = await acks.request(subject, payload, js._timeout, headers)
    except NoRespondersError:
        raise NoStreamResponseError from None
    return _stored(reply).seq
