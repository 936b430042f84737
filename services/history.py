"""Reading the history index: the archived games a query asks for, without opening an archive.

The archiver writes one `contracts.archive.IndexEntry` (JSON) a finished game on
zc.history.<tenant>.<game>, in the stream ZC_HISTORY (one message a subject, written once: the stream
refuses a second entry for a game). The index is read by batched direct gets (log_store.read_some), 1,000 entries a
request. A query from a date starts at the first entry stored since then (log_store.first_stored_at):
a game is archived after it ends, so none that started later was indexed earlier. What matches is
application/history.py's.
"""
from collections.abc import AsyncIterator

import msgspec
from nats.errors import NoRespondersError
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from zioncheck.application.history import Page, Query, matches, page
from zioncheck.contracts.archive import IndexEntry
from zioncheck.services.archive_store import ArchiveStore, BucketStore, TooLarge
from zioncheck.services.bus.log_store import DIRECT_BATCH, first_stored_at, read_some
from zioncheck.services.bus.topology import HISTORY, history_subject, tenant_of
from zioncheck.services.observability import skipped


class NoIndex(Exception):
    """The server holds no history index: nothing has been archived on it."""


_entry = msgspec.json.Decoder(IndexEntry)


async def has_index(js: JetStreamContext) -> bool:
    try:
        await js.stream_info(HISTORY)
    except NotFoundError:
        return False
    return True


async def matching(js: JetStreamContext, query: Query, unreadable: list[int] | None = None,
                   reader: str = "house") -> AsyncIterator[tuple[int, IndexEntry]]:
    """Every entry of the index `query` asks for, after `query.after`, in index order, with its sequence;
    NoIndex when there is no index. Entries that are not an IndexEntry are left out, their sequences
    added to `unreadable` when the caller tells them itself (a command's output), else said and counted
    as `reader`'s (observability.skipped)."""
    if not await has_index(js):
        raise NoIndex(HISTORY)
    subject = history_subject(query.tenant or "*", "*")
    after = query.after
    if query.start is not None:
        first = await first_stored_at(js, HISTORY, subject, query.start)
        if first is None:
            return
        after = max(after, first - 1)
    while True:
        found, last = await read_some(js, HISTORY, subject, after=after, most=DIRECT_BATCH)
        for seq, data in found:
            try:
                entry = _entry.decode(data)
            except (msgspec.DecodeError, msgspec.ValidationError) as error:
                if unreadable is not None:
                    unreadable.append(seq)
                else:
                    skipped(reader, "history", HISTORY, f"not an index entry: {error}", seq)
                continue
            if matches(query, entry.manifest):
                yield seq, entry
        if len(found) < DIRECT_BATCH or last <= after:
            return
        after = last


async def list_page(js: JetStreamContext, query: Query, unreadable: list[int] | None = None,
                    reader: str = "house") -> Page:
    """The page of archived games `query` asks for: its games, and the `after` of the next page."""
    kept: list[tuple[int, IndexEntry]] = []
    async for found in matching(js, query, unreadable, reader):
        kept.append(found)
        if len(kept) > query.limit:   # one more than a page: there is a next page
            break
    return page(query, kept)


class Unreadable(Exception):
    """The index names the game, but its archive cannot be read from the store (or its entry is no IndexEntry)."""


async def entry_of(js: JetStreamContext, key: str) -> IndexEntry | None:
    """The index entry of the game `key`: None when the index names no such game (or there is no index at
    all, nothing archived here), Unreadable when its entry is no IndexEntry. Read from the index's leader: a
    replica behind would say a game just indexed is not (and the archiver would leave it hot for ever)."""
    tenant, game = tenant_of(key)
    try:
        stored = await js.get_msg(HISTORY, subject=history_subject(tenant, game))
    except (NotFoundError, NoRespondersError):
        return None
    try:
        return _entry.decode(stored.data or b"")
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise Unreadable(f"the index entry of {key} is not an IndexEntry") from None


async def archived(js: JetStreamContext, key: str, store: ArchiveStore | None = None) -> bytes | None:
    """An archived game's archive, found by its key through the index: None when the index names no
    such game, Unreadable when it does and the store cannot give it."""
    entry = await entry_of(js, key)
    if entry is None:
        return None
    try:
        data = await (store or BucketStore(js)).get(entry.where)
    except TooLarge:
        data = None
    if data is None:
        raise Unreadable(f"the store holds no archive named {entry.where!r}")
    return data
