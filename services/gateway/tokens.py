"""Seat tokens: what lets a person act for one seat of one game, and for nothing else.

A token is `<claims>.<signature>`, both base64url without padding: the claims are the
JSON {game, seat, exp} and the signature their HMAC-SHA256 under the gateway's secret.
The gateway keeps no list of tokens; any gateway with the same secret honours them.

The secret is ZIONCHECK_GATEWAY_SECRET if set, or else one made once and kept in
.zioncheck/gateway.secret (readable by its owner only).
"""
import base64
import binascii
import contextlib
import hashlib
import hmac
import os
import secrets
import tempfile
import time
from pathlib import Path

import msgspec

from zioncheck.services.bus.embedded import HOME

SECRET_ENV = "ZIONCHECK_GATEWAY_SECRET"
SECRET_FILE = "gateway.secret"
DOMAIN = b"zioncheck seat token v1\n"   # a signature over anything else never reads as a token's
HOST = b"zioncheck lobby host token v1\n"   # a lobby's host token: never a seat's, nor a seat's a host's
HOST_SEAT = -1   # the seat a host token's claims name: none


class Claims(msgspec.Struct, frozen=True):
    game: str
    seat: int
    exp: int      # seconds since the epoch


class TokenRefused(Exception):
    """Why a request's token does not let it act: `status` 401 (no usable token) or 403 (not for this)."""

    def __init__(self, status: int, error: str, detail: str):
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail


_claims = msgspec.json.Decoder(Claims)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(secret: bytes, claims_part: str, domain: bytes = DOMAIN) -> str:
    return _b64(hmac.new(secret, domain + claims_part.encode(), hashlib.sha256).digest())


def issue(secret: bytes, game: str, seat: int, ttl: float, now: float | None = None, domain: bytes = DOMAIN) -> str:
    """A seat's token; with domain=HOST (and seat HOST_SEAT), the token of a lobby's host."""
    exp = int((time.time() if now is None else now) + ttl)
    claims_part = _b64(msgspec.json.encode(Claims(game=game, seat=seat, exp=exp)))
    return f"{claims_part}.{_sign(secret, claims_part, domain)}"


def verify(secret: bytes, token: str | None, game: str, now: float | None = None, domain: bytes = DOMAIN) -> Claims:
    """The claims of a token that acts for a seat of `game` (or, with domain=HOST, hosts its lobby), or
    TokenRefused saying why not. A token signed for the other domain is `token_forged`."""
    if not token:
        raise TokenRefused(401, "token_missing", "this needs a seat token: send `Authorization: Bearer <token>` "
                                                 "(or ?token= on a WebSocket), as POST /games gave it")
    parts = token.split(".")
    if len(parts) != 2 or len(token) > 1024:
        raise TokenRefused(401, "token_garbled", "the token is not <claims>.<signature> in base64url")
    claims_part, signature = parts
    if not hmac.compare_digest(_sign(secret, claims_part, domain), signature):
        raise TokenRefused(401, "token_forged", "the token's signature does not match its claims: "
                                                "it was not issued by this gateway, or was altered")
    try:
        claims = _claims.decode(_unb64(claims_part))
    except (binascii.Error, ValueError, msgspec.DecodeError):
        raise TokenRefused(401, "token_garbled", "the token's claims cannot be read") from None
    if claims.exp < (time.time() if now is None else now):
        expired = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(claims.exp))
        raise TokenRefused(401, "token_expired", f"the token expired at {expired}: ask the platform for a new one")
    if claims.game != game:
        raise TokenRefused(403, "token_for_another_game",
                           f"the token is for game {claims.game!r}, not {game!r}")
    return claims


def check_seat(claims: Claims, seat: object) -> None:
    """A command names its seat; a token acts for one seat only."""
    if seat != claims.seat:
        raise TokenRefused(403, "token_for_another_seat",
                           f"the token acts for seat {claims.seat}, and the command is for seat {seat}")


def bearer(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def load_secret(home: Path = HOME) -> bytes:
    """The gateway's signing secret: from the environment, or made once and stored under `home`."""
    given = os.environ.get(SECRET_ENV)
    if given is not None:
        if len(given) < 16:
            raise ValueError(f"{SECRET_ENV} is {len(given)} characters; a secret needs at least 16")
        return given.encode()
    path = home / SECRET_FILE
    if not path.exists():
        home.mkdir(parents=True, exist_ok=True)
        fd, draft = tempfile.mkstemp(dir=home, prefix=".gateway-secret-")  # mode 0600
        try:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
            with contextlib.suppress(FileExistsError):  # another gateway made it first: use that one
                os.link(draft, path)
        finally:
            os.unlink(draft)
    return path.read_text().strip().encode()
