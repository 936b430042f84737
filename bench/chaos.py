"""`python -m bench chaos`: kill -9 of every kind of process, the server included, while bot games play;
then every game is checked (services/intact.py): its log what one uninterrupted table writes for its
commands, its public view the projection of its log, its standings the fold of its hand ends.

Every service runs as its own process (`zioncheck serve <name>`; two tables, dealers and intakes),
the server as the embedded one, on one store; with `--cluster`, three nodes in processes, every
stream with three replicas. Every KILL_EVERY seconds one process, picked in turn from every kind,
is killed with SIGKILL and started again a moment later (the server, or a cluster's nodes in turn,
on the same port and store).
A watcher reads each game's last log message once every WATCH seconds: a game's standstill is a
time it went without a new batch, counted from when its partition's log took writes again (the
server back, a leader elected: the partition's first batch after a pause), and is put down to the
kind of process killed last. The last line gives games intact
of games played and the longest standstill. About five minutes; `python -m bench.chaos --games N
--seconds S --settle S [--cluster]` runs another size.
"""
import argparse
import asyncio
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import Row
from zioncheck.client import GameClient
from zioncheck.contracts.commands import Limits, StartGame
from zioncheck.services import intact
from zioncheck.services.bus.access import Access, connect, routes_block, write_private
from zioncheck.services.bus.embedded import NatsServer, ServerProcess, cli_args, config_text, free_port
from zioncheck.services.bus.log_store import ended
from zioncheck.services.bus.topology import layout
from zioncheck.services.wiring import prepare_topology

GAMES, SECONDS, KILL_EVERY, BACK_AFTER, WATCH, SETTLE, QUIET = 32, 120.0, 3.0, 0.5, 0.2, 240.0, 60.0
PARTITIONS = 2
# Each kind of process; the table, the dealer and the intake twice, as a deployment runs them (one
# takes the work over when the other dies).
KINDS = ("server", "table", "dealer", "scoring", "projector", "intake", "bots", "table-2", "intake-2", "dealer-2")
BOT_PACE = 0.1   # seconds a bot waits before each move: the games outlast the kills
LAST: list[str] = []


