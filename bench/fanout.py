"""Fan-out benchmark: spectators of a running game, each on the gateway's public WebSocket.

At 1, 100 and 1,000 spectators (WebSocket clients on loopback, all in this process) of
a bot game in play, every feed batch's delay from its append to the log (the JetStream
timestamp of the log message) to its arrival at each spectator: projector, feed stream,
the gateway's hub and the WebSocket, under the load of all the others. The services and
the gateway run in their own processes, as `zioncheck serve` runs them. The baseline is
the delay at one spectator, measured in the same run.
"""
import asyncio
import contextlib
import json
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import msgspec
import nats
from nats.js.api import DeliverPolicy
from websockets.asyncio.client import connect

from bench import Row
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import NatsServer, free_port
from zioncheck.services.bus.topology import layout
from zioncheck.services.gateway.keys import HEADER
from zioncheck.services.wiring import prepare_topology

LEVELS = (1, 100, 1000)
SECONDS = 8.0          # batches appended in this window are measured, once every spectator is connected
GRACE = 2.0            # and spectators read on this long after it, for the window's last batches
PACE = 0.1             # seconds a bot waits before each move of its turn
PLAYERS = 4
TARGET_P99_MS = 250.0  # at 1,000 spectators


class _Feed(msgspec.Struct):
    seq: int


class _Frame(msgspec.Struct):
    kind: str
    batch: _Feed | None = None


_frame = msgspec.json.Decoder(_Frame)


class Spectator:
    def __init__(self):
        self.arrived: list[tuple[int, float]] = []
        self.closed: str | None = None

    async def watch(self, url: str, connected: asyncio.Event, measuring: asyncio.Event, stop: asyncio.Event) -> None:
        try:
            async with connect(url, max_size=None, open_timeout=30) as socket:
                await socket.recv()
                connected.set()
                reading = asyncio.ensure_future(self._read(socket, measuring))
                stopping = asyncio.ensure_future(stop.wait())
                await asyncio.wait([reading, stopping], return_when=asyncio.FIRST_COMPLETED)
                reading.cancel()
                stopping.cancel()
        except Exception as error:  # noqa: BLE001 - a spectator that could not connect is counted
            self.closed = repr(error)
        finally:
            connected.set()

    async def _read(self, socket, measuring: asyncio.Event) -> None:
        try:
            async for data in socket:
                now = time.time()
                if measuring.is_set() and data.startswith('{"kind":"feed"'):
                    self.arrived.append((_frame.decode(data).batch.seq, now))
        except Exception as error:  # noqa: BLE001 - counted, not fatal
            self.closed = repr(error)


async def level(gateway: str, access: Access, key: str, spectators: int) -> dict:
    game = await asyncio.to_thread(_new_game, gateway, key)
    nc = await nats.connect(**access.connect_options("operator"))
    appended: dict[int, float] = {}

    async def on_log(msg) -> None:
        appended[len(appended) + 1] = msg.metadata.timestamp.timestamp()

    where = await layout(nc.jetstream())
    sub = await nc.jetstream().subscribe(where.log_subject(game), stream=where.log_stream(game), cb=on_log,
                                         ordered_consumer=True, deliver_policy=DeliverPolicy.ALL)
    url = gateway.replace("http://", "ws://") + f"/games/{game}/public/ws"
    measuring, stop, gate = asyncio.Event(), asyncio.Event(), asyncio.Semaphore(50)
    watchers, tasks = [Spectator() for _ in range(spectators)], []

    async def join(spectator: Spectator) -> None:
        connected = asyncio.Event()
        async with gate:
            tasks.append(asyncio.ensure_future(spectator.watch(url, connected, measuring, stop)))
            await connected.wait()

    await asyncio.wait_for(asyncio.gather(*(join(s) for s in watchers)), timeout=120)
    measuring.set()
    started = time.time()
    await asyncio.sleep(SECONDS + GRACE)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    await sub.unsubscribe()
    await nc.close()
    batches = {seq for seq, at in appended.items() if started <= at <= started + SECONDS}
    if not batches:
        raise RuntimeError(f"game {game} appended no batch in {SECONDS:g} s: nothing plays its bot seats")
    delays = sorted(t - appended[seq] for s in watchers for seq, t in s.arrived if seq in batches)
    complete = sum(1 for s in watchers if batches <= {seq for seq, _ in s.arrived})
    return {"spectators": spectators, "frames": len(delays), "batches": len(batches), "complete": complete,
            "closed": sum(1 for s in watchers if s.closed),
            "p50_ms": 1000 * statistics.median(delays) if delays else float("nan"),
            "p99_ms": 1000 * delays[int(0.99 * (len(delays) - 1))] if delays else float("nan")}


def _new_game(gateway: str, key: str) -> str:
    body = json.dumps({"players": PLAYERS, "seats": ["greedy"] * PLAYERS, "pace": PACE}).encode()
    request = urllib.request.Request(f"{gateway}/games", data=body,
                                     headers={"Content-Type": "application/json", HEADER: key})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["game_id"]


def _raise_file_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))


def measure(levels=LEVELS) -> list[dict]:
    _raise_file_limit(4 * max(levels) + 256)  # inherited by the gateway, which holds the other end
    with tempfile.TemporaryDirectory() as store:
        server = NatsServer(Path(store) / "jetstream")
        port, key = free_port(), secrets.token_urlsafe(24)
        keys = Path(store) / "platform-keys"
        keys.write_text(f"bench:{key}\n")
        asyncio.run(prepare_topology(server.access))
        cli = [sys.executable, "-m", "zioncheck.cli.main", "serve", *server.cli_args, "--log-level", "warning"]
        processes = [subprocess.Popen([*cli, "table", "dealer", "scoring", "projector", "intake", "bots"],
                                      stdout=subprocess.PIPE),
                     subprocess.Popen([*cli, "gateway", "--port", str(port), "--platform-keys", str(keys)],
                                      stdout=subprocess.PIPE)]
        try:
            for process in processes:
                assert b"serving" in process.stdout.readline()
            return [asyncio.run(level(f"http://127.0.0.1:{port}", server.access, key, n)) for n in levels]
        finally:
            for process in processes:
                process.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=10)
            server.stop()


def run() -> list[Row]:
    results = measure()
    base = results[0]["p99_ms"]
    rows = []
    for r in results:
        versus = "baseline" if r is results[0] else f"{r['p99_ms'] / base:.1f}x the p99 at 1 spectator"
        load = (f"{_spectators(r['spectators'])} of a {PLAYERS}-bot game ({PACE}s a move), {r['batches']} batches "
                f"in {SECONDS:g}s; p50 {r['p50_ms']:.1f} ms; {r['complete']}/{r['spectators']} got every batch")
        target = TARGET_P99_MS if r["spectators"] == max(LEVELS) else None
        rows.append(Row(f"fanout p99, {_spectators(r['spectators'])}", r["p99_ms"], "ms", load, target, versus,
                        at_most=True))
    return rows


def _spectators(n: int) -> str:
    return f"{n:,} spectator{'s' * (n != 1)}"


if __name__ == "__main__":
    for result in measure():
        print(result)
