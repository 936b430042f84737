"""Reading a command off the wire, the same way in process and in the table service."""
import msgspec

from contracts.commands import Command, Deal, Reshuffle, RevealSeed
from contracts.events import Rejected
from contracts.log import decode_command
from domain.decide import rejection

DEALER_ONLY = (Deal, Reshuffle, RevealSeed)


def read_command(data: bytes, from_dealer: bool = False) -> Command | Rejected:
    """The command in `data`, or an R18 bad_command rejection saying why not."""
    try:
        command = decode_command(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        return unreadable(data, error)
    if isinstance(command, DEALER_ONLY) and not from_dealer:
        return rejection(command, "bad_command", "only the dealer deals, reshuffles and reveals seeds")
    return command


def unreadable(data: bytes, error: Exception) -> Rejected:
    """bad_command for bytes that are no command, naming the seat and type where they can be read."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:
        raw = None
    fields = raw if isinstance(raw, dict) else {}
    seat = fields.get("seat") if type(fields.get("seat")) is int else None
    kind = fields.get("type") if isinstance(fields.get("type"), str) else "unreadable"
    return Rejected(seat=seat, command=kind[:40], reason="bad_command", detail=f"not a command: {error}"[:300])


def stock_empty(events: list) -> bool:
    """The draw waits for the dealer's reshuffle (R16)."""
    return len(events) == 1 and isinstance(events[0], Rejected) and events[0].reason == "stock_empty"
