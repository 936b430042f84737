"""The game log's line format and the JSON codecs for commands and events.

A log entry is one event with its place in the log (`seq`, from 1) and the
command-stream sequence of the command that caused it (`cause`).
"""
import re
from collections.abc import Iterable
from itertools import accumulate
from typing import NamedTuple

import msgspec

from zioncheck.contracts.commands import AnyCommand
from zioncheck.contracts.events import AnyEvent
from zioncheck.contracts.upcast import upcast

SCHEMA_VERSION = 1


class Entry(msgspec.Struct, frozen=True):
    seq: int
    cause: int
    event: AnyEvent


_command_decoder: msgspec.json.Decoder[AnyCommand] = msgspec.json.Decoder(AnyCommand)
_event_decoder: msgspec.json.Decoder[AnyEvent] = msgspec.json.Decoder(AnyEvent)
_entry_decoder = msgspec.json.Decoder(Entry)
_encoder = msgspec.json.Encoder()


def encode(obj: msgspec.Struct) -> bytes:
    return _encoder.encode(obj)


def tag_of(message: object) -> str:
    """What a command, event or feed item (or its class) is called on the wire: its tag, the `type`
    of its JSON ("draw_stock"). Anything untagged is called by its class's name."""
    kind = message if isinstance(message, type) else type(message)
    tag = getattr(getattr(kind, "__struct_config__", None), "tag", None)
    return tag if isinstance(tag, str) else kind.__name__


_ESCAPE = re.compile(rb"\\.", re.DOTALL)  # \" and \\ first, so that what is left of a string is "[^"]*"
_STRING = re.compile(rb'"[^"]*"')         # both linear: no input makes either backtrack
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1


def json_depth(data: bytes) -> int:
    """How deep the JSON's arrays and objects nest, counted without decoding it (brackets in
    strings skipped): the bound every reader of untrusted JSON checks before decoding."""
    brackets = _STRING.sub(b"", _ESCAPE.sub(b"", data)).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def decode_command(data: bytes | str) -> AnyCommand:
    """Raises msgspec.ValidationError / DecodeError with a readable message."""
    return _command_decoder.decode(data)


def decode_event(data: bytes | str) -> AnyEvent:
    try:
        return _event_decoder.decode(data)
    except msgspec.ValidationError:
        event: AnyEvent = msgspec.convert(upcast(msgspec.json.decode(data)), AnyEvent)
        return event


def decode_entry(data: bytes | str) -> Entry:
    try:
        return _entry_decoder.decode(data)
    except msgspec.ValidationError:
        raw = msgspec.json.decode(data)
        raw["event"] = upcast(raw["event"])
        return msgspec.convert(raw, Entry)


def read_jsonl(text: str) -> list[Entry]:
    return [decode_entry(line) for line in text.splitlines() if line.strip()]


def write_jsonl(entries: list[Entry]) -> bytes:
    return b"".join(encode(e) + b"\n" for e in entries)


class Batch(msgspec.Struct, frozen=True):
    """One message of the game log: the events one command caused, appended atomically.

    `cause` is the command's sequence in the commands stream.
    """
    cause: int
    events: list[AnyEvent]


_batch_decoder = msgspec.json.Decoder(Batch)


def decode_batch(data: bytes) -> Batch:
    """Raises msgspec.DecodeError for bytes that are not JSON and msgspec.ValidationError for JSON that is
    not a batch, never anything else: a reader tells what it cannot read by those two alone."""
    try:
        return _batch_decoder.decode(data)
    except msgspec.ValidationError as error:
        raw = msgspec.json.decode(data)
        try:
            raw["events"] = [upcast(e) for e in raw["events"]]
        except (TypeError, KeyError, AttributeError):   # JSON, but no object with a list of objects as events
            raise error from None
        return msgspec.convert(raw, Batch)


class NotABatch(NamedTuple):
    """A stored message that is not a log batch: where it is (its stream sequence, 0 when unknown), and why."""
    seq: int
    why: str


def readable(stored: Iterable[tuple[int, bytes]]) -> tuple[list[tuple[int, Batch]], list[NotABatch]]:
    """The batches among a log's stored messages ((sequence, data) each, in order), and the messages that
    are none: a game's log and its replay go on past a message nobody can read, as if it were not there."""
    batches, unreadable = [], []
    for seq, data in stored:
        try:
            batches.append((seq, decode_batch(data)))
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            unreadable.append(NotABatch(seq, f"not a log batch: {error}"[:200]))
    return batches, unreadable


def entries_of(batches: list[Batch]) -> list[Entry]:
    """The log as JSON-lines entries: one per event, numbered from 1."""
    entries: list[Entry] = []
    for batch in batches:
        for event in batch.events:
            entries.append(Entry(seq=len(entries) + 1, cause=batch.cause, event=event))
    return entries
