"""The intake's answer: what became of a command handed to the house.

Platforms, the gateway and the bots never publish into a stream. They ask the intake
(services/intake) on `zc.in.<tenant>.<game>`. The answer is the intake's `Refused`, with a reason
from a closed list and a sentence (a refused command never reaches a stream), or, once the intake
stored the command, its `Taken`: the command's place in its game's commands stream (the `cause` of
the log batch it produces). An intake of an earlier version let the stream answer with its own
`StreamAck`; `decode_reply` reads any of them, as `Taken` or `Refused`.
"""
from typing import Literal

import msgspec

from zioncheck.contracts.events import Rejected

# Why the intake refused a command. Each has a sentence in REFUSALS.
IntakeReason = Literal["bad_command", "bad_game", "bad_key", "no_game", "too_many_games", "over_rate", "store_full",
                       "unavailable"]

REFUSALS: dict[str, str] = {
    "bad_command": "not a command the table could read (see `rejected` for the R18 refusal)",
    "bad_game": "not a game id: 1 to 64 ASCII letters, digits, - and _",
    "bad_key": "the idempotency key is not 1 to 64 printable ASCII characters",
    "over_rate": "the tenant sends more commands, or more bytes of commands, a second than it may: send again "
                 "in a moment (the detail says when)",
    "no_game": "no game of the tenant's is in play by that id: start it first (a game over takes no more commands)",
    "too_many_games": "the tenant has as many games as it may, in play or over and held until their retention has "
                      "run: another starts once one ends, or is removed",
    "store_full": "the store, or the tenant's share of it, is full: nothing more is stored until room is made",
    "unavailable": "the store did not answer in time: send again with the same idempotency key",
}

# The header a sender sets to make a command safe to send again: the intake stores a command
# once per game and key (within the commands stream's duplicate window), and answers a repeat
# with the first one's sequence.
KEY_HEADER = "Zc-Key"
KEY_MAX = 64


class Taken(msgspec.Struct, tag="taken", frozen=True):
    """Stored (the intake's answer, and what decode_reply makes of a StreamAck): `seq` is its place in the game's
    commands stream, `duplicate` when an earlier send with the same key was stored already."""
    seq: int
    duplicate: bool = False


class Refused(msgspec.Struct, tag="refused", frozen=True):
    """Not stored. `rejected` is the R18 refusal the table would have logged, for bad_command."""
    reason: IntakeReason
    detail: str
    rejected: Rejected | None = None


IntakeReply = Taken | Refused


class StreamError(msgspec.Struct, frozen=True):
    """Why the commands stream did not store a command (a limit it or the account reached)."""
    code: int = 0
    err_code: int = 0
    description: str = ""


class StreamAck(msgspec.Struct, frozen=True):
    """The commands stream's own answer to the store, which the intake has it send the sender (a
    JetStream publish ack): the command's sequence, or the error that stopped it."""
    stream: str = ""
    seq: int = 0
    duplicate: bool = False
    error: StreamError | None = None


_replies = msgspec.json.Decoder(IntakeReply)
_stored = msgspec.json.Decoder(StreamAck)


def decode_reply(data: bytes) -> Taken | Refused:
    """What became of a command handed to the intake: its refusal, or the commands stream's answer to
    the store (a sequence, or the limit that stopped it). msgspec.DecodeError for bytes that are none."""
    if data.startswith(b'{"type"'):
        return _replies.decode(data)
    stored = _stored.decode(data)
    if stored.error is None:
        return Taken(seq=stored.seq, duplicate=stored.duplicate)
    return limit_refusal(stored.error.description)


def limit_refusal(said: str) -> Refused:
    """The refusal for a store's error that says `said`: its reason (limit_reason), and what it said."""
    reason = limit_reason(said)
    return Refused(reason=reason, detail=f"{REFUSALS[reason]} ({said[:120]})")


def limit_reason(said: str) -> IntakeReason:
    """The refusal a store's error stands for: a limit the stream or the account reached, else unavailable."""
    if "maximum bytes" in said or "maximum messages" in said or "resources" in said:
        return "store_full"
    return "unavailable"
