"""Where finished games' archives are kept, each read by its name in the store (`IndexEntry.where`):
the NATS Object Store bucket `zc_archive`, or a folder of files (`--archive DIR`).

    store = BucketStore(js)            or   FolderStore(Path("archive"))
    data = await store.get(entry.where)     # the archive's bytes, None when the store has no such name

What an archive holds is application/archive.py's (`unpack`, `verify`); this reads bytes only.
"""
from pathlib import Path
from typing import Protocol

from nats.js import JetStreamContext
from nats.js.errors import BucketNotFoundError, ObjectNotFoundError
from nats.js.object_store import ObjectStore

from zioncheck.services.bus.topology import ARCHIVE_BUCKET

MAX_ARCHIVE_BYTES = 64 << 20   # far above any game's archive (a whole game packs into tens of KiB)


class ArchiveStore(Protocol):
    async def get(self, where: str) -> bytes | None:
        """The archive stored under `where`, or None when there is none by that name."""
        ...


class TooLarge(Exception):
    """An archive past MAX_ARCHIVE_BYTES: no game's is, so it is not read."""


class FolderStore:
    """Archives as files in one folder, each named by `where` (a name in the folder, never a path out of it)."""

    def __init__(self, folder: Path):
        self.folder = folder

    async def get(self, where: str) -> bytes | None:
        if not where or where != Path(where).name or where in (".", ".."):
            return None
        path = self.folder / where
        try:
            if path.stat().st_size > MAX_ARCHIVE_BYTES:
                raise TooLarge(where)
            return path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None


class BucketStore:
    """Archives as objects of the Object Store bucket `bucket`, each named by `where`."""

    def __init__(self, js: JetStreamContext, bucket: str = ARCHIVE_BUCKET):
        self.js, self.bucket = js, bucket
        self._objects: ObjectStore | None = None

    async def get(self, where: str) -> bytes | None:
        try:
            if self._objects is None:
                self._objects = await self.js.object_store(self.bucket)
            info = await self._objects.get_info(where)
            if (info.size or 0) > MAX_ARCHIVE_BYTES:
                raise TooLarge(where)
            return (await self._objects.get(where)).data
        except (BucketNotFoundError, ObjectNotFoundError):
            return None
