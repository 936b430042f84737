"""`zioncheck verify`: check a game's archive with the house's public key alone, and say what fails."""
import asyncio
import os
from pathlib import Path

from zioncheck.application.archive import Damaged, Problem, unpack, unreadable, verify
from zioncheck.cli import words
from zioncheck.cli.log_reader import READER, read_archive, tell_skipped
from zioncheck.cli.options import CommandFailed, add_bus
from zioncheck.services.bus.access import PUBLIC_KEY, SIGNING_KEY, connect, public_key
from zioncheck.services.bus.embedded import CREDENTIALS, bus
from zioncheck.services.bus.topology import valid_game_key

HEX_KEY = 64   # an ed25519 public key's hex digits


def add(sub) -> None:
    p = sub.add_parser("verify", help=words.VERIFY_HELP, description=words.VERIFY_DESCRIPTION)
    p.add_argument("source", metavar=words.METAVAR_SOURCE, help=words.VERIFY_SOURCE_HELP)
    p.add_argument("--key", metavar=words.METAVAR_KEY,
                   help=words.VERIFY_KEY_HELP.format(file=PUBLIC_KEY, folder=CREDENTIALS))
    p.add_argument("--archive", metavar=words.METAVAR_DIR, help=words.ARCHIVE_DIR_HELP)
    add_bus(p, words.NATS_URL_STORE)
    p.set_defaults(func=main)


def main(args) -> int:
    folder = Path(args.credentials) if args.credentials else CREDENTIALS
    given = house_key(args.key, folder) if args.key or holds_key(folder) else None
    data = archive_bytes(args.source, args.nats_url, args.credentials, args.archive)
    key = given or signer(data)   # no house key at hand (a machine that never saw the server): the archive's own
    problems = verify(data, key)
    unchecked = [] if given else [words.VERIFY_KEY_UNCHECKED.format(key=key)]
    if problems:
        print(words.VERIFY_FAILED.format(source=args.source, count=len(problems)))
        for problem in problems:
            print("  " + tell(problem))
        for line in unchecked:
            print(line)
        return 1
    record = unpack(data).record
    manifest = record.manifest
    print(words.VERIFY_INTACT.format(source=args.source, game=manifest.game, tenant=manifest.tenant,
                                     hands=manifest.hands, batches=manifest.batches, key=key[:16],
                                     hash=manifest.state_hash))
    if told := tell_skipped(unreadable(record)):   # signed as the log held them: the game went on past them
        print(told)
    for line in unchecked:
        print(line)
    return 0


def tell(problem: Problem) -> str:
    return words.say(f"tell.verify.{problem.what}", seq=problem.seq, hand=problem.hand, detail=problem.detail)


def holds_key(folder: Path) -> bool:
    """Whether the credentials folder holds the house's archive key (this is the house's machine, or a copy of it)."""
    return (folder / PUBLIC_KEY).is_file() or (folder / SIGNING_KEY).is_file()


def signer(data: bytes) -> str:
    """The public key an archive says signed it (what `verify` checks it with when no house key is given); a key
    that is no one's for bytes that are no archive, which `verify` then says it cannot read."""
    try:
        return unpack(data).key_id
    except Damaged:
        return "0" * HEX_KEY


def house_key(given: str | None, folder: Path = CREDENTIALS) -> str:
    """The public key to check with: given in hex, or a file holding it, or the credentials folder's."""
    if given and len(given) == HEX_KEY and all(c in "0123456789abcdefABCDEF" for c in given):
        return given.lower()
    path = Path(given) if given else folder / PUBLIC_KEY
    try:
        text = path.read_text().strip() if given else public_key(folder) if folder.is_dir() else ""
    except OSError as error:
        raise CommandFailed(words.CANNOT_READ.format(file=path, reason=words.os_reason(error))) from None
    if len(text) != HEX_KEY or any(c not in "0123456789abcdef" for c in text.lower()):
        raise CommandFailed(words.NOT_A_PUBLIC_KEY.format(file=path))
    return text.lower()


def archive_bytes(source: str, url: str | None = None, credentials: str | None = None,
                  archive: str | None = None) -> bytes:
    """An archive file's bytes, or an archived game's from its store; CommandFailed, in one line, if it
    cannot be read."""
    if not os.path.exists(source):
        if valid_game_key(source) and not source.endswith(".zca"):
            with bus(url, credentials) as access:
                return asyncio.run(_fetch(access, source, archive))
        raise CommandFailed(words.NO_SUCH_FILE.format(file=source))
    try:
        return Path(source).read_bytes()
    except OSError as error:
        raise CommandFailed(words.CANNOT_READ.format(file=source, reason=words.os_reason(error))) from None


async def _fetch(access, game: str, archive: str | None) -> bytes:
    nc = await connect(access, READER)
    try:
        return await read_archive(nc.jetstream(), game, archive)
    finally:
        await nc.close()

