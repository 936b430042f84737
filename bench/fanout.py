"""Fan-out benchmark: spectators of a bot game in play, each on a gateway's public WebSocket.

At 1, 100, 1,000 and 10,000 spectators of a game of four bots (the 10,000 spread over two
gateways, each its own process, half on each), two figures a level:

- the delay from each feed batch's append to the log (the JetStream timestamp of the log
  message, matched to the batch by its Zc-Batch header) to its WebSocket frame's arrival
  at each spectator's socket (the kernel's receive time of the read that held it,
  SO_TIMESTAMPNS, so that a client process's own delay in reading does not count): the
  projector, the feed stream, the gateway's hub and the WebSocket, under the load of all
  the others. p50 and p99 over every (batch, spectator) of the batches appended in the
  window; a frame that never comes counts, and more than 1% of them missing fails the
  level rather than give a p99 the window did not see. Beside it, the p99 from the feed
  message's own store (the feed stream's timestamp) to the spectator: the gateway's part,
  without the projector's;
- the gateway's CPU a frame: the user and system CPU of the gateway process(es) over the
  window (/proc/<pid>/stat), divided by the frames (feed, view) delivered to the spectators
  in it.

The services (`zioncheck serve table dealer scoring projector intake bots`) and each gateway
run in their own processes on an embedded server, as `zioncheck serve` runs them. Each level
opens its own game through the gateway (POST /games, every seat a bot waiting PACE before each
move: about 1.5 batches a second, each a feed frame and a view frame to every spectator; the
bots service plays them). A frame costs the gateway the same at any pace; at the gateway's
default pace (0.5 s) 10,000 spectators and the clients reading them want more than this
machine's two shared cores. The window opens once every spectator has connected and has had
the feed up to the newest batch when the last connected: what the gateways send a spectator
on joining (the view and the latest moves) is behind them, and the window measures the game
going on.

The spectators are read by client processes (multiprocessing, at most SPECTATORS_A_CLIENT
each), each one loop over epoll and plain sockets with a minimal WebSocket reader (the frame
headers and the feed's seq, nothing else decoded), so that the clients cost the machine little
beside the gateway; each client's own CPU over the window is reported, to show it kept up.
Connecting 10,000 takes a while: progress goes to stderr. The baseline is the delay at one
spectator, measured in the same run.

A level that cannot be measured (a spectator that cannot connect, a game that appends no
batch, frames that do not arrive) raises RuntimeError saying why: no figure is made up.
"""
import asyncio
import base64
import contextlib
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import resource
import secrets
import selectors
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from array import array
from dataclasses import dataclass, field
from pathlib import Path

import nats
from nats.js.api import DeliverPolicy

from bench import Row
from bench.service import busy_share, cpu_seconds, machine_ticks
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import NatsServer, free_port
from zioncheck.services.bus.topology import BATCH_HEADER, FEED, feed_subject, layout
from zioncheck.services.gateway.keys import HEADER
from zioncheck.services.wiring import prepare_topology

LEVELS = ((1, 1), (100, 1), (1_000, 1), (10_000, 2))   # spectators, and the gateways they are spread over
SECONDS = 20.0         # batches appended in this window are measured, once every spectator is connected
GRACE = 3.0            # and spectators read on this long after it, for the window's last batches
PACE = 1.0             # seconds a bot waits before each move of its turn (people take longer: about 5 s a turn)
PLAYERS = 4
TARGET_P99_MS = 100.0  # at 1,000 spectators
TARGET_AT = 1_000
MISSING_AT_MOST = 0.01          # of the (batch, spectator) frames: more missing and the p99 is not known
SPECTATORS_A_CLIENT = 2_500     # spectators one client process reads at most
CONNECTING = 16                 # handshakes a client process has under way at once
CONNECT_WITHIN = 150.0          # seconds for every spectator of a level to connect
SETTLE_WITHIN = 60.0            # and then to have had the feed up to the newest batch when the last connected
SERVER_LOG: Path | None = None   # e.g. Path("nats.log"): the server's log, to see what it made of a level
GATEWAY_PROFILE: list[str] = []  # e.g. ["-m", "cProfile", "-o", "gateway.prof"] to profile the (first) gateway
SO_TIMESTAMPNS = 35             # Linux: each read says when the kernel received it (not in Python's socket module)
TIMESPEC = struct.Struct("qq")
STAMP_SPACE = socket.CMSG_SPACE(TIMESPEC.size)
FEED_PREFIX = b'{"kind":"feed"'
SEQ = b'"seq":'


