"""Reading a command off the wire, the same way in process and in the table service.

Whatever the bytes, the answer is a command or a `bad_command` refusal saying why:
nothing a sender puts in a message can make the table fail on it. Size and nesting
are bounded before anything is decoded.
"""
from functools import cache

import msgspec

from zioncheck.contracts.commands import (
    DEALER,
    MAX_COMMAND_BYTES,
    MAX_COMMAND_DEPTH,
    ORIGINS,
    PLAY,
    TIMER,
    AbandonGame,
    Command,
    Deal,
    EndPause,
    ReleaseWindow,
    Reshuffle,
    RevealSeed,
    StartGame,
    TurnTimeout,
)
from zioncheck.contracts.events import AnyEvent, Rejected
from zioncheck.contracts.log import decode_command
from zioncheck.contracts.log import json_depth as nesting
from zioncheck.domain.decide import rejection
from zioncheck.domain.refusal import refusal_of

DEALER_ONLY = (Deal, Reshuffle, RevealSeed)
TIMER_ONLY = (TurnTimeout, AbandonGame, ReleaseWindow, EndPause)
WRONG_ORIGIN = {
    PLAY: "only the dealer deals, reshuffles and reveals seeds, and only the game's timer times out, "
          "releases a held window or ends a pause",
    DEALER: "the dealer's subject carries only deals, reshuffles and seed reveals",
    TIMER: "the timer's subject carries only timeouts, window releases and pause ends",
}


def read_command(data: bytes, origin: str = PLAY, game: str | None = None, strict: bool = False
                 ) -> Command | Rejected:
    """The command in `data` sent from `origin` to `game`, or an R18 bad_command rejection saying why not.

    A game's start must name the game its subject names: one game can never start (or
    overwrite the views of) another. `strict` (the intake's reading of what a sender hands in) also
    refuses a field no command of that type declares; the table reads without it, so a command stored
    by an earlier version, whatever it carried beside its fields, reads as it always did.
    """
    problem = _unfit(data)
    if problem:
        return Rejected(seat=None, command="unreadable", reason="bad_command", detail=problem)
    try:
        command = decode_command(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        return unreadable(data, error)
    if strict and (extra := unknown_field(command, msgspec.json.decode(data))):
        return rejection(command, "bad_command", f"not a command: unknown field {extra[:80]!r} "
                                                 f"(a {type(command).__struct_config__.tag} declares no such field)")
    if origin not in ORIGINS:
        return rejection(command, "bad_command", f"unknown origin {origin[:40]!r}")
    if origin_for(command) != origin:
        return rejection(command, "bad_command", WRONG_ORIGIN[origin])
    if game is not None and isinstance(command, StartGame) and command.game_id != game:
        return rejection(command, "bad_command", f"game_id {command.game_id[:80]!r} is not this game, {game!r}")
    return command


def unknown_field(value: object, raw: object, path: str = "") -> str:
    """The first field in `raw` (the JSON `value` was decoded from) that no struct in `value` declares, as
    its path (`limits.pad`, `rules.hands[0].pad`); "" when every field is declared."""
    if isinstance(value, msgspec.Struct) and isinstance(raw, dict):
        known, fields = _declared(type(value))
        extra = next((name for name in raw if name not in known), None)
        if extra is not None:
            return f"{path}{extra}"
        for name, encoded in fields:
            if encoded in raw:
                found = unknown_field(getattr(value, name), raw[encoded], f"{path}{encoded}.")
                if found:
                    return found
    elif isinstance(value, list | tuple) and isinstance(raw, list):
        for index, (item, raw_item) in enumerate(zip(value, raw, strict=False)):
            found = unknown_field(item, raw_item, f"{path.rstrip('.')}[{index}].")
            if found:
                return found
    return ""


@cache
def _declared(kind: type[msgspec.Struct]) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    """The names a struct type's JSON may hold (its fields' and its tag's), and each field's name and JSON name:
    read once a type (msgspec.structs.fields reads a type's annotations each time it is asked)."""
    fields = msgspec.structs.fields(kind)
    tag = kind.__struct_config__.tag_field
    known = frozenset({field.encode_name for field in fields} | ({tag} if tag else set()))
    return known, tuple((field.name, field.encode_name) for field in fields)


def origin_for(command: Command) -> str:
    """The one origin a command may come from: deals from the dealer, timeouts from the timer (R19)."""
    return DEALER if isinstance(command, DEALER_ONLY) else TIMER if isinstance(command, TIMER_ONLY) else PLAY


def _unfit(data: bytes) -> str:
    """Why these bytes are not even worth decoding, or ""."""
    if not data:
        return "not a command: the message is empty"
    if len(data) > MAX_COMMAND_BYTES:
        return f"not a command: {len(data)} bytes, more than {MAX_COMMAND_BYTES}"
    if json_depth(data) > MAX_COMMAND_DEPTH:
        return f"not a command: JSON nested deeper than {MAX_COMMAND_DEPTH}"
    return ""


def json_depth(data: bytes) -> int:
    """How deep JSON arrays and objects nest in `data`; 0 when too few brackets to pass the bound."""
    if data.count(b"[") + data.count(b"{") <= MAX_COMMAND_DEPTH:
        return 0  # cannot be deeper than the bound: skip the scan, as for nearly every command
    return nesting(data)


def unreadable(data: bytes, error: Exception) -> Rejected:
    """bad_command for bytes that are no command, naming the seat and type where they can be read."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:
        raw = None
    fields = raw if isinstance(raw, dict) else {}
    seat = fields.get("seat") if type(fields.get("seat")) is int else None
    kind = fields.get("type")
    command = kind[:40] if isinstance(kind, str) else "unreadable"
    return Rejected(seat=seat, command=command, reason="bad_command", detail=f"not a command: {error}"[:300])


def stock_empty(events: list[AnyEvent]) -> bool:
    """The draw waits for the dealer's reshuffle (R16)."""
    rejected = refusal_of(events)
    return rejected is not None and rejected.reason == "stock_empty"
