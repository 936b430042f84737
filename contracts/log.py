"""The game log's line format and the JSON codecs for commands and events.

A log entry is one event with its place in the log (`seq`, from 1) and the
command-stream sequence of the command that caused it (`cause`).
"""
import msgspec

from contracts.commands import AnyCommand
from contracts.events import AnyEvent
from contracts.upcast import upcast

SCHEMA_VERSION = 1


class Entry(msgspec.Struct, frozen=True):
    seq: int
    cause: int
    event: AnyEvent


_command_decoder = msgspec.json.Decoder(AnyCommand)
_event_decoder = msgspec.json.Decoder(AnyEvent)
_entry_decoder = msgspec.json.Decoder(Entry)
_encoder = msgspec.json.Encoder()


def encode(obj: msgspec.Struct) -> bytes:
    return _encoder.encode(obj)


def decode_command(data: bytes | str) -> AnyCommand:
    """Raises msgspec.ValidationError / DecodeError with a readable message."""
    return _command_decoder.decode(data)


def decode_event(data: bytes | str) -> AnyEvent:
    try:
        return _event_decoder.decode(data)
    except msgspec.ValidationError:
        return msgspec.convert(upcast(msgspec.json.decode(data)), AnyEvent)


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
