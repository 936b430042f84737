"""Archived games put in a real store as the archiver puts them: each game packed and signed, put in the
archive bucket (and a folder, when one is given), and indexed on zc.history.<tenant>.<game> (the operator
may publish there)."""
import time
from pathlib import Path

import msgspec
from nats.js.api import DiscardPolicy, StorageType, StreamConfig
from nats.js.errors import NotFoundError

from zioncheck.application.archive import new_signing_key, pack
from zioncheck.contracts.archive import GameRecord, IndexEntry
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.topology import ARCHIVE_BUCKET, HISTORY, HISTORY_SUBJECTS, history_subject

KEY, PUBLIC = new_signing_key()


def where(record: GameRecord) -> str:
    return f"{record.manifest.key}.zca"


async def make_index(js) -> None:
    """ZC_HISTORY as the archiver's topology makes it: one entry a game, limited."""
    try:
        await js.stream_info(HISTORY)
    except NotFoundError:
        await js.add_stream(StreamConfig(name=HISTORY, subjects=[HISTORY_SUBJECTS], max_msgs_per_subject=1,
                                         allow_direct=True, max_bytes=64 << 20, discard=DiscardPolicy.NEW,
                                         storage=StorageType.FILE))


async def archive(access, records: list[GameRecord], folder: Path | None = None) -> None:
    """Each game packed and signed, put in the archive bucket (and the folder), and indexed."""
    nc = await connect(access, "operator")
    js = nc.jetstream()
    try:
        await make_index(js)
        try:
            bucket = await js.object_store(ARCHIVE_BUCKET)
        except NotFoundError:
            bucket = await js.create_object_store(ARCHIVE_BUCKET)
        for record in records:
            data = pack(record, KEY)
            await bucket.put(where(record), data)
            if folder is not None:
                (folder / where(record)).write_bytes(data)
            entry = IndexEntry(manifest=record.manifest, archived_at=time.time_ns(), size=len(data),
                               where=where(record))
            await js.publish(history_subject(record.manifest.tenant, record.manifest.game), msgspec.json.encode(entry))
    finally:
        await nc.close()