class Fleet:
    """The server (or a cluster's three nodes) and the services' processes, each started again after a kill."""

    def __init__(self, folder: Path, cluster: bool = False):
        self.folder = folder
        if cluster:
            credentials = folder / "credentials"
            self.configs = _cluster_configs(folder, credentials)
            self.nodes = [ServerProcess(config, port) for config, port in self.configs]
        else:
            server = NatsServer(folder / "jetstream", partitions=PARTITIONS)
            credentials, self.nodes = server.credentials, [server]
            self.configs = [(server.config, server.port)]
        self.access = Access(tuple(node.url for node in self.nodes), credentials)
        self.cli_args = cli_args(",".join(self.access.servers), credentials)
        self.processes: dict[str, subprocess.Popen] = {}
        self.up_since = time.monotonic()   # when the log last began accepting writes
        self.kills: dict[str, int] = dict.fromkeys(KINDS, 0)
        self.last_killed, self.node, self.exits = "nothing", 0, 0

    def start(self, kind: str) -> None:
        if kind == "server":
            self.nodes[self.node] = ServerProcess(*self.configs[self.node])
            self.up_since = time.monotonic()
            return
        self.processes[kind] = subprocess.Popen(
            [sys.executable, "-m", "zioncheck.cli.main", "serve", kind.split("-")[0], *self.cli_args,
             "--log-level", "error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def kill(self, kind: str) -> None:
        self.kills[kind] += 1
        self.last_killed = kind.split("-")[0]
        if kind == "server":   # a cluster's nodes in turn
            self.node = (self.node + 1) % len(self.nodes)
            self.nodes[self.node].kill()
        else:
            os.kill(self.processes[kind].pid, signal.SIGKILL)
            self.processes[kind].wait()

    def revive(self) -> None:
        """Start again a service that exited on its own (one that could not reach the store as it
        started, say), as a deployment's supervisor would."""
        for kind, process in list(self.processes.items()):
            if process.poll() is not None:
                self.exits += 1
                self.start(kind)

    def stop(self) -> None:
        for process in self.processes.values():
            process.kill()
            process.wait()
        for node in self.nodes:
            node.stop()


def _cluster_configs(folder: Path, credentials: Path) -> list[tuple[Path, int]]:
    """Three nodes' configs, as deploy/cluster makes them: routes that log in, streams with three replicas."""
    ports, routes = [free_port() for _ in range(3)], [free_port() for _ in range(3)]
    password, made = secrets.token_hex(16), []
    for i in range(3):
        cluster = (f'cluster {{\n  name: zc-chaos\n  listen: "127.0.0.1:{routes[i]}"\n'
                   f'{routes_block(password, [f"127.0.0.1:{r}" for r in routes])}}}\n')
        text = f"server_name: n{i}\n" + config_text(ports[i], folder / f"n{i}", True, credentials, extra=cluster,
                                                    partitions=PARTITIONS, replicas=3)
        made.append((write_private(folder / f"n{i}.conf", text), ports[i]))
    return made


class Watch:
    """Each game's last batch seen and when it came; the longest standstill, by the kind of process
    killed last before the game moved again. A standstill counts from when the game's partition took
    writes again: its first batch after a pause of PAUSE or more (a leader elected, a server back)."""

    PAUSE = 0.5

    def __init__(self, games: list[str]):
        now = time.monotonic()
        self.last = dict.fromkeys(games, 0)
        self.moved = dict.fromkeys(games, now)
        self.over: set[str] = set()
        self.longest: dict[str, float] = {}
        self.partition_moved: dict[int, float] = {}
        self.resumed: dict[int, float] = {}

    def saw(self, game: str, seq: int, over: bool, up_since: float, killed: str, partition: int = 0) -> None:
        now = time.monotonic()
        if seq != self.last[game]:
            if now - self.partition_moved.get(partition, now) >= self.PAUSE:
                self.resumed[partition] = now
            self.partition_moved[partition] = now
            stood = now - max(self.moved[game], up_since, self.resumed.get(partition, 0.0))
            self.longest[killed] = max(self.longest.get(killed, 0.0), stood)
            self.last[game], self.moved[game] = seq, now
        if over:
            self.over.add(game)


async def _watch(fleet: Fleet, watch: Watch, stop: asyncio.Event) -> None:
    nc, told = None, set()
    while not stop.is_set():
        try:
            if nc is None or nc.is_closed:
                nc = await connect(fleet.access, "operator")
            js, where = nc.jetstream(), await layout(nc.jetstream())
        except Exception:  # noqa: BLE001 - the server is down: looked at again once it is back
            await asyncio.sleep(WATCH)
            continue
        for game in [g for g in watch.last if g not in watch.over]:
            try:
                last = await js.get_msg(where.log_stream(game), subject=where.log_subject(game))
                watch.saw(game, last.seq, bool(await ended(js, where.of(game), game)), fleet.up_since,
                          fleet.last_killed, where.of(game))
            except Exception as error:  # noqa: BLE001 - no log yet, or no leader: looked at next time
                if type(error).__name__ not in told:
                    told.add(type(error).__name__)
                    print(f"chaos: watching {game}: {error!r:.200}", file=sys.stderr, flush=True)
        await asyncio.sleep(WATCH)
    if nc is not None:
        await nc.close()


async def _start_games(fleet: Fleet, games: int) -> list[str]:
    """Games of four bots, three hands each, sent as the platform would (sent again until the intake,
    still starting, answers)."""
    platform = await GameClient.connect(fleet.access, "platform")
    ids = [f"chaos-{i}-{random.getrandbits(32):08x}" for i in range(games)]
    for game in ids:
        await platform.send(game, StartGame(game_id=game, players=4, first_hand=4, seats=["greedy"] * 4,
                                            limits=Limits(bot_seconds=BOT_PACE, turn_seconds=10)),
                            msg_id=f"start-{game}")
    await platform.close()
    return ids


async def _topology(fleet: Fleet, cluster: bool) -> None:
    for _ in range(100):   # a cluster elects its JetStream leader first
        try:
            await prepare_topology(fleet.access, replicas=3 if cluster else None)
            return
        except Exception:  # noqa: BLE001 - not ready yet
            await asyncio.sleep(0.3)
    await prepare_topology(fleet.access, replicas=3 if cluster else None)


async def _chaos(folder: Path, games: int, seconds: float, cluster: bool) -> dict:
    fleet = Fleet(folder, cluster)
    try:
        await _topology(fleet, cluster)
        for kind in KINDS[1:]:
            fleet.start(kind)
        ids = await _start_games(fleet, games)
        watch, stop = Watch(ids), asyncio.Event()
        watcher = asyncio.create_task(_watch(fleet, watch, stop))
        ends, turn = time.monotonic() + seconds, 0
        while time.monotonic() < ends and len(watch.over) < len(ids):
            await asyncio.sleep(KILL_EVERY)
            kind = KINDS[turn % len(KINDS)]
            turn += 1
            fleet.kill(kind)
            await asyncio.sleep(BACK_AFTER)
            fleet.start(kind)
            fleet.revive()
            print(f"chaos: killed {kind} ({sum(fleet.kills.values())} kills, {len(watch.over)} of {len(ids)} "
                  f"games over)", file=sys.stderr, flush=True)
        settle = time.monotonic() + SETTLE
        while len(watch.over) < len(ids) and time.monotonic() < settle:
            await asyncio.sleep(1.0)
            fleet.revive()
        stop.set()
        await watcher
        nc = await connect(fleet.access, "operator")
        broken = await _checked(nc.jetstream(), ids)
        await nc.close()
        return {"games": len(ids), "broken": broken, "kills": dict(fleet.kills), "standstill": watch.longest,
                "over": len(watch.over), "exits": fleet.exits}
    finally:
        fleet.stop()


async def _checked(js, games: list[str]) -> dict[str, list[str]]:
    """Each game's problems (services/intact.py), once the services have caught up: the scores and views
    of a game's last batches are written a moment after them, so a game is looked at again for up to
    QUIET seconds before what is wrong with it counts."""
    broken, until = {}, time.monotonic() + QUIET
    for game in games:
        while found := await intact.problems(js, game):
            if time.monotonic() > until:
                broken[game] = found
                break
            await asyncio.sleep(1.0)
    return broken


def chaos(games: int = GAMES, seconds: float = SECONDS, cluster: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(_chaos(Path(folder), games, seconds, cluster))


def run(cluster: bool = False) -> list[Row]:
    result = chaos(GAMES, SECONDS, cluster)
    where = f"a 3-node cluster, replicas 3, P={PARTITIONS}" if cluster else f"one server, P={PARTITIONS}"
    intact_games = result["games"] - len(result["broken"])
    kills = ", ".join(f"{kind} {count}" for kind, count in result["kills"].items())
    stood = result["standstill"]
    by_kind = ", ".join(f"after {kind} {seconds:.1f} s" for kind, seconds in sorted(stood.items()))
    rows = [Row("chaos: games intact", intact_games, "games", f"{result['games']} games of 4 bots, {where}, "
                f"kill -9 every {KILL_EVERY:g} s: {kills}; {result['exits']} exited on their own and were "
                f"started again", result["games"]),
            Row("chaos: longest standstill after a server kill", stood.get("server", 0.0), "s",
                "a game without a new batch, from when its partition's log took writes again", 1.0, at_most=True),
            Row("chaos: longest standstill", max(stood.values(), default=0.0), "s", by_kind)]
    for game, found in result["broken"].items():
        print(f"chaos: {game}: {'; '.join(found)}", file=sys.stderr)
    LAST[:] = [f"chaos: {intact_games} of {result['games']} games intact; longest standstill "
               f"{max(stood.values(), default=0.0):.1f} s ({by_kind})"]
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=GAMES, help=f"bot games to play (default {GAMES})")
    parser.add_argument("--seconds", type=float, default=SECONDS,
                        help=f"how long to keep killing (default {SECONDS:g})")
    parser.add_argument("--settle", type=float, default=SETTLE,
                        help=f"how long the games may take to end once the kills stop (default {SETTLE:g} s)")
    parser.add_argument("--cluster", action="store_true",
                        help="three nodes in processes, every stream with three replicas; a node killed in turn")
    args = parser.parse_args()
    GAMES, SECONDS, SETTLE = args.games, args.seconds, args.settle
    for row in run(args.cluster):
        print(f"{row.name}: {row.rate:g} {row.unit} ({row.workload})")
    print(*LAST)
