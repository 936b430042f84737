"""The game log in JetStream: reading a game's batches and appending as its single writer.

A game's log is in its partition's stream (ZC_LOG_<p>, on zc.log.<p>.<game>.<kind>;
services/bus/topology.py). Every append names the log's last sequence for the game's subjects
(Nats-Expected-Last-Subject-Sequence over zc.log.<p>.<game>.*), so a second writer
cannot fork the log, and a Msg-Id, so a retried append is recognised as already done. The appends
of many games made at once share one synced write, as an atomic batch (publish.publish_grouped),
each keeping its own guard and Msg-Id.
"""
import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import msgspec
import nats.errors
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import RawStreamMsg
from nats.js.errors import BadRequestError, NotFoundError
from nats.js.kv import KeyValue

from zioncheck.contracts.events import GameAbandoned, GameEnded, GameStarted, HandEnded, PauseEnded
from zioncheck.contracts.log import Batch, NotABatch, encode, readable
from zioncheck.domain import GameState, fold
from zioncheck.domain.refusal import refusal_of
from zioncheck.domain.timers import deadline
from zioncheck.services.bus.publish import publish_grouped
from zioncheck.services.bus.topology import (
    BATCH_HEADER,
    DUE_HEADER,
    SCHEDULE_HEADER,
    commands_stream,
    game_of,
    layout,
    log_stream,
    log_subject,
    schedule_subject,
)
from zioncheck.services.observability import READS_BEHIND, skipped

WRONG_LAST_SEQUENCE = 10071
STREAM_NOT_FOUND = 10059


class LogConflict(Exception):
    """Someone else appended to this game's log: reload it and decide again."""


@dataclass
class LoggedGame:
    game: str
    partition: int = 0       # the game's partition (topology.partition_of)
    stream: str = field(init=False)    # the game's partition's log stream
    subject: str = field(init=False)   # zc.log.<p>.<game>.*, every batch of the game
    state: GameState = field(default_factory=GameState)
    last_seq: int = 0        # stream sequence of the game's last log message
    applied: int = 0         # commands-stream sequence of the last command applied
    batches: int = 0
    refusals: int = 0        # batches that are a refusal alone (the table logs at most LOGGED_REFUSALS)
    in_order_since: int | None = None  # the table's delivery epoch in which it last read the commands stream
    # The table's notes on the game's deadline (R19-R21), its own clock's seconds since the epoch:
    due_at: float | None = None    # when the deadline its log calls for falls due (None: not noted here)
    timer_at: float | None = None  # when the schedule it set fires (None: none it knows to be pending)

    def __post_init__(self) -> None:
        self.stream, self.subject = log_stream(self.partition), log_subject(self.partition, self.game)


async def read_batches(js: JetStreamContext, game: str, kind: str = "*", at_least: int | None = None,
                       reader: str = "house", unreadable: list[NotABatch] | None = None) -> list[tuple[int, Batch]]:
    """Every batch of a game's log (or of one kind) with its stream sequence, oldest first: at least up
    to stream sequence `at_least` (read your writes), by default the last the stream's leader holds. A
    message that is no batch is left out (`batches`)."""
    found_layout = await layout(js)
    stream, subject = found_layout.log_stream(game), found_layout.log_subject(game, kind)
    if at_least is None:
        at_least = await last_seq(js, stream, subject)
    found, _ = await read_stored(js, stream, subject, at_least=at_least)
    return batches(found, game, reader, unreadable)


def batches(found: list[tuple[int, bytes]], game: str, reader: str,
            unreadable: list[NotABatch] | None = None) -> list[tuple[int, Batch]]:
    """The log batches among a game's stored messages, each message that is none left out: added to
    `unreadable` when the caller tells them itself (a command's output), else logged and counted as
    `reader`'s (observability.skipped). The game goes on past such a message as if it were not there."""
    found_batches, junk = readable(found)
    for seq, why in junk:
        if unreadable is not None:
            unreadable.append(NotABatch(seq, why))
        else:
            skipped(reader, "log", game, why, seq=seq)
    return found_batches


