"""`zioncheck export --parquet DIR`: the archived games the history options choose, opened one by one
from the archive store, written as four Parquet tables (application/season.py; docs/history.md)."""
import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from zioncheck.application.archive import Damaged, unpack
from zioncheck.application.history import Query
from zioncheck.application.season import Season
from zioncheck.cli import words
from zioncheck.cli.history_cmd import query_of
from zioncheck.cli.log_reader import READER
from zioncheck.cli.options import CommandFailed
from zioncheck.cli.parquet import ParquetTables, need_pyarrow
from zioncheck.cli.progress import Progress
from zioncheck.contracts.archive import IndexEntry
from zioncheck.services.archive_store import MAX_ARCHIVE_BYTES, ArchiveStore, BucketStore, FolderStore, TooLarge
from zioncheck.services.bus.access import Access, connect
from zioncheck.services.bus.embedded import bus
from zioncheck.services.history import NoIndex, matching

FLUSH = 200   # games a row group holds: what an export keeps in memory at once, however many it writes
TOLD = 10     # unreadable archives told one by one


@dataclass
class Exported:
    games: int = 0
    hands: int = 0
    moves: int = 0
    files: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (game key, why its archive was not read)


def main(args) -> int:
    need_pyarrow()
    folder = Path(args.parquet)
    if args.limit is not None and args.limit < 1:
        raise CommandFailed(words.MUST_BE_AT_LEAST_1.format(option="--limit", value=args.limit))
    query = query_of(args)
    if args.archive and not Path(args.archive).is_dir():
        raise CommandFailed(words.NO_SUCH_FOLDER.format(folder=args.archive))
    with bus(args.nats_url, args.credentials) as access:
        try:
            done = asyncio.run(_export(access, query, args.limit, folder,
                                       Path(args.archive) if args.archive else None))
        except NoIndex:
            raise CommandFailed(words.NO_HISTORY, 1) from None
    if not done.games and not done.skipped:
        print(words.NO_GAME_MATCHES, file=sys.stderr)
    print(words.say("cli.EXPORTED", count=done.games, hands=done.hands, moves=done.moves, folder=folder,
                    files=" ".join(path.name for path in done.files)), file=sys.stderr)
    for key, why in done.skipped[:TOLD]:
        print(words.ARCHIVE_NOT_READ.format(game=key, why=why), file=sys.stderr)
    if done.skipped:
        print(words.say("cli.ARCHIVES_NOT_READ", count=len(done.skipped)), file=sys.stderr)
        return 1
    return 0


async def _export(access: Access, query: Query, most: int | None, folder: Path, archives: Path | None
                  ) -> Exported:
    """The chosen games' rows written, reading the index twice: once to count them (and to know where they end,
    as the archiver may add more meanwhile), once to export them one by one. Nothing is written until the
    index has been read."""
    nc = await connect(access, READER)
    try:
        js = nc.jetstream()
        count, last = 0, 0
        async for seq, _ in matching(js, query):
            count, last = count + 1, seq
            if count == most:
                break
        store: ArchiveStore = FolderStore(archives) if archives else BucketStore(js)
        tables = _open(folder)
        try:
            return await _write(js, query, last, count, store, tables)
        except BaseException:
            tables.abandon()
            raise
    finally:
        await nc.close()


def _open(folder: Path) -> ParquetTables:
    """The tables' writer into `folder`, made if missing; CommandFailed, in one line, when it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CommandFailed(words.CANNOT_MAKE_FOLDER.format(folder=folder, reason=words.os_reason(error))) from None
    try:
        return ParquetTables(folder)
    except OSError as error:
        raise CommandFailed(words.CANNOT_WRITE.format(file=folder, reason=words.os_reason(error))) from None


async def _write(js, query: Query, last: int, count: int, store: ArchiveStore, tables: ParquetTables) -> Exported:
    """The rows of the games the index holds up to sequence `last`, `count` of them, a row group every FLUSH games."""
    done, season = Exported(), Season()
    progress = Progress(count, words.PROGRESS_ARCHIVES)
    async for seq, entry in matching(js, query):
        if seq > last:
            break
        why = await _add(season, store, entry)
        if why:
            done.skipped.append((entry.manifest.key, why))
        else:
            done.games += 1
        if season.games == FLUSH:
            _flush(season, tables, done)
        progress.step()
    progress.close()
    _flush(season, tables, done)
    done.files = tables.finish()
    return done


async def _add(season: Season, store: ArchiveStore, entry: IndexEntry) -> str:
    """One game's rows added to the season, or why its archive could not be read."""
    if entry.size > MAX_ARCHIVE_BYTES:
        return words.ARCHIVE_TOO_LARGE.format(size=entry.size)
    try:
        data = await store.get(entry.where)
    except TooLarge:
        return words.ARCHIVE_TOO_LARGE.format(size=entry.size)
    except OSError as error:
        return words.os_reason(error)
    if data is None:
        return words.ARCHIVE_MISSING.format(where=entry.where)
    try:
        record = unpack(data).record
    except Damaged as damage:
        return words.ARCHIVE_DAMAGED.format(detail=damage)
    if record.manifest.key != entry.manifest.key:
        return words.ARCHIVE_OF_ANOTHER.format(where=entry.where, game=record.manifest.key)
    try:
        season.add(record)
    except (msgspec.MsgspecError, ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
        return words.ARCHIVE_DAMAGED.format(detail=f"{type(error).__name__}: {error}"[:200])
    return ""


def _flush(season: Season, tables: ParquetTables, done: Exported) -> None:
    done.hands += season.rows("hands")
    done.moves += season.rows("moves")
    tables.write(season.take())
