"""`python -m bench partitions`: the service bench for P = 1, 2 and 4 partitions, with one and with two
table instances, every append synced to disk; each run against the bare chain of a command's two synced
appends over the same partitioning, measured on the same server right after it; P=4 again with half
the games, for the latency at nearly the same rate with shorter queues; then how long games
stand still when the pinned table instance is killed with -9 and another waits. Prints last
`partitions: P=4 gives X.XX times the commands/s of P=1` (one table instance each)."""
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import Row
from bench.service import SECONDS, TimedClient, _game, main
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.consumers import PIN_SECONDS
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.wiring import prepare_topology

PARTITIONS, TABLES, ROUNDS = (1, 2, 4), (1, 2), 2
# More games than the services bench's 40: each game waits for its command's outcome before the next,
# so the offered load is games / latency, and 40 games barely load one stream (measured: P=1 with 120
# games queues at its one commands stream, p50 135-163 ms, where P=4 runs at 57-70 ms).
GAMES = 120
TARGET_SPEEDUP, TARGET_OF_CHAIN, TARGET_P99_MS = 2.0, 0.85, 50
LAST: list[str] = []   # printed after the table


def run() -> list[Row]:
    """Every configuration once a round, in turns, so the machine's drift weighs on each alike; each
    keeps its best round (with the bare chain measured on the same server right after it)."""
    rows, rates, half = [], {}, {"rate": 0}
    for _ in range(ROUNDS):
        for partitions in PARTITIONS:
            for tables in TABLES:
                r = main(games=GAMES, partitions=partitions, tables=tables, ceilings=False, chain=True)
                if r["rate"] > rates.get((partitions, tables), {"rate": 0})["rate"]:
                    rates[(partitions, tables)] = r
        r = main(games=GAMES // 2, partitions=4, tables=1, ceilings=False)
        half = max(half, r, key=lambda found: found["rate"])
    for partitions in PARTITIONS:
        for tables in TABLES:
            r = rates[(partitions, tables)]
            of_chain = r["rate"] / r["chain"]
            rows += [Row(f"P={partitions}, {tables} table(s)", r["rate"], "commands/s",
                         f"{GAMES} concurrent 4-bot games, {SECONDS:g} s, sync always; best of {ROUNDS}",
                         TARGET_OF_CHAIN * r["chain"],
                         f"bare chain {r['chain']:,.0f}/s: {of_chain:.0%} of it (target >= {TARGET_OF_CHAIN:.0%}); "
                         f"CPU ms a command: table {r['table_cpu_ms']:.2f}, dealer+scoring {r['others_cpu_ms']:.2f}, "
                         f"nats-server {r['server_cpu_ms']:.2f} (the bare chain's {r['chain_server_cpu_ms']:.2f}, "
                         f"its requesters' {r['chain_client_cpu_ms']:.2f}), bots {r['bots_cpu_ms']:.2f}; "
                         f"the machine {r['busy']:.0%} busy (the bare chain: {r['chain_busy']:.0%})"),
                     Row(f"  p99 (P={partitions}, {tables} table(s))", r["p99_ms"], "ms",
                         "publish to its batch in the log", TARGET_P99_MS, f"p50 {r['p50_ms']:.1f} ms", at_most=True)]
    top = max(rates.values(), key=lambda r: r["rate"])
    rows.append(Row(f"  p99 (P=4, 1 table, {GAMES // 2} games)", half["p99_ms"], "ms",
                    "the same, half the games: what the queues add at the top rate", TARGET_P99_MS,
                    f"{half['rate']:,.0f} commands/s, {half['rate'] / rates[(4, 1)]['rate']:.0%} of the rate with "
                    f"{GAMES}; p50 {half['p50_ms']:.1f} ms", at_most=True))
    speedup = rates[(4, 1)]["rate"] / rates[(1, 1)]["rate"]
    rows.append(Row("P=4 over P=1 (1 table)", speedup, "x", "commands/s of the two runs above", TARGET_SPEEDUP,
                    f"p99 at the top rate {top['p99_ms']:.1f} ms"))
    stood = failover()
    rows.append(Row("failover after kill -9 of the pinned table", stood, "s", "8 games, P=2, a second table waiting",
                    versus=f"pin timeout {PIN_SECONDS:g} s"))
    sizes = stored_bytes()
    rows.append(Row("bytes stored a command", sum(sizes.values()), "B", "the fixture store (tests/fixtures)",
                    versus=", ".join(f"{name} {size:.0f} B" for name, size in sizes.items())))
    LAST[:] = [f"partitions: P=4 gives {speedup:.2f} times the commands/s of P=1"]
    return rows


async def _failover(server, games: int = 8) -> float:
    """Seconds from kill -9 of the table holding every partition to the moment every game has moved on."""
    client = TimedClient(await connect(server.access, "gateway"))
    followers: list = []
    tasks = [asyncio.create_task(_game(client, i, followers)) for i in range(games)]
    while len(followers) < games or any(len(f.batches) < 20 for f in followers):
        await asyncio.sleep(0.1)
    second = _serve(server, ["table"])   # waits on every partition the first holds
    os.kill(FIRST[0].pid, signal.SIGKILL)
    killed = time.perf_counter()
    marks = [len(f.batches) for f in followers]
    for follower, mark in zip(followers, marks, strict=True):
        await follower.wait_until(lambda f, mark=mark: len(f.batches) > mark + 1 or f.state.game_over, timeout=60)
    took = time.perf_counter() - killed
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await client.close()
    second.terminate()
    second.wait()
    return took


FIRST: list = []


def _serve(server, names: list[str]) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-m", "zioncheck.cli.main", "serve", *names, "--nats-url", server.url,
                                "--credentials", str(server.credentials), "--log-level", "warning"],
                               stdout=subprocess.PIPE)
    assert b"serving" in process.stdout.readline()
    return process


def failover(partitions: int = 2) -> float:
    """kill -9 of the pinned table instance, with a second one waiting: how long the games stand still."""
    with tempfile.TemporaryDirectory() as store:
        server = NatsServer(Path(store) / "jetstream", partitions=partitions)
        asyncio.run(prepare_topology(server.access))
        others = _serve(server, ["dealer", "scoring", "intake"])
        FIRST[:] = [_serve(server, ["table"])]
        try:
            return asyncio.run(_failover(server))
        finally:
            for process in (*FIRST, others):
                process.kill()
                process.wait()
            server.stop()


FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "store-v1.tar.gz"


def stored_bytes() -> dict[str, float]:
    """Bytes the store keeps a command, from the fixture store (a finished 2-seat game and a live one):
    the command, its log batch and its feed message, each as the stream counts it."""
    import tarfile
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(FIXTURE) as tar:
            tar.extractall(folder, filter="data")
        server = NatsServer(Path(folder) / "jetstream", partitions=1)

        async def measure() -> dict[str, float]:
            nc = await connect(server.access, "operator")
            js = nc.jetstream()
            found = {}
            for name, stream in (("command", "ZC_COMMANDS"), ("log batch", "ZC_LOG"), ("feed", "ZC_FEED")):
                info = await js.stream_info(stream)
                found[name] = info.state.bytes / info.state.messages
            await nc.close()
            return found
        try:
            return asyncio.run(measure())
        finally:
            server.stop()
