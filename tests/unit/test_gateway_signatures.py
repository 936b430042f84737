"""The replay page's word on a finished game's archive (services/gateway/signatures.py): checked with the house's
public key as `zioncheck verify` checks it, and what was found kept, but a game not archived yet asked about again."""
from zioncheck.application.archive import new_signing_key, pack
from zioncheck.application.archive_samples import sample_record
from zioncheck.services.bus.access import PUBLIC_KEY
from zioncheck.services.gateway.signatures import Signatures, house_key

KEY, PUBLIC = new_signing_key()
RECORD = sample_record("g1")
ARCHIVE = pack(RECORD, KEY)


def store(**archives: bytes):
    """An archive store holding these games' archives (the records service, as the gateway asks it)."""
    async def archive(game: str) -> bytes | None:
        return archives.get(game)
    return archive


async def test_an_intact_archive_signed_by_the_house_is_verified_and_names_its_game():
    checked = await Signatures(store(g1=ARCHIVE), PUBLIC).check("g1")
    assert checked.status == "verified" and checked.findings == []
    assert checked.key == checked.signed_by == PUBLIC and checked.state_hash == RECORD.manifest.state_hash
    assert checked.size == len(ARCHIVE)


async def test_a_changed_archive_is_not_intact_and_says_what_fails():
    damaged = bytearray(ARCHIVE)
    damaged[-40] ^= 0x10
    checked = await Signatures(store(g1=bytes(damaged)), PUBLIC).check("g1")
    assert checked.status == "not_intact" and [f.what for f in checked.findings] == ["unreadable"]
    assert "damaged" in checked.findings[0].detail


async def test_an_archive_signed_by_another_key_is_not_intact():
    _, stranger = new_signing_key()
    checked = await Signatures(store(g1=ARCHIVE), stranger).check("g1")
    assert checked.status == "not_intact" and checked.signed_by == PUBLIC
    assert [(f.what, f.detail) for f in checked.findings] == [("other_key", PUBLIC)]


async def test_a_game_not_archived_yet_is_asked_about_again_and_a_check_made_is_kept():
    signatures = Signatures(store(), PUBLIC)
    assert (await signatures.check("g1")).status == "not_archived"
    signatures.archives = store(g1=ARCHIVE)
    assert (await signatures.check("g1")).status == "verified"
    signatures.archives = store()
    assert (await signatures.check("g1")).status == "verified", "an archive never changes once written"


async def test_without_the_house_key_an_archive_is_unchecked(tmp_path):
    assert house_key(tmp_path) is None
    checked = await Signatures(store(g1=ARCHIVE), house_key(tmp_path)).check("g1")
    assert checked.status == "unchecked" and checked.signed_by == PUBLIC
    (tmp_path / PUBLIC_KEY).write_text(PUBLIC + "\n")
    assert house_key(tmp_path) == PUBLIC
