"""R18: why a command is refused, in order of precedence (the words are contracts.reasons')."""
from collections.abc import Sequence

from zioncheck.contracts.events import Event, Rejected
from zioncheck.contracts.reasons import REASONS, Reason

__all__ = ["REASONS", "Reason", "Refused", "refusal_of"]


class Refused(Exception):
    """Raised by a check; decide turns it into a Rejected event (R18)."""

    def __init__(self, reason: Reason, detail: str = ""):
        assert reason in REASONS, reason
        super().__init__(reason, detail)
        self.reason: Reason = reason
        self.detail = detail


def refusal_of(events: Sequence[Event]) -> Rejected | None:
    """The Rejected that a refused command's events are, or None when the command was accepted:
    decide refuses with a single Rejected and nothing else (R18)."""
    if len(events) == 1 and isinstance(events[0], Rejected):
        return events[0]
    return None
