"""Platform keys: what lets a platform (or the operator's own web page) open games on this gateway.

A keys file holds one key a line, optionally named as `name:key`, and as
`name@tenant:key` for a key whose games belong to a tenant (services/bus/topology.py: a
tenant's games are its own; without one, the default tenant's); a key without a
name is known by a short fingerprint of it (never the key itself, which stays out of
logs). Blank lines and lines starting with `#` are skipped. A request sends its key as
`X-Platform-Key: <key>`: `Authorization: Bearer` already carries seat tokens, and a
separate header keeps the two from being mistaken for each other.

With no file named, the gateway makes one on first start, .zioncheck/platform-keys
(readable by its owner only), holding one random key.
"""
import contextlib
import hashlib
import hmac
import os
import re
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

from zioncheck.services.bus.embedded import HOME
from zioncheck.services.bus.topology import DEFAULT_TENANT, valid_game_id

HEADER = "X-Platform-Key"
KEYS_FILE = "platform-keys"
MIN_LENGTH = 16
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MADE_BY_GATEWAY = ("# Platform keys of this gateway: one a line, optionally name:key. A platform sends one\n"
                   f"# as the {HEADER} header of POST /games. Keep this file private.\n")


class KeysError(ValueError):
    """The keys file cannot be read, or a line of it is not a usable key."""


class KeyRefused(Exception):
    """A request to open a game with no platform key, or with one this gateway does not know (401)."""

    def __init__(self, error: str, detail: str):
        super().__init__(detail)
        self.status, self.error, self.detail = 401, error, detail


@dataclass(frozen=True)
class PlatformKey:
    name: str
    digest: bytes     # SHA-256 of the key: what a presented key is compared with
    tenant: str = DEFAULT_TENANT   # whose games the key opens

    def __repr__(self) -> str:
        return f"PlatformKey({self.name!r})"   # never the key


def fingerprint(key: str) -> str:
    """A key's name when the file gives none: short, stable, and no help in guessing the key."""
    return hashlib.sha256(b"zioncheck platform key\n" + key.encode()).hexdigest()[:8]


def parse(text: str, source: str) -> list["PlatformKey"]:
    """The keys a file's text holds; KeysError naming the line when one is not usable."""
    keys: list[PlatformKey] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, colon, key = line.partition(":")
        if not colon:
            name, key = fingerprint(line), line
        name, at, tenant = name.partition("@")
        keys.append(_checked(name.strip(), key.strip(), f"{source} line {number}", keys,
                             tenant.strip() if at else DEFAULT_TENANT))
    if not keys:
        raise KeysError(f"{source} holds no key: write one a line (optionally name:key)")
    return keys


def _checked(name: str, key: str, where: str, earlier: list[PlatformKey], tenant: str = DEFAULT_TENANT) -> PlatformKey:
    if len(key) < MIN_LENGTH or any(c.isspace() for c in key):
        raise KeysError(f"{where}: a key needs at least {MIN_LENGTH} characters and no spaces")
    if not NAME.fullmatch(name):
        raise KeysError(f"{where}: a key's name is 1 to 64 letters, digits, '.', '_' or '-', not {name[:64]!r}")
    if not valid_game_id(tenant):
        raise KeysError(f"{where}: a tenant is 1 to 64 letters, digits, '_' or '-', not {tenant[:64]!r}")
    digest = hashlib.sha256(key.encode()).digest()
    for other in earlier:
        if other.name == name or other.digest == digest:
            raise KeysError(f"{where}: the name {name!r} or its key is already given on an earlier line")
    return PlatformKey(name, digest, tenant)


def load(path: Path) -> list[PlatformKey]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise KeysError(f"cannot read the platform keys in {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise KeysError(f"{path} is not text: write one key a line (optionally name:key)") from None
    return parse(text, str(path))


def ensure_file(home: Path = HOME) -> tuple[Path, bool]:
    """The gateway's own keys file under `home`, made with one random key if there is none: (path, made now)."""
    path = home / KEYS_FILE
    if path.exists():
        return path, False
    try:
        return path, _make(path)
    except OSError as error:
        raise KeysError(f"cannot make the platform keys file {path}: {error.strerror} "
                        "(name one with --platform-keys)") from None


def _make(path: Path) -> bool:
    """Write the file whole, or not at all: True if this call made it, False if another gateway just did."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, draft = tempfile.mkstemp(dir=path.parent, prefix=".platform-keys-")  # mode 0600
    try:
        with os.fdopen(fd, "w") as f:
            f.write(MADE_BY_GATEWAY + f"local:{secrets.token_urlsafe(32)}\n")
        with contextlib.suppress(FileExistsError):  # another gateway made it first: use that one
            os.link(draft, path)
            return True
    finally:
        os.unlink(draft)
    return False


class Keyring:
    """The keys a gateway honours. Every presented key is compared with every known one in constant time."""

    def __init__(self, keys: list[PlatformKey]):
        self.keys = list(keys)

    def match(self, presented: str | None) -> PlatformKey:
        """The key the request presented, or KeyRefused saying why not."""
        if not presented:
            raise KeyRefused("platform_key_missing", f"opening a game needs a platform key: send `{HEADER}: <key>` "
                                                     "(the gateway's operator has them in its platform-keys file)")
        digest = hashlib.sha256(presented.strip().encode("utf-8", "replace")).digest()
        found = None
        for key in self.keys:   # no early exit: the time taken says nothing about which key came close
            if hmac.compare_digest(digest, key.digest):
                found = key
        if found is None:
            raise KeyRefused("platform_key_unknown", f"this gateway knows no such platform key (sent as {HEADER})")
        return found
