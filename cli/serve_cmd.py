"""`zioncheck serve`: run the services for real use, all or one by name."""
import argparse
import asyncio
import signal
import sys
from pathlib import Path

from zioncheck.cli.options import add_bus
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import NoPartitions, PartitionMismatch
from zioncheck.services.gateway.keys import HEADER
from zioncheck.services.gateway.limits import Limits
from zioncheck.services.gateway.server import Running
from zioncheck.services.observability import configure_logging, serve_metrics
from zioncheck.services.wiring import SERVICES, Services, TopologyMissing

# Not a FastStream subscriber: the HTTP and WebSocket gateway runs beside them, and only when named.
CHOICES = (*SERVICES, "gateway")


class NoGateway(Exception):
    """The gateway cannot start: its address cannot be bound, or its platform keys cannot be read."""


def add(sub) -> None:
    p = sub.add_parser("serve", help="run the table, dealer, scoring, projector and bots services (all, or one by "
                                     "name)",
                       description="Run services until interrupted. Several instances may run against one "
                                   "NATS server or cluster; they share durable consumers. `bots` plays the bot "
                                   "seats of every game, taken up again from the log after a restart: one "
                                   "instance is enough (a second plays the same seats, and half its moves are "
                                   "refused). `gateway` serves HTTP and WebSocket access and the web page (see "
                                   "docs/openapi.json); it runs only when named.")
    p.add_argument("services", nargs="*", metavar="SERVICE",
                   help=f"which services ({', '.join(CHOICES)}; default {', '.join(SERVICES)})")
    add_bus(p, "start an embedded one")
    p.add_argument("--replicas", type=int, help="JetStream replicas for new streams (3 on a cluster); given, it "
                                                "also changes existing streams' replicas, and says so (default: "
                                                "new streams get 1, existing ones keep theirs)")
    p.add_argument("--metrics-port", type=int, default=0, help="serve Prometheus metrics on this port")
    p.add_argument("--log-level", default="info", help="log level (default info)")
    p.add_argument("--host", default="127.0.0.1", help="the gateway's address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="the gateway's port (default 8080)")
    _add_gateway_limits(p)
    p.set_defaults(func=main)


def _add_gateway_limits(p) -> None:
    """The gateway's platform keys and limits (docs/gateway.md); defaults from services.gateway.limits.Limits."""
    d = Limits()
    g = p.add_argument_group("gateway keys and limits")
    g.add_argument("--platform-keys", metavar="FILE", type=Path,
                   help="the platform keys that may open games, one a line, optionally name:key "
                        "(default: .zioncheck/platform-keys, made with one random key on first start)")
    g.add_argument("--public-lobby", action=argparse.BooleanOptionalAction, default=None,
                   help="let anyone who reaches the gateway open games from its lobby page, without a platform "
                        "key, counted under one shared name with its limits (default: on when --host is a "
                        "loopback address, off otherwise; behind a proxy on this machine, say --no-public-lobby)")
    g.add_argument("--games-per-minute", type=float, metavar="N", default=d.games_per_minute,
                   help=f"games one platform key may open a minute (default {d.games_per_minute:g})")
    g.add_argument("--requests-per-second", type=float, metavar="N", default=d.requests_per_second,
                   help=f"requests one platform key may make a second (default {d.requests_per_second:g})")
    g.add_argument("--commands-per-second", type=float, metavar="N", default=d.commands_per_second,
                   help=f"commands one seat may send a second (default {d.commands_per_second:g})")
    g.add_argument("--command-burst", type=int, metavar="N", default=d.command_burst,
                   help=f"commands one seat may send at once before that (default {d.command_burst})")
    g.add_argument("--open-games", type=int, metavar="N", default=d.open_games,
                   help=f"games one platform key may have open at a time (default {d.open_games})")
    g.add_argument("--idle-minutes", type=float, metavar="MINUTES", default=d.idle_minutes,
                   help=f"minutes without a move after which a game no longer counts as open and its bots "
                        f"stop (default {d.idle_minutes:g})")


def _limits(args) -> Limits:
    return Limits(games_per_minute=args.games_per_minute, requests_per_second=args.requests_per_second,
                  commands_per_second=args.commands_per_second, command_burst=args.command_burst,
                  open_games=args.open_games, idle_minutes=args.idle_minutes)


def main(args) -> int:
    unknown = sorted(set(args.services) - set(CHOICES))
    if unknown:
        print(f"zioncheck serve: unknown service {unknown[0]!r} (choose from {', '.join(CHOICES)})", file=sys.stderr)
        return 2
    try:
        limits = _limits(args)
    except ValueError as error:
        print(f"zioncheck serve: {error}", file=sys.stderr)
        return 2
    configure_logging(args.log_level)
    serve_metrics(args.metrics_port)
    with bus(args.nats_url, args.credentials) as access:
        try:
            asyncio.run(_serve(args.services or list(SERVICES), access, args.replicas, args.host, args.port,
                               args.platform_keys, limits, args.public_lobby))
        except (NoGateway, TopologyMissing, PermissionError, PartitionMismatch, NoPartitions) as error:
            print(f"zioncheck serve: {error}", file=sys.stderr)
            return 2
    return 0


async def _serve(names: list[str], access: Access, replicas: int | None, host: str, port: int,
                 platform_keys: Path | None, limits: Limits, public_lobby: bool | None = None) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    subscribers = [name for name in names if name != "gateway"]
    services = await Services().start(subscribers, access, replicas=replicas)
    try:
        gateway = await Running.start(access, host, port, platform_keys=platform_keys, limits=limits,
                                      public_lobby=public_lobby) \
            if "gateway" in names else None
    except OSError as error:
        await services.stop()
        raise NoGateway(f"cannot serve the gateway on {host}:{port}: {error.strerror}") from None
    except ValueError as error:   # a keys file (keys.KeysError) or a secret the gateway cannot use
        await services.stop()
        raise NoGateway(str(error)) from None
    for change in services.topology_changes:  # on stderr: stdout's first line stays "serving ..."
        print(f"streams: {change}", file=sys.stderr, flush=True)
    print(f"serving {', '.join(names)} on {', '.join(access.servers)} (games in {services.partitions} partitions)",
          flush=True)
    if gateway:
        print(f"gateway on {gateway.url}/ (API: {gateway.url}/openapi.json)", flush=True)
        made = "made a new platform key in" if gateway.keys_made else "platform keys in"
        print(f"{made} {gateway.keys_file}: opening a game takes one, as {HEADER} "
              f"(on the web page, paste it into its key field where the lobby is not public)", flush=True)
        if gateway.gateway.public_lobby:
            print(f"the lobby is public: anyone who reaches {gateway.url}/ may open games there without a key "
                  "(--no-public-lobby to require one)", flush=True)
    await stop.wait()
    if gateway:
        await gateway.stop()
    await services.stop()
