"""Platform keys: read from a file, made once when there is none, compared whole and in constant time."""
import os
import stat

import pytest

from zioncheck.services.gateway import keys
from zioncheck.services.gateway.keys import KeyRefused, Keyring, KeysError, parse

ACME = "acme-key-0123456789abcdef"


def test_a_keys_file_names_its_keys_or_lets_a_fingerprint_name_them():
    found = parse(f"# our platforms\n\nacme:{ACME}\n  bare-key-without-any-name  \n", "keys")
    assert [k.name for k in found] == ["acme", keys.fingerprint("bare-key-without-any-name")]
    assert len(found[1].name) == 8 and found[1].name not in "bare-key-without-any-name"


def test_a_line_that_is_not_a_usable_key_is_refused_with_its_line_number():
    with pytest.raises(KeysError, match="keys line 2: a key needs at least 16 characters"):
        parse(f"acme:{ACME}\nshort:abc\n", "keys")
    with pytest.raises(KeysError, match="keys line 1: .*no spaces"):
        parse("a key with spaces in it", "keys")
    with pytest.raises(KeysError, match="keys line 2: the name 'acme' or its key is already given"):
        parse(f"acme:{ACME}\nacme:{ACME}x\n", "keys")
    with pytest.raises(KeysError, match="keys line 1: a key's name"):
        parse(f"a name:{ACME}", "keys")


def test_a_file_with_no_key_or_no_file_at_all_is_refused(tmp_path):
    with pytest.raises(KeysError, match="holds no key"):
        parse("# nothing here\n\n", "keys")
    with pytest.raises(KeysError, match="cannot read the platform keys in .*missing: No such file"):
        keys.load(tmp_path / "missing")


def test_the_gateway_makes_its_keys_file_once_private_with_one_random_key(tmp_path):
    path, made = keys.ensure_file(tmp_path)
    assert made and path == tmp_path / keys.KEYS_FILE
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    [key] = keys.load(path)
    assert keys.ensure_file(tmp_path) == (path, False) and keys.load(path) == [key]
    assert list(tmp_path.iterdir()) == [path], "no draft left behind"
    other, _ = keys.ensure_file(tmp_path / "elsewhere")
    assert keys.load(other) != [key], "each made key is random"


def test_only_a_whole_known_key_matches():
    ring = Keyring(parse(f"acme:{ACME}\nbeta:beta-key-0123456789abcdef\n", "keys"))
    assert ring.match(ACME).name == "acme"
    assert ring.match(f" {ACME} ").name == "acme"
    for wrong in (ACME[:-1], ACME + "0", ACME.upper(), "beta"):
        with pytest.raises(KeyRefused) as refused:
            ring.match(wrong)
        assert (refused.value.status, refused.value.error) == (401, "platform_key_unknown")
    for missing in (None, ""):
        with pytest.raises(KeyRefused) as refused:
            ring.match(missing)
        assert refused.value.error == "platform_key_missing" and "X-Platform-Key" in refused.value.detail


def test_a_key_is_never_shown_in_its_repr():
    [key] = parse(f"acme:{ACME}", "keys")
    assert ACME not in repr(key) and "acme" in repr(key)


def test_a_keys_file_that_cannot_be_made_says_where_and_what_to_do(tmp_path):
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("")
    with pytest.raises(KeysError) as refused:
        keys.ensure_file(not_a_folder)
    assert str(refused.value).startswith(f"cannot make the platform keys file {not_a_folder / keys.KEYS_FILE}: ")
    assert str(refused.value).endswith("(name one with --platform-keys)")