# --- the client processes -------------------------------------------------------------------------------

@dataclass
class _Watcher:
    """One spectator's socket: its handshake, then the frames read from it."""
    index: int
    sock: socket.socket
    request: bytes
    state: str = "connecting"       # connecting, handshake, open, closed
    buffer: bytearray = field(default_factory=bytearray)
    why: str = ""                   # why it closed
    newest: int = 0                 # the newest feed batch it has had


@dataclass
class Seen:
    """What a client process saw over the window: each feed frame's (spectator, seq, arrival), every frame."""
    spectators: list[int] = field(default_factory=list)
    seqs: array = field(default_factory=lambda: array("q"))
    times: array = field(default_factory=lambda: array("d"))
    frames: int = 0
    closed: dict[int, str] = field(default_factory=dict)     # spectator: why its socket ended
    cpu: float = 0.0                                          # the process's own CPU over the window


def _stamp(ancillary: list) -> float:
    """When the kernel received the read's first bytes (SO_TIMESTAMPNS), else now: the arrival at the
    socket, however late this process got round to reading it."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= TIMESPEC.size:
            seconds, nanoseconds = TIMESPEC.unpack_from(data)
            return seconds + nanoseconds / 1e9
    return time.time()


def _handshake(host: str, port: int, path: str) -> bytes:
    key = base64.b64encode(secrets.token_bytes(16)).decode()
    return (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()


def _process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Client:
    """The spectators of one client process, read over epoll. A server's frames are unmasked and, from
    this gateway, never fragmented; a ping is answered with a pong (masked with a zero key, as a client
    must mask), a close ends the spectator."""

    def __init__(self, targets: list[tuple[int, str, int, str]], pipe):
        self.pipe, self.selector = pipe, selectors.DefaultSelector()
        self.selector.register(pipe.fileno(), selectors.EVENT_READ, None)
        self.pending = list(reversed(targets))
        self.watchers: list[_Watcher] = []
        self.opening = self.opened = 0
        self.failed: dict[int, str] = {}
        self.seen = Seen()
        self.measuring = False

    def run(self) -> None:
        told, started = 0, time.monotonic()
        while self.pending or self.opening:
            self._open_more()
            self._poll(0.2)
            if self.opened + len(self.failed) - told >= 100 or self.failed or not (self.pending or self.opening):
                told = self.opened + len(self.failed)
                self.pipe.send(("connected", self.opened, dict(list(self.failed.items())[:3]), len(self.failed)))
                if self.failed:
                    return   # the level fails: no need to connect the others
            if time.monotonic() - started > CONNECT_WITHIN:
                self.failed.update({i: f"not connected in {CONNECT_WITHIN:g} s" for i, *_ in self.pending})
                self.failed.update({w.index: f"no handshake in {CONNECT_WITHIN:g} s" for w in self.watchers
                                    if w.state in ("connecting", "handshake")})
                break
        self.pipe.send(("ready", self.opened, dict(list(self.failed.items())[:3]), len(self.failed)))
        if self.failed:
            return
        settle_at = None
        while True:
            command = self._poll(0.2)
            if isinstance(command, tuple):   # ("settle", seq)
                settle_at = command[1]
            elif command == "go":
                self.measuring, cpu = True, _process_cpu()
            elif command == "stop":
                self.seen.cpu = _process_cpu() - cpu
                self.seen.closed = {w.index: w.why for w in self.watchers if w.state == "closed"}
                self.pipe.send(("seen", self.seen))
                return
            if settle_at is not None:
                behind = sum(1 for w in self.watchers if w.state == "open" and w.newest < settle_at)
                if not behind:
                    settle_at = None
                self.pipe.send(("behind", behind))

    def _open_more(self) -> None:
        while self.pending and self.opening < CONNECTING:
            index, host, port, path = self.pending.pop()
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            sock.connect_ex((host, port))
            watcher = _Watcher(index, sock, _handshake(host, port, path))
            self.watchers.append(watcher)
            self.selector.register(sock, selectors.EVENT_WRITE, watcher)
            self.opening += 1

    def _poll(self, timeout: float) -> str | None:
        command = None
        for key, _ in self.selector.select(timeout):
            watcher = key.data
            if watcher is None:
                command = self.pipe.recv()
            elif watcher.state == "connecting":
                self._send_handshake(watcher)
            else:
                self._read(watcher)
        return command

    def _send_handshake(self, watcher: _Watcher) -> None:
        error = watcher.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if error:
            return self._fail(watcher, os.strerror(error))
        watcher.sock.send(watcher.request)
        watcher.state = "handshake"
        self.selector.modify(watcher.sock, selectors.EVENT_READ, watcher)

    def _fail(self, watcher: _Watcher, why: str) -> None:
        self.failed[watcher.index] = why
        self.opening -= 1
        self._drop(watcher)

    def _drop(self, watcher: _Watcher) -> None:
        self.selector.unregister(watcher.sock)
        watcher.sock.close()

    def _read(self, watcher: _Watcher) -> None:
        try:
            data, ancillary, _, _ = watcher.sock.recvmsg(1 << 18, STAMP_SPACE)
        except OSError as error:
            data, ancillary, why = b"", [], repr(error)
        else:
            why = "the gateway closed the connection"
        now = _stamp(ancillary)
        if not data:
            if watcher.state == "handshake":
                return self._fail(watcher, why)
            return self._end(watcher, why)
        watcher.buffer += data
        if watcher.state == "handshake":
            head, found, rest = bytes(watcher.buffer).partition(b"\r\n\r\n")
            if not found:
                return None
            if not head.startswith(b"HTTP/1.1 101"):
                return self._fail(watcher, head.split(b"\r\n", 1)[0].decode(errors="replace"))
            watcher.state, watcher.buffer = "open", bytearray(rest)
            self.opening -= 1
            self.opened += 1
        self._frames(watcher, now)
        return None

    def _frames(self, watcher: _Watcher, now: float) -> None:
        buffer, at, size = watcher.buffer, 0, len(watcher.buffer)
        while size - at >= 2:
            first, length, head = buffer[at], buffer[at + 1] & 0x7F, 2
            if length == 126:
                if size - at < 4:
                    break
                length, head = int.from_bytes(buffer[at + 2:at + 4], "big"), 4
            elif length == 127:
                if size - at < 10:
                    break
                length, head = int.from_bytes(buffer[at + 2:at + 10], "big"), 10
            start, end = at + head, at + head + length
            if end > size:
                break
            opcode = first & 0x0F
            if not first & 0x80:
                return self._end(watcher, "a fragmented frame, which this gateway never sends")
            if opcode == 1:
                self._text(watcher, buffer, start, end, now)
            elif opcode == 9:   # ping: a pong with its payload, masked with a zero key
                watcher.sock.send(bytes([0x8A, 0x80 | length]) + b"\0\0\0\0" + buffer[start:end])
            elif opcode == 8:
                code = int.from_bytes(buffer[start:start + 2], "big") if length >= 2 else 1005
                return self._end(watcher, f"closed {code}: {buffer[start + 2:end].decode(errors='replace')}")
            at = end
        del buffer[:at]
        return None

    def _text(self, watcher: _Watcher, buffer: bytearray, start: int, end: int, now: float) -> None:
        self.seen.frames += self.measuring
        if buffer.startswith(FEED_PREFIX, start):
            at = buffer.find(SEQ, start, end) + len(SEQ)
            stop = at
            while 48 <= buffer[stop] <= 57:
                stop += 1
            seq = int(buffer[at:stop])
            watcher.newest = max(watcher.newest, seq)
            if self.measuring:
                self.seen.spectators.append(watcher.index)
                self.seen.seqs.append(seq)
                self.seen.times.append(now)

    def _end(self, watcher: _Watcher, why: str) -> None:
        watcher.state, watcher.why = "closed", why
        self._drop(watcher)


def client_process(targets: list[tuple[int, str, int, str]], pipe) -> None:
    """A client process's work: connect its spectators, read them until told to stop."""
    raise_file_limit(len(targets) + 64)
    Client(targets, pipe).run()