# Read your writes: the rule every reader of a stream keeps. On a replicated stream any replica may
# answer a direct get, and one that has not yet stored the newest messages answers without them. So a
# reader that knows a message exists (it was delivered it, it appended it, a request named it, or the
# stream's leader said it is the last) reads at least up to it (`read_stored`'s `at_least`): an
# answer that stops short is asked again, READ_PAUSE later and doubling, and when the replica has
# not caught up in the read's timeout the read raises Behind, so that its handler acks nothing and
# the message is delivered again. Gets that name no sequence (`last_seq`, `ended`, a bucket's value read
# `from_leader`) go to the leader: what a reader told nothing decides from, it reads where it was written.
READ_PAUSE = 0.005


class Behind(Exception):
    """A replica answered a read without a message the reader knows exists, and did not catch up in time."""


async def last_seq(js: JetStreamContext, stream: str, subject: str) -> int:
    """The stream sequence of the last message on `subject` (a filter), as the stream's leader holds it
    (0 for none): what a reader that was told nothing else reads up to."""
    try:
        return (await js.get_msg(stream, subject=subject)).seq or 0
    except NotFoundError:
        return 0


def from_leader(kv: KeyValue) -> KeyValue:
    """The bucket `kv` read from its stream's leader: a plain get (STREAM.MSG.GET), which only the leader
    answers, where nats-py's own reads of a bucket made with direct gets may be answered by a replica behind.
    What a reader that decides from a value and was told nothing of it reads (a write's compare-and-set
    guard, standings already published)."""
    return KeyValue(name=kv._name, stream=kv._stream, pre=kv._pre, js=kv._js, direct=False)


# The most messages one batched direct get of a page asks for (read_some: the gateway's and history's pages).
DIRECT_BATCH = 1000
# The most one batched direct get of a whole read asks for (read_stored): a game's whole log in one answer,
# however long its game ran; the rest, if any, comes in the next request. The server also ends an answer
# at its max_pending bytes (64 MB by default), and the read then goes on where it ended.
WHOLE_BATCH = 10_000


async def read_stored(js: JetStreamContext, stream: str, subject: str, after: int = 0, sequences: bool = True,
                      timeout: float = 10.0, whole: bool = False, at_least: int = 0) -> tuple[list, int]:
    """Every message of `stream` on `subject` (a filter) after sequence `after`, oldest first, as
    (sequence, data), and the last one's sequence (`after` when there is none). With `whole`, each
    message as a RawStreamMsg instead: its subject, sequence, time, headers and data. At least up to
    sequence `at_least`, which the reader knows is on the subject: Behind when no replica that answers
    has it within `timeout` (read your writes, above)."""
    found, last = await _read_stored(js, stream, subject, after, sequences, timeout, whole)
    if last >= at_least or not at_least:
        return found, last
    deadline, pause = time.monotonic() + timeout, READ_PAUSE
    while last < at_least:
        if time.monotonic() + pause > deadline:
            raise Behind(f"{stream} answered {subject} up to {last}, not {at_least}, for {timeout:g} s")
        READS_BEHIND.inc()
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.5)
        more, last = await _read_stored(js, stream, subject, last, sequences, timeout, whole)
        found += more
    return found, last


async def read_some(js: JetStreamContext, stream: str, subject: str, after: int = 0, most: int = DIRECT_BATCH,
                    timeout: float = 10.0, whole: bool = False) -> tuple[list, int]:
    """At most `most` messages of `stream` on `subject` after sequence `after`, oldest first, as (sequence,
    data), and the last one's sequence (`after` when there is none): one batched direct get, a page of a
    long read. Fewer than `most` means there were no more. With `whole`, each message as a RawStreamMsg
    instead (its time too)."""
    return await _read_stored(js, stream, subject, after, True, timeout, whole, most=max(1, min(most, DIRECT_BATCH)))


