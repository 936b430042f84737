"""`zioncheck archive`: an archived game's signed archive, written to a file to copy to any machine, where
`zioncheck verify FILE` checks it and `zioncheck replay FILE` tells it, with no server."""
import asyncio
import contextlib
import os
from pathlib import Path

from zioncheck.application.archive import verify
from zioncheck.cli import words
from zioncheck.cli.log_reader import READER, read_archive, unpack_or_fail
from zioncheck.cli.options import CommandFailed, add_bus, me
from zioncheck.cli.verify_cmd import holds_key, house_key
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import CREDENTIALS, bus
from zioncheck.services.bus.topology import valid_game_key


def add(sub) -> None:
    p = sub.add_parser("archive", help=words.ARCHIVE_HELP, description=words.ARCHIVE_DESCRIPTION)
    p.add_argument("game", metavar=words.METAVAR_GAME, help=words.ARCHIVE_GAME_HELP)
    p.add_argument("-o", "--output", metavar=words.METAVAR_FILE, help=words.ARCHIVE_OUTPUT_HELP)
    p.add_argument("--archive", metavar=words.METAVAR_DIR, help=words.EXPORT_ARCHIVE_HELP)
    add_bus(p, words.NATS_URL_STORE)
    p.set_defaults(func=main)


def main(args) -> int:
    if not valid_game_key(args.game):
        raise CommandFailed(words.NOT_A_GAME_ID.format(game=args.game))
    with bus(args.nats_url, args.credentials) as access:
        data = asyncio.run(_fetch(access, args.game, args.archive))
    archived = unpack_or_fail(data, args.game)
    folder = Path(args.credentials) if args.credentials else CREDENTIALS
    key = house_key(None, folder) if holds_key(folder) else archived.key_id
    if problems := verify(data, key):   # the store's copy is damaged: nothing is written that would not verify
        raise CommandFailed(words.ARCHIVE_NOT_INTACT.format(game=args.game, count=len(problems), me=me()), 1)
    output = args.output or f"{args.game}.zca"
    _write(output, data)
    print(words.ARCHIVE_WRITTEN.format(file=output, game=args.game, kib=f"{len(data) / 1024:.1f}"))
    print(words.ARCHIVE_CHECK_IT.format(me=me(), file=os.path.basename(output), key=key))
    return 0


async def _fetch(access, game: str, archive: str | None) -> bytes:
    nc = await connect(access, READER)
    try:
        return await read_archive(nc.jetstream(), game, archive)
    finally:
        await nc.close()


def _write(path: str, data: bytes) -> None:
    """The file whole, or none: written beside its name, then renamed over it."""
    temporary = f"{path}.part"
    try:
        with open(temporary, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise CommandFailed(words.CANNOT_WRITE.format(file=path, reason=words.os_reason(error))) from None