# --- a level ----------------------------------------------------------------------------------------------

class Appended:
    """Each batch of the game's log and when the log stored it; each batch the feed has, and when it stored it."""

    def __init__(self):
        self.at: dict[int, float] = {}
        self.fed: dict[int, float] = {}

    async def follow(self, nc, game: str) -> list:
        js = nc.jetstream()
        where = await layout(js)

        async def on_log(msg) -> None:
            self.at[int(msg.headers[BATCH_HEADER])] = msg.metadata.timestamp.timestamp()

        async def on_feed(msg) -> None:
            self.fed[json.loads(msg.data)["seq"]] = msg.metadata.timestamp.timestamp()

        return [await js.subscribe(where.log_subject(game), stream=where.log_stream(game), cb=on_log,
                                   ordered_consumer=True, deliver_policy=DeliverPolicy.ALL),
                await js.subscribe(feed_subject(game), stream=FEED, cb=on_feed, ordered_consumer=True,
                                   deliver_policy=DeliverPolicy.ALL)]


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{('es' if word.endswith('s') else 's') * (n != 1)}"


async def level(gateways: list[tuple[str, int, int]], access: Access, key: str, spectators: int) -> dict:
    """One level: a new game, `spectators` watching it over `gateways` (host, port, pid), the window measured."""
    game = await asyncio.to_thread(_new_game, gateways[0], key)
    nc = await nats.connect(**access.connect_options("operator"))
    appended = Appended()
    subs = await appended.follow(nc, game)
    path = f"/games/{game}/public/ws"
    targets = [(i, *gateways[i % len(gateways)][:2], path) for i in range(spectators)]
    count = math.ceil(spectators / SPECTATORS_A_CLIENT)
    context = multiprocessing.get_context("spawn")
    pipes, processes = [], []
    for part in range(count):
        ours, theirs = context.Pipe()
        process = context.Process(target=client_process, args=(targets[part::count], theirs), daemon=True)
        process.start()
        theirs.close()   # theirs now: this end ends (EOFError) when the process does
        pipes.append(ours)
        processes.append(process)
    seen: list[Seen] = []
    try:
        await _connected(pipes, spectators, len(gateways))
        await _settled(pipes, spectators, max(appended.fed, default=0))
        pids = [pid for *_, pid in gateways]
        cpu, ticks = sum(map(cpu_seconds, pids)), machine_ticks()
        for pipe in pipes:
            pipe.send("go")
        started = time.time()
        await asyncio.sleep(SECONDS + GRACE)
        cpu, busy = sum(map(cpu_seconds, pids)) - cpu, busy_share(ticks, machine_ticks())
        for pipe in pipes:
            pipe.send("stop")
        seen = [await _answer(pipe, "seen") for pipe in pipes]
    finally:
        for process in processes:   # done once they have told what they saw; else stopped at once
            process.join(timeout=10 if len(seen) == count else 0)
            if process.is_alive():
                process.kill()
        for sub in subs:
            await sub.unsubscribe()
        await nc.close()
    return _figures(game, spectators, len(gateways), appended, started, seen, cpu, busy)