async def _read_stored(js: JetStreamContext, stream: str, subject: str, after: int, sequences: bool,
                       timeout: float, whole: bool, most: int = 0) -> tuple[list, int]:
    """read_stored's one pass, as the replica that answers holds the stream; with `most`, that many
    messages at most, in one request.

    Batched direct gets (NATS 2.11+, ADR-31): each request is answered by up to WHOLE_BATCH
    messages (`most` for a page) and a closing `204 EOB` status that names the last sequence
    sent and how many more match. With `sequences=False` the messages come without headers,
    the cheapest way (each pair's sequence is then 0; the last sequence is still known). The
    server (2.15) then counts as pending what matched when the answer began, the messages it
    sent included (or, where the stream grew meanwhile, what is left after them): so an answer
    that holds fewer than it asked for, and no fewer than its pending, held all there was, and
    a read of a whole log takes one request. With headers the server counts down as it sends,
    and a pending of 0 ends the read. A server without batched gets answers
    each request with one plain message, so that still reads everything; a server that
    ignores `no_hdr` (an option marked deprecated) sends headers, which are read as with
    `sequences=True`.
    """
    nc = js._nc
    inbox = nc.new_inbox()
    found: list[tuple[int, bytes]] = []
    last = after
    loop = asyncio.get_running_loop()
    done: asyncio.Future[bool] = loop.create_future()

    headed = sequences   # messages come with headers: the server counts down what is pending as it sends

    def receive(msg: Msg) -> None:
        nonlocal last, headed
        headers = msg.headers
        status = headers.get("Status") if headers else None
        if status is None:
            if headers:
                headed = True
                last = int(headers["Nats-Sequence"])
                found.append(_stored(msg, last) if whole else (last, msg.data))
                if "Nats-Num-Pending" not in headers and not done.done():  # a server without batched gets
                    done.set_result(True)
            else:
                found.append((0, msg.data))
        elif not done.done():
            if status == "204":    # the end of this batch: more follow while some are pending
                last = int(headers.get("Nats-Last-Sequence") or last)
                pending, sent = int(headers.get("Nats-Num-Pending") or 0), len(found) - before
                done.set_result(pending > 0 if headed else pending > sent or sent >= asked)
            elif status == "404":  # nothing (more) on the subject
                done.set_result(False)
            elif status == "503":  # no stream answers direct gets
                done.set_exception(NoResponders())
            else:
                done.set_exception(BadRequestError(code=int(status), description=headers.get("Description", "")))

    sub = await nc.subscribe(inbox)
    if isinstance(getattr(sub, "_pending_queue", None), asyncio.Queue):
        sub._pending_queue = _Handed(sub, receive)  # type: ignore[assignment]
    else:  # a nats-py that keeps its messages otherwise: its own callback, one task switch a message
        await sub.unsubscribe()
        sub = await nc.subscribe(inbox, cb=_awaitable(receive))
    if not sequences:
        _BareMessages.route(nc, sub._id, lambda data: found.append((0, data)))
    api = f"{js._prefix}.DIRECT.GET.{stream}"
    asked = most or WHOLE_BATCH
    try:
        more = True
        while more:
            before = len(found)
            request = {"seq": last + 1, "next_by_subj": subject, "batch": asked}
            if not sequences:
                request["no_hdr"] = True
            await nc.publish(api, _request_encoder.encode(request), reply=inbox)
            more = await asyncio.wait_for(done, timeout) and not most
            done = loop.create_future()
    except NoResponders:
        return await _read_one_by_one(js, stream, subject, after, whole, most)
    finally:
        _BareMessages.unroute(nc, sub._id)
        await sub.unsubscribe()
    return found, last


