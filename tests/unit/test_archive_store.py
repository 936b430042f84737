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