async def _answer(pipe, kind: str, timeout: float = 60.0):
    """The next message of a client process; RuntimeError if it says something else or nothing in time."""
    if not await asyncio.to_thread(pipe.poll, timeout):
        raise RuntimeError(f"a client process said nothing for {timeout:g} s (waiting for {kind!r})")
    try:
        message = pipe.recv()
    except EOFError:
        raise RuntimeError(f"a client process ended before it said {kind!r} (its error, if any, is above)") from None
    if message[0] != kind:
        raise RuntimeError(f"a client process said {message[0]!r} where {kind!r} was due")
    return message[1]


async def _connected(pipes, spectators: int, gateways: int) -> None:
    """Wait until every client process has its spectators connected, telling progress on stderr."""
    counts, ready, began, last = [0] * len(pipes), [False] * len(pipes), time.monotonic(), 0.0
    ticks = machine_ticks()
    failed: dict[int, str] = {}
    lost = [0] * len(pipes)
    while not all(ready):
        found = await asyncio.to_thread(multiprocessing.connection.wait, pipes, 1.0)
        for pipe in found:
            i = pipes.index(pipe)
            try:
                message = pipe.recv()
            except EOFError:
                raise RuntimeError(f"a client process ended with {sum(counts):,} of {spectators:,} spectators "
                                   "connected (its error, if any, is above)") from None
            counts[i] = message[1]
            ready[i] = message[0] == "ready"
            failed.update(message[2])
            lost[i] = message[3]
        if any(lost):
            raise RuntimeError(f"{sum(lost):,} of {spectators:,} spectators could not connect, e.g. "
                               + "; ".join(f"#{i}: {why}" for i, why in list(failed.items())[:3])
                               + f"; the machine was {busy_share(ticks, machine_ticks()):.0%} busy meanwhile")
        if time.monotonic() - last >= 2.0 or all(ready):
            last = time.monotonic()
            print(f"fanout: {_plural(spectators, 'spectator')} on {_plural(gateways, 'gateway')}: "
                  f"{sum(counts):,} connected ({last - began:.0f} s)", file=sys.stderr, flush=True)
        if time.monotonic() - began > CONNECT_WITHIN + 30:
            raise RuntimeError(f"{sum(counts):,} of {spectators:,} spectators connected in "
                               f"{CONNECT_WITHIN + 30:g} s: the client processes stopped answering")


