"""`zioncheck migrate`: move a store of the layout before partitions into the partition streams, and
one written before tenants to the default tenant's names."""
import asyncio
import sys

from zioncheck.cli.options import CommandFailed, add_bus
from zioncheck.cli.view_admin import rebuild
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import DEFAULT_TENANT, FEED
from zioncheck.services.migrate import MigrationRefused, before_tenants, migrate


def add(sub) -> None:
    p = sub.add_parser("migrate", help="move games stored before partitions or tenants to where they are read now",
                       description="A store written before games were spread over partitions keeps every game "
                                   "in ZC_COMMANDS and ZC_LOG. This copies each game's commands and log into its "
                                   "partition's streams (the log's causes renumbered to the copied commands), so "
                                   "finished games replay the same and live ones play on. A store written before "
                                   "tenants has its games' views, feed and standings written again under the "
                                   "default tenant's names (`platform`). Run it once, with the "
                                   "services stopped, before they first start on the partitioned layout; it logs "
                                   "in as the operator. The old streams are left for you to remove.")
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
        games = await before_tenants(js, say=say)
        if games:   # their views and feed written again under the default tenant's names, the old feed purged
            await rebuild(js, games, feed=True, say=say)
            for game in games:
                await js.purge_stream(FEED, subject=f"zc.feed.{game}")
            say(f"{len(games)} game(s) of the store before tenants are the {DEFAULT_TENANT} tenant's")
        return moved
    finally:
        await nc.close()


def say(line: str) -> None:
    print(line, file=sys.stdout)
