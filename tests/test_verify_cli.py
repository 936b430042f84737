"""`zioncheck verify` and the archive on another machine: a file, a public key, and no server."""
from pathlib import Path

import pytest

from zioncheck.application.archive import new_signing_key, pack
from zioncheck.application.archive_samples import sample_record
from zioncheck.cli.main import main
from zioncheck.services.bus.access import PUBLIC_KEY, SIGNING_KEY, make_credentials, public_key, signing_key

KEY, PUBLIC = new_signing_key()
RECORD = sample_record("g1")
FILE = pack(RECORD, KEY)


@pytest.fixture
def archive(tmp_path) -> Path:
    path = tmp_path / "g1.zca"
    path.write_bytes(FILE)
    return path


def test_an_intact_archive_is_said_intact_with_its_game_and_hash(archive, capsys):
    assert main(["verify", str(archive), "--key", PUBLIC]) == 0
    said = capsys.readouterr().out
    assert "intact" in said and RECORD.manifest.state_hash in said and f"{RECORD.manifest.hands} hands" in said


def test_a_damaged_archive_exits_1_and_says_what_fails_in_the_readers_language(archive, capsys):
    data = bytearray(FILE)
    data[-40] ^= 0x10
    archive.write_bytes(bytes(data))
    assert main(["--lang", "es", "verify", str(archive), "--key", PUBLIC]) == 1
    said = capsys.readouterr().out
    assert "NO intacto" in said and "no se puede leer como archivo" in said


def test_an_archive_signed_by_another_key_is_said_so(tmp_path, capsys):
    other, other_public = new_signing_key()
    path = tmp_path / "other.zca"
    path.write_bytes(pack(RECORD, other))
    assert main(["verify", str(path), "--key", PUBLIC]) == 1
    assert f"signed by another key ({other_public})" in capsys.readouterr().out


def test_the_key_may_be_a_file_and_a_file_that_holds_none_is_refused_in_one_line(archive, tmp_path, capsys):
    key_file = tmp_path / "house.pub"
    key_file.write_text(PUBLIC + "\n")
    assert main(["verify", str(archive), "--key", str(key_file)]) == 0
    key_file.write_text("not a key")
    assert main(["verify", str(archive), "--key", str(key_file)]) == 2
    assert "holds no public key" in capsys.readouterr().err


def test_a_missing_archive_is_said_in_one_line(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "gone.zca"), "--key", PUBLIC]) == 2
    assert "no such file" in capsys.readouterr().err


def test_an_archive_replays_with_no_server_to_the_hash_its_manifest_names(archive, capsys):
    assert main(["replay", str(archive)]) == 0
    said = capsys.readouterr().out
    assert RECORD.manifest.state_hash in said
    assert f"seeds verified for hands {', '.join(str(h) for h in range(1, RECORD.manifest.hands + 1))}" in said


def test_the_house_key_is_made_with_the_credentials_readable_by_its_owner_alone_and_printed(tmp_path, capsys):
    make_credentials(tmp_path)
    assert (tmp_path / SIGNING_KEY).stat().st_mode & 0o077 == 0
    assert main(["credentials", "--dir", str(tmp_path), "--archive-key"]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == public_key(tmp_path) and len(printed) == 64
    assert (tmp_path / PUBLIC_KEY).read_text().strip() == printed
    assert signing_key(tmp_path) == signing_key(tmp_path) != KEY   # made once, kept