class _BareMessages:
    """While a read without headers runs on a connection, messages without headers to its
    subscription skip nats-py's handling of a message (statistics, a Msg, its queue): their data
    goes straight to the read. Put in place by the first read on the connection, taken away by
    the last, so that no other message pays for it."""

    def __init__(self, nc):
        self.nc, self.library, self.routes = nc, nc._process_msg, {}

    @classmethod
    def route(cls, nc, sid: int, take: Callable[[bytes], None]) -> None:
        bare = nc.__dict__.get("_bare_messages")
        if bare is None:
            bare = nc._bare_messages = cls(nc)
            nc._process_msg = bare.process_msg
        bare.routes[sid] = take

    @staticmethod
    def unroute(nc, sid: int) -> None:
        bare = nc.__dict__.get("_bare_messages")
        if bare is not None:
            bare.routes.pop(sid, None)
            if not bare.routes:
                nc._process_msg = bare.library
                del nc._bare_messages

    async def process_msg(self, sid: int, subject: bytes, reply: bytes, data: bytes, headers: bytes) -> None:
        take = self.routes.get(sid)
        if take is not None and not headers:
            take(data)
        else:
            await self.library(sid, subject, reply, data, headers)


class NoResponders(Exception):
    pass


class _Handed:
    """In place of a subscription's queue: nats-py's reader hands each message straight to `receive`,
    with no queue and no task switch between them, a third of the time a read took."""

    def __init__(self, sub, receive: Callable[[Msg], None]):
        self.sub, self.receive = sub, receive

    def put_nowait(self, msg: Msg) -> None:
        self.sub._pending_size -= len(msg.data)
        self.receive(msg)

    def qsize(self) -> int:
        return 0

    def empty(self) -> bool:
        return True

    def task_done(self) -> None:
        pass

    async def join(self) -> None:
        pass


def _awaitable(receive: Callable[[Msg], None]) -> Callable[[Msg], Awaitable[None]]:
    async def call(msg: Msg) -> None:
        receive(msg)
    return call


async def _read_one_by_one(js: JetStreamContext, stream: str, subject: str, after: int,
                           whole: bool = False, most: int = 0) -> tuple[list, int]:
    """No stream, or one made before direct gets were on (until `ensure_topology` turns them on):
    one get a message, from the stream's leader (`most` of them at most, when given)."""
    found: list = []
    last = after
    while not most or len(found) < most:
        try:
            msg = await js.get_msg(stream, seq=last + 1, subject=subject, next=True)
        except NotFoundError:
            return found, last
        last = msg.seq or last + 1
        found.append(msg if whole else (last, msg.data or b""))
    return found, last


def _stored(msg: Msg, seq: int) -> RawStreamMsg:
    """A message a direct get answered, as the stream stored it (what nats-py's get_msg gives)."""
    headers = msg.headers or {}
    stamp = headers.get("Nats-Time-Stamp")
    return RawStreamMsg(subject=headers.get("Nats-Subject"), seq=seq, data=msg.data, headers=headers,
                        time=RawStreamMsg._parse_utc_iso(stamp) if stamp else None)


_request_encoder = msgspec.json.Encoder()


async def subject_counts(js: JetStreamContext, stream: str, subjects: str, timeout: float = 30.0) -> dict[str, int]:
    """How many messages `stream` holds on each subject matching `subjects` (empty for no stream).

    The server answers a stream's info with at most 100,000 subjects and says how many there are in
    all (`total`); nats-py's stream_info stops at the first answer, so the rest are asked for by
    `offset`, until every one has come."""
    counts: dict[str, int] = {}
    while True:
        request = _request_encoder.encode({"subjects_filter": subjects, "offset": len(counts)})
        reply = json.loads((await js._nc.request(f"{js._prefix}.STREAM.INFO.{stream}", request, timeout=timeout)).data)
        if "error" in reply:
            if reply["error"].get("err_code") == STREAM_NOT_FOUND:
                return {}
            raise BadRequestError(code=reply["error"].get("code"), err_code=reply["error"].get("err_code"),
                                  description=reply["error"].get("description", ""))
        before = len(counts)
        counts.update(reply["state"].get("subjects") or {})
        if len(counts) == before or len(counts) >= reply.get("total", 0):
            return counts


