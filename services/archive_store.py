"""Where finished games' archives are kept, each read by its name in the store (`IndexEntry.where`):
the NATS Object Store bucket `zc_archive`, or a folder of files (`--archive DIR`). Another store is
another class with the three methods of `ArchiveStore`.

    store = BucketStore(js)            or   FolderStore(Path("archive"))
    data = await store.get(entry.where)     # the archive's bytes, None when the store has no such name
    await store.put(where, data)            # the archiver's: whole or not at all, on disk when it returns

What an archive holds is application/archive.py's (`unpack`, `verify`); this reads and writes bytes only.
"""
import asyncio
import base64
import contextlib
import os
import secrets
from pathlib import Path
from typing import Protocol

from nats.js import JetStreamContext
from nats.js.errors import BadObjectMetaError, BucketNotFoundError, ObjectNotFoundError
from nats.js.object_store import OBJ_META_PRE_TEMPLATE, OBJ_STREAM_TEMPLATE, ObjectStore

from zioncheck.services.bus.topology import ARCHIVE_BUCKET
from zioncheck.services.observability import skipped

MAX_ARCHIVE_BYTES = 64 << 20   # far above any game's archive (a whole game packs into tens of KiB)


class ArchiveStore(Protocol):
    async def get(self, where: str) -> bytes | None:
        """The archive stored under `where`, or None when there is none by that name."""
        ...

    async def put(self, where: str, data: bytes) -> None:
        """Store `data` under `where`, replacing what was there: a reader finds the old bytes or the new,
        never a part, and the new are kept once this returns. ValueError for a name the store cannot hold."""
        ...

    async def exists(self, where: str) -> bool:
        """Whether the store holds an archive under `where`."""
        ...


class TooLarge(Exception):
    """An archive past MAX_ARCHIVE_BYTES: no game's is, so it is not read."""


class FolderStore:
    """Archives as files in one folder, each named by `where` (a name in the folder, never a path out of it)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def __str__(self) -> str:
        return f"folder {self.folder}"

    @staticmethod
    def _plain(where: str) -> bool:
        return bool(where) and where == Path(where).name and where not in (".", "..") and not where.startswith(".")

    async def put(self, where: str, data: bytes) -> None:
        """A temporary file beside the archive, synced, then renamed over it, and the folder synced: after a
        crash the name holds the old bytes or the new, whole."""
        if not self._plain(where):
            raise ValueError(f"not a file name in the archive folder: {where!r}")
        if len(data) > MAX_ARCHIVE_BYTES:
            raise TooLarge(where)
        await asyncio.to_thread(self._write, where, data)

    def _write(self, where: str, data: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self.folder / f".{where}.{secrets.token_hex(4)}.part"
        try:
            with open(temporary, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.folder / where)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
        folder = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    async def exists(self, where: str) -> bool:
        return self._plain(where) and (self.folder / where).is_file()

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
    """Archives as objects of the Object Store bucket `bucket`, each named by `where`. An object whose
    description is no object description (BadObjectMetaError) is none: `get` finds no archive there, and
    `put` writes over it; either says so, as `reader`'s (observability.skipped)."""

    def __init__(self, js: JetStreamContext, bucket: str = ARCHIVE_BUCKET, reader: str = "house"):
        self.js, self.bucket, self.reader = js, bucket, reader
        self._objects: ObjectStore | None = None

    def __str__(self) -> str:
        return f"bucket {self.bucket}"

    async def _bucket(self) -> ObjectStore:
        if self._objects is None:
            self._objects = await self.js.object_store(self.bucket)
        return self._objects

    async def put(self, where: str, data: bytes) -> None:
        """The object's chunks, then its description naming them: a reader finds the old object or the new.
        The server has stored each part when this returns (an object written again loses its old chunks)."""
        if len(data) > MAX_ARCHIVE_BYTES:
            raise TooLarge(where)
        objects = await self._bucket()
        try:
            await objects.put(where, data)
        except BadObjectMetaError:   # what is there is no object: out of the way, then the archive
            self._junk(where)
            await self.js.purge_stream(OBJ_STREAM_TEMPLATE.format(bucket=self.bucket), subject=self._meta(where))
            await objects.put(where, data)

    def _meta(self, where: str) -> str:
        """The subject of the object's description, as nats-py names it."""
        return OBJ_META_PRE_TEMPLATE.format(bucket=self.bucket, obj=base64.urlsafe_b64encode(where.encode()).decode())

    def _junk(self, where: str) -> None:
        skipped(self.reader, "archive", self._meta(where), f"the description of {where!r} is no object description")

    async def exists(self, where: str) -> bool:
        try:
            await (await self._bucket()).get_info(where)
        except (BucketNotFoundError, ObjectNotFoundError):
            return False
        except BadObjectMetaError:
            self._junk(where)
            return False
        return True

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
        except BadObjectMetaError:
            self._junk(where)
            return None
