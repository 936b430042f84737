"""`python -m bench chaos`: kill -9 of every kind of process, the server included, while bot games play, end, are
archived and are removed by retention; then four figures, each with its target:

- games intact: each game's log what one uninterrupted table writes for its commands, its public view the
  projection of its log, its standings the fold of its hand ends (services/intact.py), checked while the game is
  hot; and its archive, read through the records service as a platform reads it, holds that log, and its own
  commands replay to its own log;
- removed games that came back: once retention has taken every game out of the hot streams, the server is killed
  with -9 and started again; after it no hot stream or bucket holds anything of any of them (log, commands, views,
  feed, standings, scores, register, seeds, deadlines and fired removals), and a platform reads no view and no
  standings of them;
- the worst standstill a client saw: a client follows each game's log (the house's Follower, as the gateway and
  `zioncheck play` do) and notes when each new batch comes. A game's standstill is a gap between two batches its
  client saw, less the time in it that what was killed was down: from its kill until it was back (the server
  listening again; a service's new process serving, or the kill itself where another instance of it was serving
  already). Every gap from the first kill on counts (a game can take one batch just after the server is back and
  then stand still), each put down to what was killed in it, was down during it, or was back a moment before it
  (`standstills`);
- archives verified: every finished game's archive verifies with the house's public key.

Every service runs as its own process (`zioncheck serve <name>`; two tables, dealers and intakes, one of each other
service), the server as the embedded one, on one store; with `--cluster`, three nodes in processes, every stream
with three replicas (a node's kill costs its partitions a leader election, 4-9 s: docs/scaling.md). The gateway is
not in the run: the clients are the bench's own. Every KILL_EVERY seconds what is next in KILLS is killed with
SIGKILL and started again BACK_AFTER later (the server, or a cluster's nodes in turn, on the same port and store):
a table, a dealer or an intake while the other serves, and both intakes at once. The archiver keeps finished games
hot for RETENTION seconds, so games end, are archived and are removed while the kills go on; once every game is
over they go on among the processes that archive, remove and read finished games, until retention has removed every
game. About four minutes on two cores; `python -m bench.chaos --games N --seconds S` runs another size, and
`--trace FILE` writes what each client saw, each kill, when each game's public view came, and when each command
and batch was stored.
"""
import argparse
import asyncio
import itertools
import json
import random
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from bench import Row
from zioncheck.application.archive import Damaged, batches_of, unpack, verify
from zioncheck.client import GameClient, read_view
from zioncheck.contracts.commands import Limits, StartGame
from zioncheck.services import intact
from zioncheck.services.bus.access import Access, public_key, routes_block, write_private
from zioncheck.services.bus.embedded import NatsServer, ServerProcess, cli_args, config_text, free_port
from zioncheck.services.bus.log_store import read_batches, subject_counts
from zioncheck.services.bus.publish import request
from zioncheck.services.bus.topology import (
    FEED,
    OPEN,
    REMOVALS,
    SCORES,
    SEEDS,
    STANDINGS,
    VIEWS,
    commands_stream,
    feed_subject,
    kv_stream,
    kv_subject,
    layout,
    log_stream,
    log_subject,
    open_subject,
    public_view_key,
    removal_subject,
    remove_subject,
    schedule_subject,
    score_subject,
    seed_key,
    standings_key,
    stored_command_subject,
    view_keys,
    view_live_subject,
)
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import prepare_topology

GAMES, INTACT_AT_LEAST, SECONDS, SETTLE = 32, 30, 240.0, 60.0
KILL_EVERY, BACK_AFTER = 3.0, 0.5
RETENTION = 20.0          # seconds a finished game stays hot (the archiver's --retention): checked hot meanwhile
CHECK_BEFORE = 3.0        # a game's hot check ends this long before its retention runs out
REMOVED_WITHIN = 60.0     # seconds past a game's retention its removal may take, the kills going on
BACK_WITHIN = 30.0        # seconds the archiver has to take out again what a restarted server brought back
STANDSTILL = 1.0          # the target: seconds a client waits for a game's next batch once what was killed is back
SHOWN = 8                 # the kinds whose worst standstill the row names
PARTITIONS = 2
BOT_PACE = 0.1            # seconds a bot waits before each move: the games outlast many kills
FIRST_HAND = 5            # the games' first hand: two hands each, a game two minutes or so on two busy cores
PROCESSES = ("table", "table-2", "dealer", "dealer-2", "intake", "intake-2", "scoring", "projector", "archiver",
             "records", "bots")
