"""Service benchmark: concurrent bot games through the real services on an embedded NATS.

Reports sustained commands per second, p50/p99 latency from a command's publish to
its batch in the log, and, on the same server in the same run, two ceilings: nats-py
JetStream publish_async appends per second of log-sized messages, and a bare chain of
a command's two synced appends (its publish, then its batch) at the same concurrency.

The table runs in one process and the dealer and scoring in another, as
`zioncheck serve` runs them; a second synced run adds the projector to the second
process, the whole deployment of the views beside the game services.

With `views` (bench/peer.py's whole path), a reader in a process of its own follows every seat
view the server republishes (zc.view.<key>), and each command is timed from its send to the first
view of the seat that sent it whose `seq` (the log batches folded, contracts/views.py) covers the
command's batch.
"""
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from bisect import bisect_left
from pathlib import Path

import msgspec
from nats.js.api import StorageType, StreamConfig

from bench import Row, syncs
from zioncheck.bots import make_bot
from zioncheck.client import GameClient, read_view
from zioncheck.contracts.commands import PLAY, StartGame
from zioncheck.contracts.log import encode
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus.access import Access, connect
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.bus.publish import publish_stored
from zioncheck.services.bus.topology import (
    layout,
    public_view_key,
    seat_view_key,
    stored_command_subject,
    view_live_subject,
)
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import prepare_topology

GAMES, PLAYERS, SECONDS = 40, 4, 15.0
TARGET_RATE, TARGET_P99_MS, TARGET_RATIO = 2000, 50, 0.15
CHAIN_SECONDS = 5.0   # how long the bare chain runs
PROFILE: list[str] = []  # e.g. ["-m", "cProfile", "-o", "table.prof"] to profile the services
VIEW_PATIENCE = 45.0   # seconds the projector may take, after the window, to write the views of the window's batches


class TimedClient(GameClient):
    """Notes when each command left, so latency runs from its send to the log. `straight`: store each
    command itself, as the operator may, where the intake would (the path before the intake, for
    measuring what the intake costs)."""

    def __init__(self, nc, straight: bool = False):
        super().__init__(nc)
        self.sent: dict[tuple[str, int], float] = {}
        self.seats: dict[tuple[str, int], int | None] = {}   # the seat each command was sent for
        self.straight = straight

    async def send(self, game, command, as_dealer=False, msg_id=None, patience=0.0):
        started = time.perf_counter()
        if self.straight:
            where = await layout(self.js)
            seq = await publish_stored(self.js, stored_command_subject(where.of(game), game, PLAY), encode(command))
        else:
            seq = await super().send(game, command, as_dealer, msg_id)
        self.sent[(game, seq)] = started
        self.seats[(game, seq)] = getattr(command, "seat", None)
        return seq


async def _game(client: TimedClient, index: int, followers: list) -> None:
    game = f"bench-{index}-{random.getrandbits(32):08x}"
    follower = await client.follow(game)
    followers.append(follower)
    await client.send(game, StartGame(game_id=game, players=PLAYERS))
    rng = random.Random(index)
    await play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(PLAYERS)}, rng)


