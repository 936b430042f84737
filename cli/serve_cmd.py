"""`zioncheck serve`: run the services for real use, all or one by name."""
import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path

from zioncheck.cli import words
from zioncheck.cli.options import (
    PORTS,
    CommandFailed,
    add_bus,
    add_service_options,
    check_range,
    check_service_options,
    number,
    serve_metrics,
    whole,
)
from zioncheck.services.archiver.service import DEFAULT_RETENTION, MAX_RETENTION
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import NoPartitions, PartitionMismatch
from zioncheck.services.gateway.keys import HEADER
from zioncheck.services.gateway.limits import Limits
from zioncheck.services.gateway.server import Running
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import SERVICES, JetStreamAway, Services, Settings, TopologyMissing

# Not a FastStream subscriber: the HTTP and WebSocket gateway runs beside them, and only when named.
CHOICES = (*SERVICES, "gateway")


class NoGateway(Exception):
    """The gateway cannot start: its address cannot be bound, or its platform keys cannot be read."""


def add(sub) -> None:
    p = sub.add_parser("serve", help=words.SERVE_HELP, description=words.SERVE_DESCRIPTION)
    p.add_argument("services", nargs="*", metavar=words.METAVAR_SERVICE,
                   help=words.SERVE_SERVICES_HELP.format(services=", ".join(CHOICES), default=", ".join(SERVICES)))
    add_bus(p)
    p.add_argument("--replicas", type=whole, metavar=words.METAVAR_N, help=words.SERVE_REPLICAS_HELP)
    add_service_options(p, "info")
    p.add_argument("--archive", metavar=words.METAVAR_DIR, type=Path, help=words.SERVE_ARCHIVE_HELP)
    p.add_argument("--retention", type=number, default=DEFAULT_RETENTION, metavar=words.METAVAR_SECONDS,
                   help=words.SERVE_RETENTION_HELP.format(low=0, high=f"{MAX_RETENTION:.0f}",
                                                          default=f"{DEFAULT_RETENTION:.0f}"))
    p.add_argument("--host", default="127.0.0.1", metavar=words.METAVAR_HOST,
                   help=words.GATEWAY_HOST_HELP.format(default="127.0.0.1"))
    p.add_argument("--port", type=whole, default=8080, metavar=words.METAVAR_PORT,
                   help=words.GATEWAY_PORT_HELP.format(default=8080))
    _add_gateway_limits(p)
    p.set_defaults(func=main)


def _add_gateway_limits(p) -> None:
    """The gateway's platform keys and limits (docs/gateway.md); defaults from services.gateway.limits.Limits."""
    d = Limits()
    g = p.add_argument_group(words.GATEWAY_LIMITS_TITLE)
    g.add_argument("--platform-keys", metavar=words.METAVAR_FILE, type=Path, help=words.PLATFORM_KEYS_HELP)
    g.add_argument("--public-lobby", action=argparse.BooleanOptionalAction, default=None,
                   help=words.PUBLIC_LOBBY_HELP)
    n, minutes = words.METAVAR_N, words.METAVAR_MINUTES
    g.add_argument("--games-per-minute", type=number, metavar=n, default=d.games_per_minute,
                   help=words.GAMES_PER_MINUTE_HELP.format(default=f"{d.games_per_minute:g}"))
    g.add_argument("--requests-per-second", type=number, metavar=n, default=d.requests_per_second,
                   help=words.REQUESTS_PER_SECOND_HELP.format(default=f"{d.requests_per_second:g}"))
    g.add_argument("--commands-per-second", type=number, metavar=n, default=d.commands_per_second,
                   help=words.COMMANDS_PER_SECOND_HELP.format(default=f"{d.commands_per_second:g}"))
    g.add_argument("--command-burst", type=whole, metavar=n, default=d.command_burst,
                   help=words.COMMAND_BURST_HELP.format(default=d.command_burst))
    g.add_argument("--open-games", type=whole, metavar=n, default=d.open_games,
                   help=words.OPEN_GAMES_HELP.format(default=d.open_games))
    g.add_argument("--idle-minutes", type=number, metavar=minutes, default=d.idle_minutes,
                   help=words.IDLE_MINUTES_HELP.format(default=f"{d.idle_minutes:g}"))


# The gateway's limits a person gives: each more than 0, or each at least 1 (as services.gateway.limits.Limits keeps).
MORE_THAN_0 = ("games_per_minute", "requests_per_second", "commands_per_second", "idle_minutes")
AT_LEAST_1 = ("command_burst", "open_games")