# What each kill takes down, in turn, while games are played: the name it is counted under, and the processes.
# The kill after the server's is one that play does not wait on (the records service).
KILLS = (("server", ("server",)), ("records", ("records",)), ("table", ("table",)), ("intake", ("intake",)),
         ("dealer", ("dealer",)), ("projector", ("projector",)), ("scoring", ("scoring",)), ("bots", ("bots",)),
         ("archiver", ("archiver",)), ("table", ("table-2",)), ("intake alone", ("intake", "intake-2")),
         ("dealer", ("dealer-2",)), ("intake", ("intake-2",)))
# Once every game is over: what archives, removes and reads finished games, and the server.
END_KILLS = (("archiver", ("archiver",)), ("server", ("server",)), ("records", ("records",)),
             ("projector", ("projector",)), ("scoring", ("scoring",)), ("dealer", ("dealer",)),
             ("table", ("table",)))
LAST: list[str] = []
STARTED = [time.monotonic()]


@dataclass
class Life:
    """One run of a process (or of the server): when it started, when it served (None: never), when it ended."""
    started: float
    serving: float | None = None
    ended: float | None = None


def back_at(lives: list[Life], at: float) -> float | None:
    """When work killed at `at` could go on: `at` itself where another of `lives` was serving then and lived on,
    else the first that served after it (None: none did)."""
    times = [max(life.serving, at) for life in lives
             if life.serving is not None and (life.ended is None or life.ended > max(life.serving, at))]
    return min(times, default=None)


class Kill(NamedTuple):
    kind: str               # what was killed, as counted
    at: float               # when (time.monotonic())
    back: float | None      # when it was back (back_at); None: never


@dataclass
class Seen:
    """What a client following one game's log saw: when each new batch came (time.monotonic()), when its end."""
    times: list[float] = field(default_factory=list)
    over: float | None = None


class Standstill(NamedTuple):
    game: str
    kind: str         # what it is put down to (standstills)
    seconds: float    # the gap, less the time what was killed in it was down
    gap: float        # the whole gap between the two batches the client saw


def standstills(seen: dict[str, Seen], kills: list[Kill], until: float) -> list[Standstill]:
    """Each gap a client saw between two of its game's batches once the kills began (a game not over: its last
    batch to `until`), as a Standstill: the gap, less the time in it that anything killed was down (from its kill to
    its back; to the batch that ended the gap if it was not back by then). Every gap counts, not only those with a
    kill in them: a game can take one batch just after the server is back and then stand still.

    A gap is put down to what was killed in it, was down during it, or was back less than STANDSTILL before it began
    (`server+records`: both), else to the last kill before it (`after server`): which of them held the game up, the
    client cannot tell."""
    found = []
    first = min((kill.at for kill in kills), default=until)
    for game, client in seen.items():
        times = sorted(client.times) + ([] if client.over is not None else [until])
        for before, after in itertools.pairwise(times):
            if after <= first:
                continue
            earlier = sorted((kill for kill in kills if kill.at < after), key=lambda kill: kill.at)
            spans = [(max(before, kill.at), min(after, kill.back if kill.back is not None else after))
                     for kill in earlier]
            down = _covered([(start, end) for start, end in spans if end > start])
            near = [kill for kill in earlier if kill.back is None or kill.back + STANDSTILL > before]
            kind = "+".join(dict.fromkeys(kill.kind for kill in near)) or f"after {earlier[-1].kind}"
            found.append(Standstill(game, kind, after - before - down, after - before))
    return found


def _covered(spans: list[tuple[float, float]]) -> float:
    """How long the union of the spans (start, end) lasts."""
    total, reach = 0.0, None
    for start, end in sorted(spans):
        if reach is None or start > reach:
            total, reach = total + end - start, end
        elif end > reach:
            total, reach = total + end - reach, end
    return total


