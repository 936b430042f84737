"""A finished game's archive as the gateway shows it: the file itself, and its signature checked with the house's
public key (application/archive.py `verify`), as `zioncheck verify` checks it anywhere.

The archive comes from the records service (GameClient.archive), which reads the history index and the archive
store; the house's public key from the gateway's credentials folder (services/bus/access.py PUBLIC_KEY), read,
never made. A game's archive never changes once written (the index keeps one entry a game), so what a check found
is kept, for the last KEPT games; a game not archived yet is asked about again each time.
"""
import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path

from zioncheck.application.archive import Damaged, unpack, verify
from zioncheck.services.bus.access import PUBLIC_KEY
from zioncheck.services.gateway.wire import ArchiveCheck, ArchiveFinding

KEPT = 1000          # games whose archive's check is kept
HEX_KEY = 64         # an ed25519 public key's hex digits

Archives = Callable[[str], Awaitable[bytes | None]]   # a game's archive by its key, None when it has none


def house_key(credentials: Path) -> str | None:
    """The house's archive public key (hex) in the credentials folder; None when the folder holds none."""
    try:
        text = (credentials / PUBLIC_KEY).read_text().strip().lower()
    except OSError:
        return None
    return text if len(text) == HEX_KEY and all(c in "0123456789abcdef" for c in text) else None


class Signatures:
    def __init__(self, archives: Archives, key: str | None, kept: int = KEPT):
        self.archives, self.key, self.kept = archives, key, kept
        self.checked: OrderedDict[str, ArchiveCheck] = OrderedDict()

    async def check(self, game: str) -> ArchiveCheck:
        """The game's archive checked: verified, not intact (and what fails), not archived yet, or unchecked (no
        house key here). Verifying folds the whole game, so it runs beside the gateway's loop, not on it."""
        if game in self.checked:
            self.checked.move_to_end(game)
            return self.checked[game]
        data = await self.archives(game)
        if data is None:
            return ArchiveCheck(game_id=game, status="not_archived", key=self.key)
        try:
            archive = unpack(data)
        except Damaged:
            archive = None
        signed_by = archive.key_id if archive else None
        state_hash = archive.record.manifest.state_hash if archive else None
        if self.key is None:
            found = ArchiveCheck(game_id=game, status="unchecked", signed_by=signed_by, state_hash=state_hash,
                                 size=len(data))
        else:
            problems = await asyncio.to_thread(verify, data, self.key)
            found = ArchiveCheck(game_id=game, status="not_intact" if problems else "verified", key=self.key,
                                 signed_by=signed_by, findings=[ArchiveFinding(**p._asdict()) for p in problems],
                                 state_hash=state_hash, size=len(data))
        self.checked[game] = found
        while len(self.checked) > self.kept:
            self.checked.popitem(last=False)
        return found