def _limits(args) -> Limits:
    """The gateway's limits, or CommandFailed naming the first option out of its range."""
    for name in MORE_THAN_0:
        if not (value := getattr(args, name)) > 0:
            raise CommandFailed(words.MUST_BE_MORE_THAN_0.format(option=_option(name), value=f"{value:g}"))
    for name in AT_LEAST_1:
        if (value := getattr(args, name)) < 1:
            raise CommandFailed(words.MUST_BE_AT_LEAST_1.format(option=_option(name), value=value))
    return Limits(games_per_minute=args.games_per_minute, requests_per_second=args.requests_per_second,
                  commands_per_second=args.commands_per_second, command_burst=args.command_burst,
                  open_games=args.open_games, idle_minutes=args.idle_minutes)


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def main(args) -> int:
    unknown = sorted(set(args.services) - set(CHOICES))   # every option is checked before anything starts
    if unknown:
        raise CommandFailed(words.UNKNOWN_SERVICE.format(name=unknown[0], services=", ".join(CHOICES)))
    limits = _limits(args)
    check_service_options(args)
    check_range("--port", args.port, *PORTS)
    if not 0 <= args.retention <= MAX_RETENTION:   # said in whole seconds: check_range's %g would write 3.1536e+08
        raise CommandFailed(words.OPTION_OUT_OF_RANGE.format(option="--retention", low=0, high=f"{MAX_RETENTION:.0f}",
                                                             value=f"{args.retention:g}"))
    if args.archive is not None:
        _check_archive_folder(args.archive)
    configure_logging(args.log_level)
    serve_metrics(args.metrics_port)
    with bus(args.nats_url, args.credentials) as access:
        try:
            asyncio.run(_serve(args.services or list(SERVICES), access, args.replicas, args.host, args.port,
                               args.platform_keys, limits, args.public_lobby,
                               Settings(archive=args.archive, retention=args.retention)))
        except (NoGateway, TopologyMissing, PartitionMismatch, NoPartitions, JetStreamAway) as error:
            raise CommandFailed(str(error)) from None
    return 0


def _check_archive_folder(folder: Path) -> None:
    """CommandFailed, in one line, unless archives can be written in `folder` (made when missing)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".zioncheck-{os.getpid()}.probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        raise CommandFailed(words.ARCHIVE_FOLDER_UNUSABLE.format(folder=folder, reason=words.os_reason(error))
                            ) from None


async def _serve(names: list[str], access: Access, replicas: int | None, host: str, port: int,
                 platform_keys: Path | None, limits: Limits, public_lobby: bool | None = None,
                 settings: Settings | None = None) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    subscribers = [name for name in names if name != "gateway"]
    services = await Services().start(subscribers, access, replicas=replicas, settings=settings)
    try:
        gateway = await Running.start(access, host, port, platform_keys=platform_keys, limits=limits,
                                      public_lobby=public_lobby) \
            if "gateway" in names else None
    except OSError as error:
        await services.stop()
        raise NoGateway(words.CANNOT_SERVE_GATEWAY.format(host=host, port=port, reason=words.os_reason(error))
                        ) from None
    except ValueError as error:   # a keys file (keys.KeysError) or a secret the gateway cannot use
        await services.stop()
        raise NoGateway(str(error)) from None
    for change in services.topology_changes:  # on stderr: stdout's first line stays "serving ..."
        print(words.STREAMS_CHANGED.format(change=change), file=sys.stderr, flush=True)
    print(words.say("cli.SERVING", services=", ".join(names), servers=", ".join(access.servers),
                    count=services.partitions), flush=True)
    if gateway:
        print(words.GATEWAY_AT.format(url=gateway.url), flush=True)
        keys = words.PLATFORM_KEY_MADE if gateway.keys_made else words.PLATFORM_KEYS_IN
        print(keys.format(file=gateway.keys_file, header=HEADER), flush=True)
        if gateway.gateway.public_lobby:
            print(words.LOBBY_PUBLIC.format(url=gateway.url), flush=True)
        for line in await roll_call(gateway):
            print(line, flush=True)
    await stop.wait()
    if gateway:
        await gateway.stop()
    await services.stop()


async def roll_call(gateway: Running) -> list[str]:
    """One line a house service: whether it answers the gateway (services/gateway/roll_call.py), and what is
    missed while it does not."""
    answering = await gateway.gateway.games.roll_call.answering(SERVICES)
    keys = {True: "cli.ROLL_CALL_ANSWERS", False: "cli.ROLL_CALL_SILENT", None: "cli.ROLL_CALL_UNSEEN"}
    return [words.say(keys[answers], service=name, missed=words.say(f"cli.MISSED_{name.upper()}"))
            for name, answers in answering.items()]