class Fleet:
    """The server (or a cluster's three nodes) and the services' processes, each started again after a kill, and
    each one's lives: when it served, as its first line on stdout says (`zioncheck serve`'s "serving ...")."""

    def __init__(self, folder: Path, cluster: bool, retention: float):
        self.folder, self.retention = folder, retention
        if cluster:
            credentials = folder / "credentials"
            self.configs = _cluster_configs(folder, credentials)
            self.nodes = [ServerProcess(config, port) for config, port in self.configs]
        else:
            server = NatsServer(folder / "jetstream", partitions=PARTITIONS)
            credentials, self.nodes = server.credentials, [server]
            self.configs = [(server.config, server.port)]
        self.servers = [f"n{i}" for i in range(len(self.nodes))] if cluster else ["server"]
        now = time.monotonic()
        self.lives: dict[str, list[Life]] = {name: [Life(now, now)] for name in self.servers}
        self.access = Access(tuple(node.url for node in self.nodes), credentials)
        self.cli_args = cli_args(",".join(self.access.servers), credentials)
        self.processes: dict[str, asyncio.subprocess.Process] = {}
        self.readers: list[asyncio.Task] = []
        self.kills: list[tuple[str, float, tuple[str, ...]]] = []
        self.counts: dict[str, int] = {}
        self.node, self.exits = 0, 0

    async def start(self, name: str) -> None:
        life = Life(time.monotonic())
        self.lives.setdefault(name, []).append(life)
        if name in self.servers:
            i = self.servers.index(name)
            self.nodes[i] = await asyncio.to_thread(ServerProcess, *self.configs[i])
            life.serving = time.monotonic()
            return
        service = name.split("-")[0]
        extra = ["--retention", f"{self.retention:g}"] if service == "archiver" else []
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "zioncheck.cli.main", "serve", service, *self.cli_args, "--log-level", "error",
            *extra, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        self.processes[name] = process
        self.readers.append(asyncio.create_task(_serving(process, life)))

    async def kill(self, kind: str, names: tuple[str, ...]) -> None:
        """SIGKILL to each of `names` at once (the server: the next node of a cluster's, in turn)."""
        if names == ("server",):
            self.node = (self.node + 1) % len(self.nodes)
            names = (self.servers[self.node],)
        at = time.monotonic()
        for name in names:
            if name in self.servers:
                self.nodes[self.servers.index(name)].kill()
            else:
                self.processes[name].kill()
        for name in names:
            if name not in self.servers:
                await self.processes[name].wait()
            self.lives[name][-1].ended = at
        self.kills.append((kind, at, names))
        self.counts[kind] = self.counts.get(kind, 0) + 1
        await asyncio.sleep(BACK_AFTER)
        for name in names:
            await self.start(name)

    async def revive(self) -> None:
        """Start again a service that exited on its own (one that could not reach the store as it started, say),
        as a deployment's supervisor would."""
        for name, process in list(self.processes.items()):
            if process.returncode is not None and self.lives[name][-1].ended is None:
                self.exits += 1
                self.lives[name][-1].ended = time.monotonic()
                await self.start(name)

    async def serving(self, seconds: float) -> bool:
        """Wait until every process serves; whether all did within `seconds`."""
        until = time.monotonic() + seconds
        while any(lives[-1].serving is None for lives in self.lives.values()):
            if time.monotonic() > until:
                return False
            await self.revive()
            await asyncio.sleep(0.2)
        return True

    def resolved(self) -> list[Kill]:
        """Each kill with when what it took down was back: the latest of its processes' (back_at) over every
        instance of its kind (the server or a node: itself alone)."""
        made = []
        for kind, at, names in self.kills:
            backs = [back_at([life for other, lives in self.lives.items() if _kind(other) == _kind(name)
                              for life in lives], at) for name in names]
            made.append(Kill(kind, at, None if None in backs else max(backs)))
        return made

    async def stop(self) -> None:
        for process in self.processes.values():
            if process.returncode is None:
                process.kill()
            await process.wait()
        for reader in self.readers:
            reader.cancel()
        for node in self.nodes:
            node.stop()


def _kind(name: str) -> str:
    """The kind of an instance: `intake-2` is an intake; a node of a cluster is its own."""
    return name.split("-")[0]


async def _serving(process: asyncio.subprocess.Process, life: Life) -> None:
    """Note when the process says it serves (its first line on stdout), then read the rest as it comes."""
    if await process.stdout.readline():
        life.serving = time.monotonic()
    while await process.stdout.read(65536):
        pass


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


