"""A folder of archive files is read by name, and only inside the folder (services/archive_store.py)."""
import pytest

from zioncheck.services import archive_store
from zioncheck.services.archive_store import FolderStore, TooLarge


async def test_an_archive_is_read_by_its_name_and_a_name_not_there_is_none(tmp_path):
    (tmp_path / "acme=game-1.zca").write_bytes(b"archive")
    store = FolderStore(tmp_path)
    assert await store.get("acme=game-1.zca") == b"archive"
    assert await store.get("acme=game-2.zca") is None


@pytest.mark.parametrize("where", ["../secret.zca", "sub/secret.zca", "/etc/passwd", "..", ".", ""])
async def test_a_name_that_leads_out_of_the_folder_reads_nothing(where, tmp_path):
    (tmp_path / "secret.zca").write_bytes(b"not in the archive folder")
    folder = tmp_path / "archive"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "secret.zca").write_bytes(b"in a folder below")
    assert await FolderStore(folder).get(where) is None


async def test_a_file_larger_than_any_archive_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr(archive_store, "MAX_ARCHIVE_BYTES", 10)
    (tmp_path / "big.zca").write_bytes(b"x" * 11)
    with pytest.raises(TooLarge):
        await FolderStore(tmp_path).get("big.zca")


async def test_an_archive_put_in_a_folder_is_read_back_whole_and_no_part_of_the_write_is_left(tmp_path):
    store = FolderStore(tmp_path / "made")
    await store.put("acme=game-1.zca", b"first")
    await store.put("acme=game-1.zca", b"second")
    assert await store.get("acme=game-1.zca") == b"second" and await store.exists("acme=game-1.zca")
    assert not await store.exists("acme=game-2.zca")
    assert [p.name for p in (tmp_path / "made").iterdir()] == ["acme=game-1.zca"]


async def test_a_write_that_fails_midway_leaves_the_archive_that_was_there_and_no_part_file(tmp_path, monkeypatch):
    store = FolderStore(tmp_path)
    await store.put("g.zca", b"kept")

    def no_room(source, target):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(archive_store.os, "replace", no_room)
    with pytest.raises(OSError):
        await store.put("g.zca", b"lost")
    assert await store.get("g.zca") == b"kept"
    assert [p.name for p in tmp_path.iterdir()] == ["g.zca"]


@pytest.mark.parametrize("where", ["../out.zca", "sub/g.zca", "/tmp/g.zca", "..", ".", "", ".hidden.zca"])
async def test_an_archive_is_put_only_under_a_plain_name_in_the_folder(where, tmp_path):
    with pytest.raises(ValueError):
        await FolderStore(tmp_path / "archive").put(where, b"x")
    assert not (tmp_path / "out.zca").exists()
