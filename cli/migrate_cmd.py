"""`zioncheck migrate`: move a store of the layout before partitions into the partition streams."""
import asyncio
import sys

from zioncheck.cli.options import CommandFailed, add_bus
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import bus
from zioncheck.services.migrate import MigrationRefused, migrate


def add(sub) -> None:
    p = sub.add_parser("migrate", help="move games stored before partitions into the partition streams",
                       description="A store written before games were spread over partitions keeps every game "
                                   "in ZC_COMMANDS and ZC_LOG. This copies each game's commands and log into its "
                                   "partition's streams (the log's causes renumbered to the copied commands), so "
                                   "finished games replay the same and live ones play on. Run it once, with the "
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
    try:
        return await migrate(nc.jetstream(), say=lambda line: print(line, file=sys.stdout))
    finally:
        await nc.close()