class Checker:
    """A thread with an event loop and connections of its own for the checks, which replay whole games, so that
    the loop noting when the clients see each batch is not held up by them."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="chaos-checks", daemon=True)
        self.thread.start()
        self.operator: GameClient | None = None
        self.platform: GameClient | None = None

    def run(self, work: Coroutine):
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))

    async def connect(self, access: Access) -> None:
        self.operator = await self.run(GameClient.connect(access, "operator"))
        self.platform = await self.run(GameClient.connect(access, "platform"))

    async def stop(self) -> None:
        for client in (self.operator, self.platform):
            if client is not None:
                await self.run(client.nc.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class Checked(NamedTuple):
    hot: list[str]           # what is wrong with the game while hot (services/intact.py), or with its archive's log
    archive: list[str]       # what verify finds in its archive (["none"]: none came)
    stored: dict = {}        # when its archive says each command and batch was stored (ns since 1970), for the trace


async def _check(operator: GameClient, platform: GameClient, game: str, key: str, hot_until: float,
                 archive_until: float) -> Checked:
    """The game checked while hot, until it is intact or `hot_until`; then its archive, fetched from the records
    service as a platform fetches it until one comes or `archive_until`: verified with the house's key, holding
    the log checked hot, and its own commands replaying to its own log."""
    found, checked = ["not checked"], []
    while True:
        try:
            checked = [batch for _, batch in await read_batches(operator.js, game)]
            found = await intact.problems(operator.js, game)
        except Exception as error:  # noqa: BLE001 - the server down, or a service not back: looked at again
            found = [f"could not be read ({error!r:.200})"]
        if not found or time.monotonic() > hot_until:
            break
        await asyncio.sleep(1.0)
    while (data := await _archive(platform, game)) is None:
        if time.monotonic() > archive_until:
            return Checked(found, ["no archive came from the records service"])
        await asyncio.sleep(1.0)
    problems = [" ".join(str(part) for part in problem if part) for problem in verify(data, key)]
    try:
        record = unpack(data).record
    except Damaged:
        return Checked(found, problems)
    logged = batches_of(record)
    if not found and logged[:len(checked)] != checked:
        found = ["its archive does not hold the log checked hot"]
    replayed = intact.uninterrupted([(command.data, command.origin) for command in record.commands],
                                    {seed.hand: seed.seed for seed in record.seeds})
    if [event for batch in logged for event in batch.events] != replayed:
        found = [*found, "its archive's log is not what one table writes for its archived commands"]
    stored = {"commands": [(command.seq, command.origin, command.at) for command in record.commands],
              "batches": [(batch.seq, batch.at) for batch in record.batches]}
    return Checked(found, problems, stored)


async def _archive(platform: GameClient, game: str) -> bytes | None:
    try:
        return await platform.archive(game)
    except Exception:  # noqa: BLE001 - not archived yet, or the records service or the server not back
        return None


async def hot(js, game: str) -> dict[str, int]:
    """How many messages of the game each hot stream and bucket holds (as each stream's leader counts them)."""
    p = (await layout(js)).of(game)
    where = {"commands": (commands_stream(p), stored_command_subject(p, game)),
             "deadline": (commands_stream(p), schedule_subject(p, game)),
             "log": (log_stream(p), log_subject(p, game)), "feed": (FEED, feed_subject(game)),
             "scores": (SCORES, score_subject(game)), "views": (kv_stream(VIEWS), kv_subject(VIEWS, view_keys(game))),
             "standings": (kv_stream(STANDINGS), kv_subject(STANDINGS, standings_key(game))),
             "register": (OPEN, open_subject(game)),
             "seeds": (kv_stream(SEEDS), kv_subject(SEEDS, seed_key(game, "*"))),
             "removal": (REMOVALS, removal_subject(game)), "removal fired": (REMOVALS, remove_subject(game))}
    return {name: sum((await subject_counts(js, stream, subject)).values())
            for name, (stream, subject) in where.items()}


async def platform_reads(platform: GameClient, game: str) -> tuple[bytes | None, bytes | None]:
    """What a platform reads of a game of its own: its public view and its standings (None: no such game)."""
    view = await read_view(platform.nc, public_view_key(game))
    reply = await request(platform.nc, f"$JS.API.DIRECT.GET.{kv_stream(STANDINGS)}."
                                       f"{kv_subject(STANDINGS, standings_key(game))}", b"", 5.0)
    return view, None if (reply.headers or {}).get("Status") else reply.data


async def _left(operator: GameClient, platform: GameClient, games: list[str]) -> dict[str, str]:
    """What is left of each game that is not gone: in which hot streams and buckets, and what a platform reads."""
    left = {}
    for game in games:
        try:
            counts = {name: count for name, count in (await hot(operator.js, game)).items() if count}
            reads = [what for what, data in zip(("view", "standings"), await platform_reads(platform, game),
                                                strict=True) if data is not None]
        except Exception as error:  # noqa: BLE001 - the server not back yet: said so, and looked at again
            left[game] = f"unanswered ({error!r:.80})"
            continue
        if counts or reads:
            left[game] = ", ".join([f"{name} {count}" for name, count in counts.items()]
                                   + [f"a platform reads its {what}" for what in reads])
    return left


async def _follow(client: GameClient, game: str, seen: Seen) -> None:
    """Follow the game's log as a client does, noting when each new batch comes, until the game is over."""
    while True:
        try:
            follower = await client.follow(game)
            break
        except Exception:  # noqa: BLE001 - the server down: followed once it is back
            await asyncio.sleep(0.2)
    while not follower.state.game_over:
        try:
            await follower.changed(timeout=None)
        except Exception:  # noqa: BLE001 - a look for missed batches unanswered (the server down): looked again
            await asyncio.sleep(0.05)
            continue
        seen.times.append(time.monotonic())
    seen.over = time.monotonic()
    await follower.stop()


async def _start_games(access: Access, ids: list[str]) -> None:
    """Games of four bots, from hand FIRST_HAND on, sent as the platform would (sent again until the intake answers)."""
    platform = await GameClient.connect(access, "platform")
    for game in ids:
        await platform.send(game, StartGame(game_id=game, players=4, first_hand=FIRST_HAND, seats=["greedy"] * 4,
                                            limits=Limits(bot_seconds=BOT_PACE, turn_seconds=10)),
                            msg_id=f"start-{game}")
    await platform.close()


async def _topology(access: Access, cluster: bool) -> None:
    for _ in range(100):   # a cluster elects its JetStream leader first
        try:
            await prepare_topology(access, replicas=3 if cluster else None)
            return
        except Exception:  # noqa: BLE001 - not ready yet
            await asyncio.sleep(0.3)
    await prepare_topology(access, replicas=3 if cluster else None)


def _result(check: asyncio.Task) -> Checked:
    if (error := check.exception()) is not None:
        return Checked([f"not checked ({error!r:.200})"], ["not checked"])
    return check.result()


def _say(line: str) -> None:
    print(f"chaos: {time.monotonic() - STARTED[0]:5.0f} s: {line}", file=sys.stderr, flush=True)


class Outcome(NamedTuple):
    games: int
    checked: dict[str, Checked]        # each game checked, by id (a game never over is missing)
    over: int                          # games over
    left: dict[str, str]               # what is hot of a finished game after the server's restart, by game:
                                       # something of it came back, or it was never removed
    removed: int                       # finished games removed by retention before the server's kill
    back_then: int                     # games something of which was back on the first look after the restart
    standstills: list[Standstill]
    kills: dict[str, int]
    trace: dict                        # each kill and each game's batches as its client saw them, for a closer look
    exits: int
    where: str


async def _chaos(folder: Path, games: int, seconds: float, cluster: bool, retention: float) -> Outcome:
    started = STARTED[0] = time.monotonic()
    wall = time.time() - time.monotonic() + started   # a store time, less this, is seconds since `started`
    fleet = Fleet(folder, cluster, retention)
    checker, client, tasks = Checker(), None, []
    try:
        await _topology(fleet.access, cluster)
        for name in PROCESSES:
            await fleet.start(name)
        if not await fleet.serving(120.0):
            raise RuntimeError("the services did not all start within 120 s")
        await checker.connect(fleet.access)
        key = public_key(fleet.access.credentials)
        client = await GameClient.connect(fleet.access, "operator")
        ids = [f"chaos-{i}-{random.getrandbits(32):08x}" for i in range(games)]
        seen = {game: Seen() for game in ids}
        views: dict[str, list[float]] = {game: [] for game in ids}

        async def viewed(msg) -> None:   # for the trace: when each game's public view came
            views.get(msg.subject.split(".")[-2], []).append(time.monotonic())
        await client.nc.subscribe(view_live_subject(public_view_key("*")), cb=viewed)

        async def played(game: str) -> Checked:
            """The game followed to its end, then checked while hot, then its archive."""
            await _follow(client, game, seen[game])
            until = seen[game].over + retention
            return await checker.run(_check(checker.operator, checker.platform, game, key, until - CHECK_BEFORE,
                                            until + REMOVED_WITHIN))
        checks = {game: asyncio.create_task(played(game)) for game in ids}
        tasks = list(checks.values())
        await asyncio.sleep(0.5)   # the clients subscribed before the games start
        await _start_games(fleet.access, ids)
        _say(f"{games} games started")
        turns, ends = itertools.cycle(KILLS), time.monotonic() + seconds
        while time.monotonic() < ends and any(s.over is None for s in seen.values()):
            await asyncio.sleep(KILL_EVERY)
            await fleet.revive()
            kind, names = next(turns)
            await fleet.kill(kind, names)
            _say(f"killed {kind} ({len(fleet.kills)} kills, {sum(s.over is not None for s in seen.values())} of "
                 f"{games} games over)")
        settle = time.monotonic() + SETTLE
        while any(s.over is None for s in seen.values()) and time.monotonic() < settle:
            await asyncio.sleep(1.0)
            await fleet.revive()
        played_until = time.monotonic()
        # The games end, are archived and removed: the kills go on among what archives, removes and reads them (and
        # a game still in play, if the settling ran out, is followed on, and removed too if it ends meanwhile).
        turns, removing = itertools.cycle(END_KILLS), time.monotonic()
        while True:
            finished = [game for game in ids if seen[game].over is not None]   # the games retention is to remove
            removal_due = max((seen[game].over for game in finished), default=played_until) + retention
            if time.monotonic() > removal_due + REMOVED_WITHIN:
                break
            await asyncio.sleep(KILL_EVERY)
            await fleet.revive()
            if time.monotonic() > removal_due and all(checks[game].done() for game in finished) and \
                    not await checker.run(_left(checker.operator, checker.platform, finished)):
                break
            kind, names = next(turns)
            await fleet.kill(kind, names)
            _say(f"killed {kind} while the games are archived and removed ({len(fleet.kills)} kills)")
        for check in checks.values():
            if not check.done():
                check.cancel()
        await asyncio.gather(*checks.values(), return_exceptions=True)
        checked = {game: _result(checks[game]) for game in finished if not checks[game].cancelled()}
        _say(f"archives and removals: {time.monotonic() - removing:.0f} s")
        await fleet.serving(60.0)
        removed = len(finished) - len(await checker.run(_left(checker.operator, checker.platform, finished)))
        # The server killed with -9 and started again: what comes back of a removed game is taken out again.
        await fleet.kill("server", ("server",))
        back_then = len(await checker.run(_left(checker.operator, checker.platform, finished)))
        until = time.monotonic() + BACK_WITHIN
        while (left := await checker.run(_left(checker.operator, checker.platform, finished))) and \
                time.monotonic() < until:
            await asyncio.sleep(1.0)
        _say(f"after the server's restart: {back_then} games back at first, {len(left)} left")
        where = f"a 3-node cluster, replicas 3, P={PARTITIONS}" if cluster else f"one server, P={PARTITIONS}"
        trace = {"kills": [(kill.kind, kill.at - started, None if kill.back is None else kill.back - started)
                           for kill in fleet.resolved()],
                 "games": {game: {"times": [at - started for at in s.times],
                                  "views": [at - started for at in views[game]],
                                  "over": None if s.over is None else s.over - started} for game, s in seen.items()},
                 "stored": {game: {what: [(*row[:-1], row[-1] / 1e9 - wall) for row in rows]
                                   for what, rows in check.stored.items()} for game, check in checked.items()}}
        return Outcome(games, checked, len(finished), left, removed, back_then,
                       standstills(seen, fleet.resolved(), played_until), fleet.counts, trace, fleet.exits, where)
    finally:
        for task in tasks:
            task.cancel()
        if client is not None:
            await client.nc.close()
        await checker.stop()
        await fleet.stop()


def chaos(games: int = GAMES, seconds: float = SECONDS, cluster: bool = False, retention: float = RETENTION
          ) -> Outcome:
    configure_logging("error")   # the bench's own connections' reconnects would fill the table's output
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(_chaos(Path(folder), games, seconds, cluster, retention))


def rows(outcome: Outcome) -> list[Row]:
    """The four figures of a run, each with its target."""
    intact_games = [game for game, checked in outcome.checked.items() if not checked.hot and not checked.archive]
    verified = [game for game, checked in outcome.checked.items() if not checked.archive]
    kills = ", ".join(f"{kind} {count}" for kind, count in outcome.kills.items())
    worst: dict[str, Standstill] = {}
    for stood in outcome.standstills:
        if stood.kind not in worst or stood.seconds > worst[stood.kind].seconds:
            worst[stood.kind] = stood
    ranked = sorted(worst.items(), key=lambda item: -item[1].seconds)
    by_kind = ", ".join(f"{kind} {stood.seconds:.2f} s (gap {stood.gap:.1f} s)" for kind, stood in ranked[:SHOWN])
    if len(ranked) > SHOWN:
        by_kind += f"; {len(ranked) - SHOWN} more, each at most {ranked[SHOWN][1].seconds:.2f} s"
    longest = max((stood.seconds for stood in outcome.standstills), default=float("nan"))
    return [Row("chaos: games intact", len(intact_games), "games",
                f"{outcome.games} games of 4 bots, {outcome.over} over, {outcome.where}, a kill -9 every "
                f"{KILL_EVERY + BACK_AFTER:g} s: {kills}; {outcome.exits} exited on their own and were started "
                f"again; each game's log, views and standings checked hot, its archive's log replayed",
                INTACT_AT_LEAST),
            Row("chaos: removed games that came back", len(outcome.left), "games",
                f"{outcome.removed} of {outcome.over} finished games removed by retention, then the server killed "
                f"with -9 and "
                f"started again: something of {outcome.back_then} in a hot stream or bucket, or read by a platform, "
                f"at the first look, of {len(outcome.left)} still (or never removed) {BACK_WITHIN:g} s later", 0,
                at_most=True),
            Row("chaos: worst standstill a client saw", longest, "s",
                f"each gap between two batches a game's client saw while the kills went on, less the time in it "
                f"that what was killed was down, {len(outcome.standstills)} gaps; the worst put down to each kind "
                f"killed: {by_kind}",
                STANDSTILL, at_most=True),
            Row("chaos: archives verified", len(verified), "archives",
                f"of {outcome.over} finished games, fetched from the records service, verified with the house's "
                f"public key", outcome.over)]


def run(cluster: bool = False, trace: Path | None = None) -> list[Row]:
    outcome = chaos(GAMES, SECONDS, cluster, RETENTION)
    if trace is not None:
        trace.write_text(json.dumps(outcome.trace))
    made = rows(outcome)
    for game, checked in sorted(outcome.checked.items()):
        if checked.hot or checked.archive:
            _say(f"{game}: {'; '.join(checked.hot + checked.archive)}")
    for game, what in sorted(outcome.left.items()):
        _say(f"{game} left after the server's restart: {what}")
    intact_games, came_back, stood, verified = made
    LAST[:] = [f"chaos: {intact_games.rate:g} of {outcome.games} games intact; {came_back.rate:g} removed games "
               f"came back; worst standstill a client saw {stood.rate:.2f} s; {verified.rate:g} of "
               f"{verified.target:g} archives verified"]
    return made


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=GAMES, help=f"bot games to play (default {GAMES})")
    parser.add_argument("--seconds", type=float, default=SECONDS,
                        help=f"how long at most to kill while the games play (default {SECONDS:g})")
    parser.add_argument("--settle", type=float, default=SETTLE,
                        help=f"how long the games may take to end once the kills stop (default {SETTLE:g} s)")
    parser.add_argument("--retention", type=float, default=RETENTION,
                        help=f"the archiver's --retention, seconds (default {RETENTION:g})")
    parser.add_argument("--trace", type=Path, metavar="FILE",
                        help="write each kill and when each game's client saw each batch to FILE (JSON)")
    parser.add_argument("--cluster", action="store_true",
                        help="three nodes in processes, every stream with three replicas; a node killed in turn")
    args = parser.parse_args()
    GAMES, SECONDS, SETTLE, RETENTION = args.games, args.seconds, args.settle, args.retention
    INTACT_AT_LEAST = min(INTACT_AT_LEAST, GAMES)
    for row in run(args.cluster, args.trace):
        print(f"{row.name}: {row.rate:g} {row.unit} (target {'<=' if row.at_most else '>='} {row.target:g}; "
              f"{row.workload})")
    print(*LAST)