async def unscheduled(js: JetStreamContext, over: set[str], logged: set[str] | None = None,
                      reader: str = "house") -> list[str]:
    """The games with a log (`logged`, when the caller has counted them: stored_games) and no schedule
    pending (topology.schedule_subject), leaving out `over`, whose last hand batch does not end the
    game: those whose deadline, if their log calls for one, has no schedule to come. Adds the games it
    finds over to `over`. The games' timer subjects read a partition (a message or so a game), one
    direct get a game left. A game whose timer subject holds last a message that is no schedule has none
    pending (the server drops a schedule once another message is stored on its subject): said, once it
    is found not over (observability.skipped)."""
    where = await layout(js)
    logged = set(await stored_games(js)) if logged is None else logged
    pending: set[str] = set()
    junk: dict[str, RawStreamMsg] = {}
    for p in range(where.partitions):
        found, _ = await read_stored(js, commands_stream(p), schedule_subject(p, "*"), whole=True)
        last = {game_of(msg.subject or ""): msg for msg in found}
        for game, msg in last.items():
            if is_schedule(msg.headers):
                pending.add(game)
            else:
                junk[game] = msg
    found = []
    for game in sorted(logged - pending - over):
        is_over = await ended(js, where.of(game), game, reader)
        if is_over:
            over.add(game)
        elif is_over is not None:
            found.append(game)
            if game in junk:
                skipped(reader, "timer", junk[game].subject or "", "the game's timer subject holds last a message "
                        "that is no schedule: its deadline has none pending", junk[game].seq or 0)
    return found


def is_schedule(headers: dict | None) -> bool:
    """Whether a message on a game's timer subject, by its headers, is a schedule (the table's): one stored
    with no schedule header is none, and stops the server's schedule stored before it."""
    return bool((headers or {}).get(SCHEDULE_HEADER))


async def ended(js: JetStreamContext, partition: int, game: str, reader: str = "house") -> bool | None:
    """Whether the game's last hand batch ends it (None for a game with no log): one get, from the stream's
    leader (a replica behind would call a game that just ended in play, and one just removed still there).
    Where the last hand message is no batch, the last that is one says (the game's hand batches read)."""
    stream, hands = log_stream(partition), log_subject(partition, game, "hand")
    try:
        last = await js.get_msg(stream, subject=hands)
    except NotFoundError:
        return None
    found, _ = readable([(last.seq or 0, last.data or b"")])
    if not found:
        stored, _ = await read_stored(js, stream, hands, at_least=last.seq or 0)
        found = batches(stored, game, reader)[-1:]
        if not found:
            return None   # no hand batch at all: no game
    return any(isinstance(event, (GameEnded, GameAbandoned)) for event in found[0][1].events)


async def still_logged(js: JetStreamContext, game: str, seq: int, kind: str = "*") -> bool:
    """Whether the game's log holds its message `seq` (of `kind`) or a later one, as the stream's leader says:
    a writer of what is folded from a log asks it last, so that it writes nothing of a game the archiver took
    out of the hot streams meanwhile (its retention run: services/archiver)."""
    found = await layout(js)
    return seq > 0 and await last_seq(js, found.log_stream(game), found.log_subject(game, kind)) >= seq


async def holds(js: JetStreamContext, stream: str, subject: str) -> bool:
    """Whether `stream` holds a message on `subject`: one direct get, and where its replica says none, one
    get from the stream's leader (a replica behind has not stored what was just written)."""
    try:
        await js.get_msg(stream, subject=subject, direct=True)
    except NotFoundError:
        return bool(await last_seq(js, stream, subject))
    return True