async def _settled(pipes, spectators: int, newest: int) -> None:
    """Wait until every spectator has had the feed up to `newest`, the newest batch when the last connected:
    the gateways have sent each what a spectator gets on joining (the view, the latest moves), and the
    window measures the frames of the game as it goes on, not that."""
    for pipe in pipes:
        pipe.send(("settle", newest))
    behind, began, last = [spectators] * len(pipes), time.monotonic(), time.monotonic()
    while any(behind):
        for pipe in await asyncio.to_thread(multiprocessing.connection.wait, pipes, 1.0):
            behind[pipes.index(pipe)] = await _answer(pipe, "behind")
        if time.monotonic() - last >= 5.0:
            last = time.monotonic()
            print(f"fanout: {_plural(spectators, 'spectator')}: {sum(behind):,} yet to get batch {newest} "
                  f"({last - began:.0f} s)", file=sys.stderr, flush=True)
        if time.monotonic() - began > SETTLE_WITHIN:
            raise RuntimeError(f"{sum(behind):,} of {spectators:,} spectators had not had batch {newest} "
                               f"{SETTLE_WITHIN:g} s after the last connected: the gateways cannot keep up")


def _figures(game: str, spectators: int, gateways: int, appended: Appended, started: float, seen: list[Seen],
             cpu: float, busy: float) -> dict:
    """The level's delays and CPU a frame, or RuntimeError when the window cannot give them."""
    batches = {seq for seq, at in appended.at.items() if started <= at <= started + SECONDS} & appended.fed.keys()
    if not batches:
        raise RuntimeError(f"game {game} appended no public batch in the {SECONDS:g} s window at "
                           f"{_plural(spectators, 'spectator')}: nothing plays its bot seats, or it is over")
    delays, after_feed, got = [], [], [set() for _ in range(spectators)]
    for part in seen:
        for who, seq, at in zip(part.spectators, part.seqs, part.times, strict=True):
            if seq in batches and seq not in got[who]:
                got[who].add(seq)
                delays.append(at - appended.at[seq])
                after_feed.append(at - appended.fed[seq])
    frames = sum(part.frames for part in seen)
    if not delays or not frames:
        raise RuntimeError(f"no feed frame reached any of {_plural(spectators, 'spectator')} of game {game} in the "
                           f"window, though it appended {len(batches)} public batches ({frames:,} frames of any "
                           f"kind came); the machine was {busy:.0%} busy")
    expected = len(batches) * spectators
    missing = expected - len(delays)
    closed = {who: why for part in seen for who, why in part.closed.items()}
    if missing > MISSING_AT_MOST * expected:
        why = f"; {len(closed):,} closed, e.g. {next(iter(closed.values()))}" if closed else ""
        raise RuntimeError(f"at {_plural(spectators, 'spectator')}, {missing:,} of {expected:,} feed frames "
                           f"({missing / expected:.1%}) did not arrive within {GRACE:g} s of the window{why}; "
                           f"the machine was {busy:.0%} busy")
    delays.sort()
    after_feed.sort()
    delays += [math.inf] * missing   # a frame that never came is later than any that did
    after_feed += [math.inf] * missing
    return {"spectators": spectators, "gateways": gateways, "batches": len(batches), "frames": frames,
            "complete": sum(1 for mine in got if mine == batches), "closed": len(closed),
            "p50_ms": 1000 * statistics.median(delays), "p99_ms": 1000 * _p99(delays),
            "feed_p99_ms": 1000 * _p99(after_feed),
            "cpu_us": 1e6 * cpu / frames, "clients": len(seen),
            "client_busy": max(part.cpu for part in seen) / (SECONDS + GRACE), "busy": busy}


