"""`python -m bench.revival`: does the nats-server at hand bring back, after kill -9, what a stream dropped for its
subject's limit? (docs/history.md, "Removed for good".) Not one of `make bench`'s figures: a check of the server,
to run again on each new nats-server, which says whether the archiver's `recheck` is still needed.

Each case: a bucket's stream (one value a key, as zc_views and zc_standings are) on a server of its own, 24 keys put
`puts` times, a live key put beside each (so the blocks stay), each key's subject then taken out one way, the server
stopped (kill -9, or SIGTERM) and started again on its store; then how many of the 24 keys read a value again, and
the stream's first sequence. nats-server 2.15.1: 24 of 24 come back after a purge and kill -9, the first sequence
back to 1; none after SIGTERM, none under a delete or purge marker left in place; purged again after each restart, a
value written N times comes back N-1 times, older each time.
"""
import asyncio
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nats
from nats.js.api import DiscardPolicy, StorageType, StreamConfig
from nats.js.errors import NotFoundError

from zioncheck.services.bus.embedded import free_port, reachable, server_binary

KEYS, STREAM = 24, "KV_revival"


def _server(store: Path, port: int) -> subprocess.Popen:
    config = store / "server.conf"
    config.write_text(f'listen: "127.0.0.1:{port}"\njetstream {{\n  store_dir: "{store / "js"}"\n'
                      f'  sync_interval: always\n}}\n')
    process = subprocess.Popen([server_binary(), "-c", str(config)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while not reachable(f"nats://127.0.0.1:{port}"):
        if time.monotonic() > deadline:
            raise RuntimeError("nats-server did not start")
        time.sleep(0.05)
    return process


async def _fill(url: str, puts: int, how: str) -> None:
    nc = await nats.connect(url)
    js = nc.jetstream()
    await js.add_stream(StreamConfig(name=STREAM, subjects=["$KV.revival.>"], max_msgs_per_subject=1,
                                     storage=StorageType.FILE, allow_rollup_hdrs=True, deny_delete=True,
                                     allow_direct=True, discard=DiscardPolicy.NEW))
    for n in range(puts):
        for key in range(KEYS):
            await js.publish(f"$KV.revival.gone{key}", f"value {n}".encode())
            await js.publish(f"$KV.revival.live{key}", f"value {n}".encode())
    await _take_out(js, how)
    await nc.close()


async def _take_out(js, how: str) -> None:
    for key in range(KEYS):
        subject = f"$KV.revival.gone{key}"
        if how == "purge":
            await js.purge_stream(STREAM, subject=subject)
        elif how == "purge marker":
            await js.publish(subject, b"", headers={"KV-Operation": "PURGE", "Nats-Rollup": "sub"})
        elif how == "delete marker":
            await js.publish(subject, b"", headers={"KV-Operation": "DEL"})


async def _back(url: str) -> tuple[int, int]:
    """How many of the keys taken out read a value, and the stream's first sequence."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    back = 0
    for key in range(KEYS):
        try:
            back += bool((await js.get_msg(STREAM, subject=f"$KV.revival.gone{key}")).data)
        except NotFoundError:
            pass
    first = (await js.stream_info(STREAM)).state.first_seq
    await nc.close()
    return back, first


def case(how: str, puts: int = 2, restarts: int = 1, stop: signal.Signals = signal.SIGKILL,
         again: bool = False) -> str:
    """One case, said in one line: after each restart, the keys back and the first sequence (`again`: each
    key's subject purged once more after each restart)."""
    store, port = Path(tempfile.mkdtemp(prefix="revival-")), free_port()
    url = f"nats://127.0.0.1:{port}"
    server = _server(store, port)
    try:
        asyncio.run(_fill(url, puts, how))
        seen = []
        for _ in range(restarts):
            server.send_signal(stop)
            server.wait()
            server = _server(store, port)
            back, first = asyncio.run(_back(url))
            seen.append(f"{back} of {KEYS} back (first sequence {first})")
            if again:
                asyncio.run(_purge_again(url))
        return f"{how}, {puts} puts, {stop.name}{', purged again each time' if again else ''}: {'; '.join(seen)}"
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(store, ignore_errors=True)


async def _purge_again(url: str) -> None:
    nc = await nats.connect(url)
    await _take_out(nc.jetstream(), "purge")
    await nc.close()


def main() -> int:
    version = subprocess.run([server_binary(), "--version"], capture_output=True, text=True).stdout.strip()
    print(version)
    for line in (case("purge"), case("purge", stop=signal.SIGTERM), case("purge marker"), case("delete marker"),
                 case("purge", puts=5, restarts=4, again=True)):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