async def schedule_pending(js: JetStreamContext, partition: int, game: str) -> bool:
    """Whether the game's deadline has a schedule pending in its partition's commands stream: the last
    message on its timer subject is a schedule (`is_schedule`)."""
    try:
        last = await js.get_msg(commands_stream(partition), subject=schedule_subject(partition, game), direct=True)
    except NotFoundError:
        return False
    return is_schedule(last.headers)


async def stalled_games(js: JetStreamContext, now: float) -> set[str]:
    """The games that have not moved past their deadline (`now`, seconds since the epoch): not over,
    their log calls for a deadline, none is pending, and the last batch is older than it."""
    stalled = set()
    for game in await unscheduled(js, set()):
        logged = await load(js, game)
        due = deadline(logged.state)
        if due is None or logged.state.game_over:
            continue
        last = await js.get_msg(logged.stream, seq=logged.last_seq)
        if last.time is not None and last.time.timestamp() + due.seconds < now:
            stalled.add(game)
    return stalled


def per_game(counts: dict[str, int]) -> dict[str, int]:
    """Counts by subject (subject_counts), summed by the game each subject names, in game order."""
    games: dict[str, int] = {}
    for subject, count in counts.items():
        games[game_of(subject)] = games.get(game_of(subject), 0) + count
    return dict(sorted(games.items()))


async def stored_games(js: JetStreamContext) -> dict[str, int]:
    """Every game with a log, and how many batches it holds, over every partition."""
    counts: dict[str, int] = {}
    for stream in (await layout(js)).log_streams():
        counts |= await subject_counts(js, stream, ">")
    return per_game(counts)


async def where(js: JetStreamContext, game: str) -> tuple[str, str]:
    """The game's log stream and the subject filter of all its batches."""
    found = await layout(js)
    return found.log_stream(game), found.log_subject(game)


async def last_message(js: JetStreamContext, game: str):
    """The game's last log message (raises NotFoundError for a game with no log)."""
    stream, subject = await where(js, game)
    return await js.get_msg(stream, subject=subject)


async def next_message(js: JetStreamContext, game: str, after: int):
    """The game's first log message after stream sequence `after` (NotFoundError when none)."""
    stream, subject = await where(js, game)
    return await js.get_msg(stream, seq=after + 1, subject=subject, next=True)


async def load(js: JetStreamContext, game: str, reader: str = "house") -> LoggedGame:
    """A game's state folded from its whole log, at least as far as the stream's leader holds it."""
    logged = LoggedGame(game=game, partition=(await layout(js)).of(game))
    await catch_up(js, logged, await last_seq(js, logged.stream, logged.subject), reader)
    return logged


async def catch_up(js: JetStreamContext, logged: LoggedGame, at_least: int = 0, reader: str = "house") -> None:
    """Fold the batches appended after this copy's last one (by another writer, or all of them), at
    least up to stream sequence `at_least`. A message that is no batch is stepped over (`batches`): the
    next append names the log's true last sequence, and the game goes on."""
    found, last = await read_stored(js, logged.stream, logged.subject, after=logged.last_seq, sequences=False,
                                    at_least=at_least)
    if not found:
        return
    decoded, junk = readable(found)
    if junk:   # something that is no batch: read again with sequences, to say where it stands
        found, last = await read_stored(js, logged.stream, logged.subject, after=logged.last_seq, at_least=at_least)
        decoded = batches(found, logged.game, reader)
    folded = [batch for _, batch in decoded]
    _advance(logged, last, folded, fold(logged.state, [event for batch in folded for event in batch.events]))


def _advance(logged: LoggedGame, last_seq: int, batches: list[Batch], state: GameState) -> None:
    """The copy moved on by `batches`, the last stored at `last_seq`; `state` is its state folded over them.
    `batches` leaves out what was stored that is no batch: neither applied nor counted (BATCH_HEADER)."""
    logged.state = state
    logged.last_seq = last_seq
    logged.applied = max([logged.applied, *(batch.cause for batch in batches)])
    logged.batches += len(batches)
    logged.refusals += sum(1 for batch in batches if refusal_of(batch.events))


