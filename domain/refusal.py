"""R18: why a command is refused, in order of precedence (the words are contracts.reasons')."""
from zioncheck.contracts.reasons import REASONS, Reason

__all__ = ["REASONS", "Reason", "Refused"]


class Refused(Exception):
    """Raised by a check; decide turns it into a Rejected event (R18)."""

    def __init__(self, reason: Reason, detail: str = ""):
        assert reason in REASONS, reason
        super().__init__(reason, detail)
        self.reason: Reason = reason
        self.detail = detail
