"""Seat tokens: a token acts for one seat of one game until it expires, and nothing else passes."""
import os
import stat

import pytest

from zioncheck.services.gateway import tokens
from zioncheck.services.gateway.tokens import TokenRefused, check_seat, issue, verify

SECRET = b"sixteen or more bytes of secret"
NOW = 1_800_000_000.0


def refusal(token, game="g-1", now=NOW) -> tuple[int, str]:
    with pytest.raises(TokenRefused) as refused:
        verify(SECRET, token, game, now)
    return refused.value.status, refused.value.error


def test_a_token_acts_for_the_seat_and_game_it_was_issued_for():
    claims = verify(SECRET, issue(SECRET, "g-1", 2, ttl=60, now=NOW), "g-1", now=NOW + 59)
    assert (claims.game, claims.seat) == ("g-1", 2)


def test_a_token_for_another_game_is_forbidden():
    assert refusal(issue(SECRET, "g-2", 0, 60, NOW)) == (403, "token_for_another_game")


def test_a_token_for_another_seat_is_forbidden_from_commanding_it():
    claims = verify(SECRET, issue(SECRET, "g-1", 0, 60, NOW), "g-1", NOW)
    check_seat(claims, 0)
    with pytest.raises(TokenRefused) as refused:
        check_seat(claims, 1)
    assert (refused.value.status, refused.value.error) == (403, "token_for_another_seat")


def test_an_expired_token_is_refused():
    assert refusal(issue(SECRET, "g-1", 0, 60, NOW), now=NOW + 61) == (401, "token_expired")


def test_a_missing_or_garbled_token_is_refused():
    assert refusal(None) == (401, "token_missing")
    assert refusal("") == (401, "token_missing")
    assert refusal("no-dot-here") == (401, "token_garbled")
    assert refusal("a.b.c") == (401, "token_garbled")
    assert refusal("x" * 2000 + ".y") == (401, "token_garbled")


def test_a_token_signed_elsewhere_or_altered_is_forged():
    assert refusal(issue(b"another secret, just as long", "g-1", 0, 60, NOW)) == (401, "token_forged")
    claims, signature = issue(SECRET, "g-1", 0, 60, NOW).split(".")
    other_seat = issue(SECRET, "g-1", 1, 60, NOW).split(".")[0]
    assert refusal(f"{other_seat}.{signature}") == (401, "token_forged")
    assert refusal(f"{claims}.{signature[:-2]}") == (401, "token_forged")


def test_only_a_bearer_authorization_carries_a_token():
    assert tokens.bearer("Bearer abc.def") == "abc.def"
    assert tokens.bearer("bearer  abc.def ") == "abc.def"
    assert tokens.bearer("Basic abc") is None
    assert tokens.bearer(None) is None


def test_the_secret_is_made_once_kept_private_and_read_back(tmp_path, monkeypatch):
    monkeypatch.delenv(tokens.SECRET_ENV, raising=False)
    first = tokens.load_secret(tmp_path)
    assert len(first) == 64 and tokens.load_secret(tmp_path) == first
    assert stat.S_IMODE(os.stat(tmp_path / tokens.SECRET_FILE).st_mode) == 0o600
    assert list(tmp_path.iterdir()) == [tmp_path / tokens.SECRET_FILE]


def test_a_secret_from_the_environment_wins_and_must_be_long_enough(tmp_path, monkeypatch):
    monkeypatch.setenv(tokens.SECRET_ENV, "x" * 16)
    assert tokens.load_secret(tmp_path) == b"x" * 16
    assert not (tmp_path / tokens.SECRET_FILE).exists()
    monkeypatch.setenv(tokens.SECRET_ENV, "short")
    with pytest.raises(ValueError, match="at least 16"):
        tokens.load_secret(tmp_path)
