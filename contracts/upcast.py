"""Upcasting: old event versions are rewritten to today's shape on read.

Register one function per (type, version) that returns the next version's dict.
Version 1 is the first published version, so nothing is registered yet.
"""
from collections.abc import Callable
from typing import Any

RawEvent = dict[str, Any]   # an event as its JSON object, before it is a Struct
Upcaster = Callable[[RawEvent], RawEvent]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcast(raw: RawEvent) -> RawEvent:
    """Apply registered upcasters until the event reaches today's version."""
    while (step := UPCASTERS.get((raw.get("type", ""), raw.get("v", 1)))) is not None:
        raw = step(raw)
    return raw
