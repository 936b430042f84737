"""Reading stored games back out of JetStream, for replay, export and listing."""
import asyncio
import contextlib
import time
from pathlib import Path

import msgspec
from nats.js.errors import KeyNotFoundError, NotFoundError

from zioncheck.application.archive import Damaged, batches_of, unpack, unreadable
from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed
from zioncheck.contracts.archive import Archive
from zioncheck.contracts.log import Entry, NotABatch, entries_of
from zioncheck.contracts.scores import Standings
from zioncheck.services.archive_store import FolderStore
from zioncheck.services.bus.access import Access, connect
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.log_store import read_batches, stalled_games, stored_games
from zioncheck.services.bus.topology import STANDINGS, standings_key, valid_game_key
from zioncheck.services.history import Unreadable, archived

# Replays, exports and listings read every hand's cards: the operator's login.
READER = "operator"


def read_game_log(game: str, url: str | None, credentials: str | None = None, archive: str | None = None,
                  skipped: list[NotABatch] | None = None) -> list[Entry]:
    """A stored game's log as entries, from the hot streams or, once it has left them, from its archive
    (the archive bucket, or the folder `archive`): the same entries either way. A message of the log that
    is no batch is left out, as the game left it out, and added to `skipped` (the caller tells it).
    CommandFailed if there is no such game, or its archive cannot be read."""
    if not valid_game_key(game):
        raise CommandFailed(words.NOT_A_GAME_ID.format(game=game))
    with bus(url, credentials) as access:
        return asyncio.run(_read(access, game, archive, [] if skipped is None else skipped))


async def _read(access: Access, game: str, archive: str | None, skipped: list[NotABatch]) -> list[Entry]:
    nc = await connect(access, READER)
    try:
        try:
            batches = [batch for _, batch in await read_batches(nc.jetstream(), game, unreadable=skipped)]
        except NotFoundError:
            batches = []
        if not batches:
            skipped.clear()
            data = await read_archive(nc.jetstream(), game, archive)
            record = unpack_or_fail(data, game).record
            batches = batches_of(record)
            skipped += unreadable(record)
    finally:
        await nc.close()
    return entries_of(batches)


def tell_skipped(skipped: list[NotABatch]) -> str | None:
    """The line that tells the messages of a game's log that are no batch (None for none)."""
    if not skipped:
        return None
    return words.say("cli.LOG_UNREADABLE", count=len(skipped),
                     seqs=", ".join(str(u.seq) for u in skipped[:10]) + (", ..." if len(skipped) > 10 else ""))


async def read_archive(js, game: str, archive: str | None) -> bytes:
    """An archived game's archive bytes; CommandFailed when there is none, or it cannot be read."""
    try:
        data = await archived(js, game, FolderStore(Path(archive)) if archive else None)
    except Unreadable as error:
        raise CommandFailed(words.ARCHIVE_UNREADABLE.format(game=game, reason=error)) from None
    if data is None:
        raise CommandFailed(words.NO_SUCH_GAME.format(game=game))
    return data


def unpack_or_fail(data: bytes, source: str) -> Archive:
    try:
        return unpack(data)
    except Damaged as error:
        raise CommandFailed(words.NOT_AN_ARCHIVE.format(file=source, reason=error)) from None


def list_games(url: str | None, credentials: str | None = None) -> list[tuple[str, int, Standings | None, bool]]:
    """(game id, log messages, standings, stalled) for every stored game: stalled, not moved past its
    deadline with none pending (log_store.stalled_games)."""
    with bus(url, credentials) as access:
        return asyncio.run(_list(access))


async def _list(access: Access):
    nc = await connect(access, READER)
    js = nc.jetstream()
    try:
        games = await stored_games(js)
        try:
            kv = await js.key_value(STANDINGS)
        except NotFoundError:
            kv = None
        listed = []
        stalled = await stalled_games(js, time.time())
        for game, count in games.items():
            standings = None
            if kv is not None:
                # No standings, or what is no standings in their place: the game shows as not scored.
                with contextlib.suppress(KeyNotFoundError, msgspec.DecodeError, msgspec.ValidationError):
                    standings = msgspec.json.decode((await kv.get(standings_key(game))).value or b"", type=Standings)
            listed.append((game, count, standings, game in stalled))
        return listed
    finally:
        await nc.close()