async def services_run(access: Access, games: int, seconds: float, intake: bool = True,
                       views: "ViewWatch | None" = None) -> dict:
    client = TimedClient(await connect(access, "gateway" if intake else "operator", name="zioncheck-bench-bots"),
                         straight=not intake)
    followers: list = []
    started = time.perf_counter()
    tasks = [asyncio.create_task(_game(client, i, followers)) for i in range(games)]
    await asyncio.wait(tasks, timeout=seconds)
    elapsed = time.perf_counter() - started
    end = started + elapsed
    for task in tasks:
        task.cancel()
    # Only what was sent and came back within the window counts: a game may still move after its
    # cancel (Python 3.11's wait_for can swallow a cancel that meets a result), and counting those
    # moves against the window's seconds would make up a rate no machine reached.
    latencies = [f.arrived[seq] - client.sent[(f.game, seq)]
                 for f in followers for seq in list(f.arrived)
                 if (f.game, seq) in client.sent and f.arrived[seq] <= end]
    await client.close()
    await asyncio.gather(*tasks, return_exceptions=True)   # every game stopped (its sends fail once closed)
    latencies.sort()
    run = {"commands": len(latencies), "seconds": elapsed, "rate": len(latencies) / elapsed,
           "p50_ms": 1000 * statistics.median(latencies),
           "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))]}
    if views is not None:
        run["view_catch_up"] = await views_caught_up(access, followers, time.perf_counter() + VIEW_PATIENCE)
        await asyncio.sleep(0.5)   # the last views on their way to the reader
        seen = await asyncio.get_running_loop().run_in_executor(None, views.collect)
        to_view = sorted(view_latencies(client, followers, seen, end))
        missing = sum(1 for latency in to_view if latency == math.inf)
        run |= {"view_commands": len(to_view), "view_missing": missing,
                "view_p50_ms": 1000 * statistics.median(to_view),
                "view_p99_ms": 1000 * to_view[int(0.99 * (len(to_view) - 1))]}
    return run


async def views_caught_up(access: Access, followers: list, deadline: float) -> float:
    """Seconds until each game's public view has folded every batch its follower saw (the projector
    writes a game's seat views with its public one), or until `deadline` (perf_counter)."""
    nc = await connect(access, "operator")
    started, behind = time.perf_counter(), {f.game: len(f.batches) for f in followers if f.batches}
    while behind and time.perf_counter() < deadline:
        for game, batches in list(behind.items()):
            data = await read_view(nc, public_view_key(game))
            if data is not None and msgspec.json.decode(data, type=_Seq).seq >= batches:
                del behind[game]
        if behind:
            await asyncio.sleep(0.25)
    await nc.close()
    return time.perf_counter() - started


class _Seq(msgspec.Struct):
    """Just the seq of a view."""
    seq: int


def watch_views(access: Access, pipe) -> None:
    """A reader of every seat view the server republishes: once told, it answers with each view's
    subject, seq and perf_counter() time of arrival, in the order they came."""
    asyncio.run(_watch_views(access, pipe))


async def _watch_views(access: Access, pipe) -> None:
    nc = await connect(access, "operator", name="zioncheck-bench-views-reader")
    seen: list[tuple[str, int, float]] = []
    decoder = msgspec.json.Decoder(_Seq)

    async def on_view(msg) -> None:
        seen.append((msg.subject, decoder.decode(msg.data).seq, time.perf_counter()))

    await nc.subscribe(view_live_subject("*.*.seat.*"), cb=on_view, pending_msgs_limit=0, pending_bytes_limit=0)
    await nc.flush()
    pipe.send("ready")
    await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    await nc.close()
    pipe.send(seen)


class ViewWatch:
    """watch_views in a process of its own, as a platform's reader is: its CPU is not the services'.
    perf_counter() is the machine's monotonic clock, so its times and this process's compare."""

    def __init__(self, access: Access):
        spawn = multiprocessing.get_context("spawn")
        self.pipe, theirs = spawn.Pipe()
        self.process = spawn.Process(target=watch_views, args=(access, theirs), daemon=True)
        self.process.start()
        if not self.pipe.poll(60) or self.pipe.recv() != "ready":
            self.close()
            raise RuntimeError("the reader of the views did not start within 60 s")

    def collect(self) -> list[tuple[str, int, float]]:
        """Every seat view seen so far; the reader stops."""
        self.pipe.send("stop")
        seen = self.pipe.recv()
        self.process.join(10)
        return seen

    def close(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


def view_latencies(client: TimedClient, followers: list, seen: list[tuple[str, int, float]], end: float) -> list:
    """Seconds from each command's send to the first view of its seat whose seq covers the command's
    batch (seq n: the game's first n batches folded), for every command of a seat whose batch came
    back within the window; math.inf where no such view came."""
    arrivals: dict[str, tuple[list[float], list[int]]] = {}
    for subject, seq, at in seen:
        times, highest = arrivals.setdefault(subject, ([], []))
        times.append(at)
        highest.append(max(seq, highest[-1]) if highest else seq)
    latencies = []
    for follower in followers:
        for number, batch in enumerate(list(follower.batches), start=1):
            key = (follower.game, batch.cause)
            seat = client.seats.get(key)
            if seat is None or key not in client.sent or follower.arrived.get(batch.cause, math.inf) > end:
                continue
            times, highest = arrivals.get(view_live_subject(seat_view_key(follower.game, seat)), ([], []))
            first = bisect_left(highest, number)
            latencies.append(times[first] - client.sent[key] if first < len(times) else math.inf)
    return latencies


async def raw_ceiling(access: Access, count: int = 20_000, window: int = 512) -> float:
    """JetStream appends per second with publish_async, log-sized payloads, on the same server,
    to a stream of its own stored like the log (no service consumes it)."""
    nc = await connect(access, "operator")
    js = nc.jetstream(publish_async_max_pending=window)
    await js.add_stream(StreamConfig(name="BENCH_RAW", subjects=["bench.raw.*"], storage=StorageType.FILE))
    payload = b"x" * 160
    started = time.perf_counter()
    for i in range(count):
        await js.publish_async(f"bench.raw.{i % 64}", payload)
    await js.publish_async_completed()
    rate = count / (time.perf_counter() - started)
    await nc.close()
    return rate


async def chain_ceiling(access: Access, chains: int, seconds: float = CHAIN_SECONDS, partitions: int = 1) -> float:
    """A command's two synced appends with no service between them, per second: each of
    `chains` requesters publishes a command-sized message to one stream, waits for its ack,
    then a batch-sized one to another, and again. With partitions, chain i appends to the
    command and log streams of partition i mod P, as a game of that partition would. It publishes as
    the services do (publish_stored), so the two differ by the services' work alone."""
    nc = await connect(access, "operator")
    js = nc.jetstream()
    for p in range(partitions):
        for name in (f"BENCH_CMD_{p}", f"BENCH_LOG_{p}"):
            await js.add_stream(StreamConfig(name=name, subjects=[f"{name.lower()}.*"], storage=StorageType.FILE))
    done, stop = 0, time.perf_counter() + seconds

    async def chain(index: int) -> None:
        nonlocal done
        p = index % partitions
        while time.perf_counter() < stop:
            await publish_stored(js, f"bench_cmd_{p}.{index}", b"c" * 40)
            await publish_stored(js, f"bench_log_{p}.{index}", b"b" * 160)
            done += 1

    started = time.perf_counter()
    await asyncio.gather(*(chain(i) for i in range(chains)))
    rate = done / (time.perf_counter() - started)
    await nc.close()
    return rate


# The parts of a run whose CPU is counted, each its processes, and what a row calls each: the tables, dealer and
# scoring ("others"), the projector, the intake, the NATS server, and this process's bots and followers.
PARTS = {"table": "table", "others": "dealer and scoring", "projector": "projector", "intake": "intake",
         "server": "nats-server", "bots": "bots"}


def cpu_ms(run: dict) -> float:
    """The CPU a command of every part of `run`, in ms."""
    return sum(run[f"{part}_cpu_ms"] for part in PARTS)


def cpu_seconds(pid: int) -> float:
    """A process's user and system CPU time so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_messages(monitor_url: str) -> tuple[int, int]:
    """The messages the server has taken in and sent out so far, every connection and account (/varz)."""
    with urllib.request.urlopen(f"{monitor_url}/varz", timeout=10) as response:
        varz = json.load(response)
    return varz["in_msgs"], varz["out_msgs"]


def connection_messages(monitor_url: str) -> dict[int, tuple[str, int]]:
    """Each client connection's messages so far, in and out, by its id: its name and the count; closed
    ones too, as long as the server remembers them (/connz?state=all)."""
    with urllib.request.urlopen(f"{monitor_url}/connz?state=all&limit=100000", timeout=10) as response:
        connz = json.load(response)
    return {c["cid"]: (c.get("name") or "unnamed", c["in_msgs"] + c["out_msgs"]) for c in connz["connections"]}


def messages_by_name(before: dict[int, tuple[str, int]], after: dict[int, tuple[str, int]]) -> dict[str, int]:
    """The messages of each connection name between two readings of connection_messages."""
    found: dict[str, int] = {}
    for cid, (name, count) in after.items():
        role = name.removeprefix("zioncheck-")
        found[role] = found.get(role, 0) + count - before.get(cid, (name, 0))[1]
    return found


def machine_ticks() -> tuple[int, int]:
    """(busy, all) CPU ticks of the whole machine so far, every core (Linux /proc/stat): busy counts the
    kernel's work for no process too (interrupts, the disk's completions), which no process's time shows."""
    fields = [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]   # idle and iowait
    return sum(fields) - idle, sum(fields)


def busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    return (after[0] - before[0]) / max(after[1] - before[1], 1)


def main(games: int = GAMES, seconds: float = SECONDS, sync_always: bool = True, projector: bool = False,
         secure: bool = True, ceilings: bool = True, partitions: int | None = None, tables: int = 1,
         chain: bool = False, intake: bool = True, views: bool = False, count_syncs: bool = False) -> dict:
    """One run; `partitions` None is the embedded default P, `tables` the table instances (each a process).
    The intake runs in a process of its own; `intake=False` runs none, and the bots store their
    commands themselves, as every client did before the intake. `views` (with the projector) times
    each command to its seat's view too (view_p50_ms, view_p99_ms): after the window the projector
    has up to VIEW_PATIENCE seconds to write the views of every batch of it (view_catch_up, the seconds
    it took), and the CPU counts that time too, the projector's work for the window's commands.
    `count_syncs`: the machine's fsyncs a command over the run (bench/syncs.py)."""
    if views and not projector:
        raise ValueError("views are timed only where the projector writes them (projector=True)")
    configure_logging("warning")
    with tempfile.TemporaryDirectory() as store:
        server = NatsServer(Path(store) / "jetstream", sync_always=sync_always, secure=secure, partitions=partitions,
                            monitor=True)
        asyncio.run(prepare_topology(server.access))
        # The services run in their own processes, as in production: each table alone in one, and the
        # projector alone, so its share of the CPU is its process's.
        groups = ([("table", ["table"])] * tables + [("others", ["dealer", "scoring"])]
                  + [("intake", ["intake"])] * intake + [("projector", ["projector"])] * projector)
        services = [subprocess.Popen([sys.executable, *PROFILE, "-m", "zioncheck.cli.main", "serve", *names,
                                      "--nats-url", server.url, "--credentials", str(server.credentials),
                                      "--log-level", "warning"], stdout=subprocess.PIPE)
                    for _, names in groups]
        watch = None
        try:
            for process in services:
                assert b"serving" in process.stdout.readline()
            watch = ViewWatch(server.access) if views else None
            if tables > 1:
                time.sleep(8.0)  # the instances settle who works which partition before the clock starts
            pids: dict[str, list[int]] = {part: [] for part in PARTS}
            for (part, _), process in zip(groups, services, strict=True):
                pids[part].append(process.pid)
            pids["server"], pids["bots"] = [server.process.pid], [os.getpid()]
            before = {part: sum(map(cpu_seconds, found)) for part, found in pids.items()}
            messages, connections = server_messages(server.monitor_url), connection_messages(server.monitor_url)
            ticks = machine_ticks()
            with syncs.counting() if count_syncs else contextlib.nullcontext() as fsyncs:
                run = asyncio.run(services_run(server.access, games, seconds, intake, watch))
            run["busy"] = busy_share(ticks, machine_ticks())
            commands = max(run["commands"], 1)   # what each figure below is counted a command of
            # the messages through the server a command over the run, in and out (the server's /varz)
            run["msgs_in"], run["msgs_out"] = (
                (after - at) / commands
                for after, at in zip(server_messages(server.monitor_url), messages, strict=True))
            run["msgs_by"] = {name: count / commands for name, count in
                              messages_by_name(connections, connection_messages(server.monitor_url)).items()}
            if fsyncs is not None:   # the machine's fsyncs a command, over the run
                run["fsyncs"] = fsyncs.total / commands
            # each part's CPU over the run (user + system) per command applied (PARTS)
            for part, found in pids.items():
                run[f"{part}_cpu_ms"] = 1000 * (sum(map(cpu_seconds, found)) - before[part]) / commands
            if ceilings:
                run["raw"] = asyncio.run(raw_ceiling(server.access))
            if ceilings or chain:
                before_chain = cpu_seconds(server.process.pid), cpu_seconds(os.getpid()), machine_ticks()
                run["chain"] = asyncio.run(chain_ceiling(server.access, games, partitions=server.partitions))
                pairs = max(run["chain"] * CHAIN_SECONDS, 1)
                # the server's and the requesters' CPU an append pair of the bare chain, to set beside a command's
                run["chain_server_cpu_ms"] = 1000 * (cpu_seconds(server.process.pid) - before_chain[0]) / pairs
                run["chain_client_cpu_ms"] = 1000 * (cpu_seconds(os.getpid()) - before_chain[1]) / pairs
                run["chain_busy"] = busy_share(before_chain[2], machine_ticks())
        finally:
            if watch is not None:
                watch.close()
            for process in services:
                process.terminate()
                process.wait()
            server.stop()
    if ceilings:
        run["ratio"] = run["rate"] / run["raw"]
    return run


def best_in_turns(setting: str, rounds: int = 2) -> tuple[dict, dict]:
    """The best run with `setting` off and the best with it on (a keyword of main: `secure`, the users
    and permissions; `intake`, every command through the intake), taken in turns so that the
    machine's drift weighs on both alike."""
    runs: dict[bool, list[dict]] = {False: [], True: []}
    for _ in range(rounds):
        for on in (False, True):
            runs[on].append(main(**{setting: on}, ceilings=False))
    best = {on: max(found, key=lambda r: r["rate"]) for on, found in runs.items()}
    return best[False], best[True]


def permission_cost(rounds: int = 2) -> tuple[dict, dict]:
    return best_in_turns("secure", rounds)


def intake_rows() -> list[Row]:
    straight, through = best_in_turns("intake")
    cpu = {r is through: cpu_ms(r) for r in (straight, through)}
    return [
        Row("service, clients storing commands themselves", straight["rate"], "commands/s",
            f"{GAMES} concurrent 4-bot games, sync always; best of 2, in turns with the next row",
            versus=f"p99 {straight['p99_ms']:.1f} ms, {cpu[False]:.3f} ms CPU a command"),
        Row("service, every command through the intake", through["rate"], "commands/s",
            "the same, every command handed to the intake", 0.85 * straight["rate"],
            f"{through['rate'] / straight['rate']:.0%} of the rate without it (target >= 85%); "
            f"p99 {through['p99_ms']:.1f} ms; {cpu[True]:.3f} ms CPU a command, the intake's "
            f"{through['intake_cpu_ms']:.3f} ms"),
    ]


def run() -> list[Row]:
    """Every append synced to disk (the embedded default), then with the projector too, then the
    server's own sync interval."""
    rows = intake_rows()
    unchecked, checked = permission_cost()
    rows += [Row("service, no users or permissions", unchecked["rate"], "commands/s",
                f"{GAMES} concurrent 4-bot games over NATS, sync always; best of 2, in turns with the next row",
                versus=f"p99 {unchecked['p99_ms']:.1f} ms"),
            Row("service, every login checked", checked["rate"], "commands/s", "the same, with the shipped permissions",
                0.9 * unchecked["rate"], f"{checked['rate'] / unchecked['rate']:.0%} of the unchecked rate "
                                         f"(target >= 90%); p99 {checked['p99_ms']:.1f} ms")]
    for sync_always, projector, label in ((True, False, "sync always"), (True, True, "sync always, + projector"),
                                          (False, False, "sync default")):
        r = main(sync_always=sync_always, projector=projector)
        load = f"{GAMES} concurrent 4-bot games over NATS, {label}"
        targeted = sync_always and not projector
        rows += [
            Row(f"service ({label})", r["rate"], "commands/s", load, TARGET_RATE if targeted else None,
                f"raw ceiling {r['raw']:,.0f} appends/s: ratio {r['ratio']:.2f}"
                + (f" (target >= {TARGET_RATIO})" if targeted else "")
                + f"; bare two-append chain {r['chain']:,.0f}/s: {r['rate'] / r['chain']:.0%} of it"),
            Row(f"  p50 ({label})", r["p50_ms"], "ms", "publish to its batch in the log"),
            Row(f"  p99 ({label})", r["p99_ms"], "ms", "publish to its batch in the log",
                TARGET_P99_MS if targeted else None, at_most=True),
        ]
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
