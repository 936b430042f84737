"""`zioncheck migrate`: move a store of the layout before partitions into the partition streams, and
one written before tenants to the default tenant's names."""
import asyncio
import sys

from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed, add_bus
from zioncheck.cli.view_admin import rebuild
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import DEFAULT_TENANT, FEED
from zioncheck.services.migrate import MigrationRefused, before_tenants, derived_off_the_synced_path, migrate, unseal


def add(sub) -> None:
    p = sub.add_parser("migrate", help=words.MIGRATE_HELP, description=words.MIGRATE_DESCRIPTION)
    add_bus(p)
    p.set_defaults(func=main)


def main(args) -> int:
    with bus(args.nats_url, args.credentials) as access:
        try:
            moved = asyncio.run(_run(access))
        except MigrationRefused as refused:
            raise CommandFailed(str(refused)) from None
    return 0 if moved >= 0 else 1


async def _run(access) -> int:
    nc = await connect(access, "operator")
    js = nc.jetstream()
    try:
        moved = await migrate(js, say=say)
        await unseal(js, say=say)
        games = await before_tenants(js, say=say)
        if games:   # their views and feed written again under the default tenant's names, the old feed purged
            await rebuild(js, games, feed=True, say=say)
            for game in games:
                await js.purge_stream(FEED, subject=f"zc.feed.{game}")
            say(words.say("cli.MIGRATED_TENANT", count=len(games), tenant=DEFAULT_TENANT))
        remade = await derived_off_the_synced_path(js, say=say)
        if remade:   # made again empty: every game's views (and feed) written again
            await rebuild(js, None, feed=FEED in remade, say=say)
        return moved
    finally:
        await nc.close()


def say(line: str) -> None:
    print(line, file=sys.stdout)