def _p99(ordered: list[float]) -> float:
    return ordered[int(0.99 * (len(ordered) - 1))]


def _new_game(gateway: tuple[str, int, int], key: str) -> str:
    host, port, _ = gateway
    body = json.dumps({"players": PLAYERS, "seats": ["greedy"] * PLAYERS, "pace": PACE}).encode()
    request = urllib.request.Request(f"http://{host}:{port}/games", data=body,
                                     headers={"Content-Type": "application/json", HEADER: key})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["game_id"]


def raise_file_limit(needed: int) -> None:
    """Sockets for `needed` spectators: RuntimeError when the hard limit is too low to allow them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            raise RuntimeError(f"{needed:,} open files are needed and the hard limit is {hard:,}: "
                               f"raise it (ulimit -Hn) to run this benchmark")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


# --- the run ----------------------------------------------------------------------------------------------

def measure(levels=LEVELS) -> list[dict]:
    most = max(n for n, _ in levels)
    raise_file_limit(most + 1024)   # inherited by each gateway, which holds the other end of its share
    with tempfile.TemporaryDirectory() as store:
        server = NatsServer(Path(store) / "jetstream", log=SERVER_LOG)
        key = secrets.token_urlsafe(24)
        keys = Path(store) / "platform-keys"
        keys.write_text(f"bench:{key}\n")
        asyncio.run(prepare_topology(server.access))
        cli = [sys.executable, "-m", "zioncheck.cli.main", "serve", *server.cli_args, "--log-level", "warning"]
        ports = [free_port() for _ in range(max(g for _, g in levels))]
        processes = [subprocess.Popen([*cli, "table", "dealer", "scoring", "projector", "intake", "bots"],
                                      stdout=subprocess.PIPE)]
        processes += [subprocess.Popen([sys.executable, *(GATEWAY_PROFILE if i == 0 else []), *cli[1:], "gateway",
                                        "--port", str(port), "--platform-keys", str(keys)], stdout=subprocess.PIPE)
                      for i, port in enumerate(ports)]
        try:
            for process in processes:
                line = process.stdout.readline()
                if b"serving" not in line:
                    raise RuntimeError(f"a service did not start: it said {line.decode(errors='replace')!r}")
            gateways = [("127.0.0.1", port, process.pid) for port, process in zip(ports, processes[1:], strict=True)]
            results = []
            for n, g in levels:
                try:
                    results.append(asyncio.run(level(gateways[:g], server.access, key, n)))
                except RuntimeError as error:   # said with what the levels before it measured
                    raise RuntimeError(f"{error}{_so_far(results)}") from None
            return results
        finally:
            for process in processes:
                process.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=10)
            server.stop()


def _so_far(results: list[dict]) -> str:
    if not results:
        return ""
    return " (measured before it: " + "; ".join(
        f"{_plural(r['spectators'], 'spectator')} p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
        f"{r['cpu_us']:.0f} us gateway CPU a frame" for r in results) + ")"


def run() -> list[Row]:
    results = measure()
    base = results[0]["p99_ms"]
    rows = []
    for r in results:
        n = r["spectators"]
        versus = "baseline" if r is results[0] else f"{r['p99_ms'] / base:.1f}x the p99 at 1 spectator"
        spread = "one gateway" if r["gateways"] == 1 else f"{r['gateways']} gateways (processes), split evenly"
        load = (f"{_plural(n, 'spectator')} on {spread}, watching a {PLAYERS}-bot game ({PACE:g} s a move), "
                f"{r['batches']} batches in {SECONDS:g} s; {r['complete']:,}/{n:,} got every batch; read by "
                f"{_plural(r['clients'], 'client process')} (epoll, a minimal WebSocket reader), the busiest at "
                f"{r['client_busy']:.0%} of a core; machine {r['busy']:.0%} busy")
        rows.append(Row(f"fanout p99, {_plural(n, 'spectator')}", r["p99_ms"], "ms", load,
                        TARGET_P99_MS if n == TARGET_AT else None,
                        f"p50 {r['p50_ms']:.1f} ms; p99 from the feed's store {r['feed_p99_ms']:.1f} ms; "
                        f"gateway CPU {r['cpu_us']:.0f} us a frame ({r['frames']:,} frames); {versus}",
                        at_most=True))
    return rows


if __name__ == "__main__":
    for result in measure():
        print(result)
