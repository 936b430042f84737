"""The intake's answer: what became of a command handed to the house.

Platforms, the gateway and the bots never publish into a stream. They ask the intake
(services/intake) on `zc.in.<game>`, and it answers with one of these: `Taken`, the command's
place in its game's commands stream (the `cause` of the log batch it produces), or `Refused`,
with a reason from a closed list and a sentence. A refused command never reaches a stream.
"""
from typing import Literal

import msgspec

from zioncheck.contracts.events import Rejected

# Why the intake refused a command. Each has a sentence in REFUSALS.
IntakeReason = Literal["bad_command", "bad_game", "bad_key", "over_rate", "game_full", "store_full", "unavailable"]

REFUSALS: dict[str, str] = {
    "bad_command": "not a command the table could read (see `rejected` for the R18 refusal)",
    "bad_game": "not a game id: 1 to 64 ASCII letters, digits, - and _",
    "bad_key": "the idempotency key is not 1 to 64 printable ASCII characters",
    "over_rate": "the tenant sends more commands a second than it may: send again in a moment",
    "game_full": "the game holds as many commands as one game may: nothing more is stored for it",
    "store_full": "the commands store is full: nothing more is stored until an operator makes room",
    "unavailable": "the store did not answer in time: send again with the same idempotency key",
}

# The header a sender sets to make a command safe to send again: the intake stores a command
# once per game and key (within the commands stream's duplicate window), and answers a repeat
# with the first one's sequence.
KEY_HEADER = "Zc-Key"
KEY_MAX = 64


class Taken(msgspec.Struct, tag="taken", frozen=True):
    """Stored: `seq` is its place in the game's commands stream, `duplicate` when an earlier
    send with the same key was stored already (nothing new was stored)."""
    seq: int
    duplicate: bool = False


class Refused(msgspec.Struct, tag="refused", frozen=True):
    """Not stored. `rejected` is the R18 refusal the table would have logged, for bad_command."""
    reason: IntakeReason
    detail: str
    rejected: Rejected | None = None


IntakeReply = Taken | Refused


_replies = msgspec.json.Decoder(IntakeReply)


def decode_reply(data: bytes) -> Taken | Refused:
    """The intake's answer (msgspec.DecodeError or ValidationError for bytes that are none)."""
    return _replies.decode(data)