async def append(js: JetStreamContext, logged: LoggedGame, batch: Batch, state: GameState | None = None,
                 due_at: float | None = None) -> None:
    """Append one batch as the game's next message, or raise LogConflict. `state`: the game's state
    folded over the batch, when the caller has it already (it is folded here otherwise); `due_at`: when
    the deadline the batch begins falls (DUE_HEADER)."""
    msg_id = f"{logged.game}:{batch.cause}"
    subject = logged.subject
    headers = {"Nats-Expected-Last-Subject-Sequence": str(logged.last_seq),
               "Nats-Expected-Last-Subject-Sequence-Subject": subject, "Nats-Msg-Id": msg_id,
               BATCH_HEADER: str(logged.batches + 1)}
    if due_at is not None:
        headers[DUE_HEADER] = f"{due_at:.3f}"
    try:
        seq = await publish_grouped(js, logged.stream, log_subject(logged.partition, logged.game, _kind(batch)),
                                    encode(batch), headers)
    except BadRequestError as error:
        if error.err_code != WRONG_LAST_SEQUENCE:
            raise
        # A retried append comes back as "wrong last sequence", not as a duplicate:
        # it is ours if the last message carries our Msg-Id.
        last = await js.get_msg(logged.stream, subject=subject)
        if (last.headers or {}).get("Nats-Msg-Id") != msg_id:
            raise LogConflict(f"game {logged.game}: the logged moved past sequence {logged.last_seq}") from None
        seq = last.seq
    _advance(logged, seq, [batch], fold(logged.state, batch.events) if state is None else state)


def due_at(headers: dict | None) -> float | None:
    """When the deadline a log message's batch began falls, as its DUE_HEADER says (None: it began none,
    or says it unreadably)."""
    try:
        return float((headers or {})[DUE_HEADER])
    except (KeyError, ValueError):
        return None


async def read_stamped(js: JetStreamContext, game: str, reader: str = "house") -> list[tuple[Batch, float | None]]:
    """Every batch of a game's log with the time of the deadline it began (`due_at`), oldest first, at
    least as far as the stream's leader holds it: what its views are folded from. A message that is no
    batch is left out (`batches`)."""
    stream, subject = await where(js, game)
    found, _ = await read_stored(js, stream, subject, whole=True, at_least=await last_seq(js, stream, subject))
    due = {msg.seq: due_at(msg.headers) for msg in found}
    return [(batch, due[seq]) for seq, batch in batches([(msg.seq, msg.data or b"") for msg in found], game, reader)]


HAND_BOUNDARIES = (GameStarted, HandEnded, PauseEnded, GameEnded)   # what the dealer and scoring follow


def _kind(batch: Batch) -> str:
    return "hand" if any(isinstance(e, HAND_BOUNDARIES) for e in batch.events) else "move"


async def first_stored_at(js: JetStreamContext, stream: str, subject: str, at: int,
                          timeout: float = 10.0) -> int | None:
    """The sequence of the first message of `stream` on `subject` (a filter) stored at or after `at`
    (nanoseconds since 1970, UTC), None when there is none: one direct get by time, where a read of a
    time range starts (`read_some` from the sequence before it). A stream that answers no direct get
    is read from its start (0)."""
    whole, part = divmod(at, 1_000_000_000)
    stamp = f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(whole))}.{part:09d}Z"
    request = _request_encoder.encode({"start_time": stamp, "next_by_subj": subject})
    try:
        answer = await js._nc.request(f"{js._prefix}.DIRECT.GET.{stream}", request, timeout=timeout)
    except nats.errors.NoRespondersError:
        return 0
    headers = answer.headers or {}
    status = headers.get("Status")
    if status == "404":
        return None
    if status is not None:
        raise BadRequestError(code=int(status), description=headers.get("Description", ""))
    return int(headers["Nats-Sequence"])
