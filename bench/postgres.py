"""A PostgreSQL server of the bench's own, for the peer on PostgreSQL (bench/peer.py).

Made with the machine's binaries (Debian's under /usr/lib/postgresql/<version>/bin, else initdb and
pg_ctl on PATH) in a temporary folder of its own: initdb, then pg_ctl start, listening on 127.0.0.1
alone on a free port, its socket inside the folder, with fsync and synchronous_commit on (every
commit waits for its WAL on disk, as every append of the services waits for its sync), and a
password for its one user. PostgreSQL will not run as root: as root it runs as the `postgres` user
(`runuser`), owning the folder. `stop` ends it and removes the folder. A server that cannot start
raises, saying why, with the last lines of its log.
"""
import contextlib
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
from glob import glob
from pathlib import Path

from zioncheck.services.bus.embedded import free_port

USER, DATABASE = "bench", "postgres"
SETTINGS = {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}
START_SECONDS = 60


def binaries() -> Path:
    """The folder of initdb, pg_ctl and postgres: the newest Debian version's, else initdb's on PATH."""
    found = sorted(glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(os.path.realpath(initdb)).parent
    raise RuntimeError("PostgreSQL not found: no /usr/lib/postgresql/*/bin and no initdb on PATH "
                       "(Debian: apt-get install postgresql)")


def process_tree_cpu(root: int) -> float:
    """User and system CPU seconds of process `root` and every process below it (Linux /proc), with
    what its children that ended already used (the kernel adds it to `root`'s cutime and cstime)."""
    children: dict[int, list[int]] = {}
    times: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue   # ended while the folder was read
        pid = int(entry.name)
        children.setdefault(int(fields[1]), []).append(pid)
        times[pid] = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if pid == root else 0)
    if root not in times:
        raise RuntimeError(f"PostgreSQL's postmaster (pid {root}) is gone")
    ticks, below = 0, [root]
    while below:
        pid = below.pop()
        ticks += times.get(pid, 0)
        below += children.get(pid, [])
    return ticks / os.sysconf("SC_CLK_TCK")


class PostgresServer:
    """One PostgreSQL server in a temporary folder of its own until `stop`, which removes the folder too."""

    def __init__(self):
        self.bin, self.runner = binaries(), self._runner()
        self.folder = folder = Path(tempfile.mkdtemp(prefix="zioncheck-bench-postgres-"))
        self.data, self.socket, self.log = folder / "data", folder / "socket", folder / "postgres.log"
        self.port, self.password = free_port(), secrets.token_urlsafe(24)
        self.pid: int | None = None
        try:
            self.socket.mkdir()
            password_file = folder / "password"
            password_file.write_text(self.password)
            password_file.chmod(0o600)
            if self.runner:
                owner = pwd.getpwnam("postgres")
                for path in (folder, self.socket, password_file):
                    os.chown(path, owner.pw_uid, owner.pw_gid)
            self._run("initdb", "-D", str(self.data), "-U", USER, f"--pwfile={password_file}",
                      "--auth=scram-sha-256", "--encoding=UTF8", "--no-instructions")
            password_file.unlink()
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        options = " ".join([f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.socket}",
                            *(f"-c {name}={value}" for name, value in SETTINGS.items())])
        try:
            self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", str(START_SECONDS),
                      "-o", options, "start")
            self.pid = int((self.data / "postmaster.pid").read_text().split()[0])
            self._check_settings()
        except BaseException:
            with contextlib.suppress(RuntimeError):   # the reason it did not start is the one to tell
                self.stop()
            raise

    def _runner(self) -> list[str]:
        if os.geteuid() != 0:
            return []
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise RuntimeError("PostgreSQL will not run as root, and this machine has no `postgres` user "
                               "to run it as (Debian's postgresql package makes one)") from None
        return ["runuser", "-u", "postgres", "--"]

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run([*self.runner, str(self.bin / program), *args], capture_output=True, text=True)
        if done.returncode != 0:
            log = self.log.read_text()[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"PostgreSQL: {program} failed (exit {done.returncode}): "
                               f"{(done.stderr or done.stdout).strip()[-2000:]}"
                               + (f"\nthe end of its log:\n{log}" if log else ""))

    @property
    def env(self) -> dict[str, str]:
        """The eventsourcing library's settings to reach this server (eventsourcing.postgres)."""
        return {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": DATABASE,
                "POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": str(self.port), "POSTGRES_USER": USER,
                "POSTGRES_PASSWORD": self.password}

    def _check_settings(self) -> None:
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=USER, password=self.password,
                             dbname=DATABASE) as connection:
            for name, value in SETTINGS.items():
                found = connection.execute(f"SHOW {name}").fetchone()[0]
                if found != value:
                    raise RuntimeError(f"PostgreSQL runs with {name}={found}, not {value}")

    def cpu_seconds(self) -> float:
        """CPU seconds so far of the postmaster and all its backends and workers."""
        assert self.pid is not None
        return process_tree_cpu(self.pid)

    def stop(self) -> None:
        """Stop the server (a fast shutdown; killed if it will not stop) and remove its folder."""
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "30", "stop")
        except RuntimeError:
            if self.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)   # its backends end when they find it gone
            raise
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "PostgresServer":
        return self

    def __exit__(self, *_) -> None:
        self.stop()
