"""The tests' NATS servers, from one of two backends.

- process: `nats-server` processes started directly (services/bus/embedded.py: NatsServer, and
  ServerProcess for a cluster node's config).
- container: the same binary in an image of its own (deploy/container/Dockerfile, built
  here once per test session), run by testcontainers on the local Docker engine. Every
  container uses the host network and its server listens on 127.0.0.1 only, so a test
  reaches it exactly as it reaches a process; config and store are bind-mounted.

ZIONCHECK_TEST_NATS picks one: `container`, `process`, or `auto` (the default:
containers when a Docker engine answers, processes otherwise). Either way a server has
`.url`, `.port`, `.stop()` and `.kill()`; a container also has `.pause()` (freezes it,
its connections stay open) and `.unpause()`. A cluster node's config comes from the
test that asks for it; a single server's from server_files in services/bus/embedded.py, the same
function the process backend uses.
"""
import contextlib
import functools
import os
import shutil
import struct
import subprocess
import tempfile
import time
from pathlib import Path

from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import (
    NatsServer,
    ServerProcess,
    cli_args,
    free_port,
    reachable,
    server_binary,
    server_files,
)

# testcontainers' reaper runs in a container of its own whose image cannot be pulled
# here; set before testcontainers reads it. sweep() does the reaper's job instead.
os.environ["TESTCONTAINERS_RYUK_DISABLED"] = "true"

SETTING = "ZIONCHECK_TEST_NATS"
CHOICES = ("auto", "container", "process")
DOCKERFILE = Path(__file__).resolve().parent.parent / "deploy" / "container" / "Dockerfile"
IMAGE_REPOSITORY = "zioncheck/nats-server"
OWNER_LABEL = "zioncheck.test-nats.owner"   # the pid of the test run that started the container
CONFIG_INSIDE = "/etc/nats/nats-server.conf"
READY_WITHIN = 15.0


class NatsContainer:
    """One nats-server container on the host network: its config file read-only at
    CONFIG_INSIDE, each folder in `mounts` at its own path (the config names them so)."""

    def __init__(self, image: str, config: Path, port: int, mounts: list[Path], log: Path | None = None,
                 on_stop=None):
        from testcontainers.core.container import DockerContainer

        self.port = port
        self.url = f"nats://127.0.0.1:{port}"
        self.log = log
        self._on_stop = on_stop
        self._stopped = False
        container = (DockerContainer(image)
                     .with_command(["-c", CONFIG_INSIDE])
                     .with_volume_mapping(str(config.resolve()), CONFIG_INSIDE, "ro")
                     .with_kwargs(network_mode="host", labels={OWNER_LABEL: str(os.getpid())}))
        for folder in mounts:
            folder = folder.resolve()
            folder.mkdir(parents=True, exist_ok=True)
            container.with_volume_mapping(str(folder), str(folder), "rw")
        self.container = container.start()
        self._wait_ready()

    @property
    def _docker(self):
        return self.container.get_wrapped_container()

    def status(self) -> str:
        self._docker.reload()
        return self._docker.status

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_WITHIN
        while not reachable(self.url):
            if self.status() in ("exited", "dead") or time.monotonic() > deadline:
                logs = self._docker.logs().decode(errors="replace")
                self.stop()
                raise RuntimeError(f"nats-server container did not listen on {self.url}:\n{logs[-3000:]}")
            time.sleep(0.05)

    def pause(self) -> None:
        """Freeze every process of the container (cgroup freezer): its sockets stay open, nothing answers."""
        self._docker.pause()

    def unpause(self) -> None:
        self._docker.unpause()

    def kill(self) -> None:
        """SIGKILL, as `kill -9` does to a process; the container stays until stop()."""
        if self.status() == "paused":
            self.unpause()
        self._docker.kill()
        self._docker.wait()

    def stop(self) -> None:
        """SIGTERM, a grace of 10 s, then the container and its logs are gone (the logs kept in `log`)."""
        if self._stopped:
            return
        self._stopped = True
        try:
            if self.status() == "paused":
                self.unpause()
            self._docker.stop(timeout=10)
            if self.log:
                with open(self.log, "ab") as out:
                    out.write(self._docker.logs())
        finally:
            self.container.stop()
            if self._on_stop:
                self._on_stop()


class ProcessBackend:
    name = "process"

    def __init__(self, why: str):
        self.why = why

    def describe(self) -> str:
        return f"NATS backend: process ({server_binary()}; {self.why})"

    def server(self, store: Path, log: Path | None = None):
        return NatsServer(store, log=log)

    def node(self, config: Path, port: int, folder: Path, log: Path | None = None):
        return ServerProcess(config, port, log)


class ContainerBackend:
    name = "container"

    def __init__(self, image: str, engine: str, why: str):
        self.image, self.engine, self.why = image, engine, why

    def describe(self) -> str:
        return f"NATS backend: container (image {self.image}, Docker engine {self.engine}; {self.why})"

    def server(self, store: Path, log: Path | None = None):
        """Like NatsServer (services/bus/embedded.py): the same files, logins in store's parent folder."""
        port = free_port()
        credentials = store.parent / "credentials"
        config = server_files(store, port, credentials)
        server = NatsContainer(self.image, config, port, [store], log, on_stop=lambda: config.unlink(missing_ok=True))
        server.credentials, server.access = credentials, Access((server.url,), credentials)
        server.cli_args = cli_args(server.url, credentials)
        return server

    def node(self, config: Path, port: int, folder: Path, log: Path | None = None):
        return NatsContainer(self.image, config, port, [folder], log)


class Cluster:
    """Nodes of one NATS cluster; `url` names them all, as --nats-url takes it."""

    def __init__(self, nodes: list):
        self.nodes = nodes
        self.url = ",".join(node.url for node in nodes)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def start_nats(store: Path, log: Path | None = None):
    """A single JetStream server storing under `store`, on the chosen backend."""
    return chosen().server(store, log)


def start_cluster(folder: Path, config, size: int = 3) -> Cluster:
    """`size` nodes on the chosen backend; config(i, client_ports, route_ports, folder) is node i's
    config text. Each node's config and log are written in `folder`, which holds the stores."""
    ports, routes = [free_port() for _ in range(size)], [free_port() for _ in range(size)]
    backend, nodes = chosen(), []
    try:
        for i in range(size):
            conf = folder / f"n{i}.conf"
            conf.write_text(config(i, ports, routes, folder))
            nodes.append(backend.node(conf, ports[i], folder, log=folder / f"n{i}.log"))
    except BaseException:
        Cluster(nodes).stop()
        raise
    return Cluster(nodes)


@functools.cache
def chosen():
    """The backend for this test run (chosen once): see the module's docstring."""
    wanted = os.environ.get(SETTING, "").strip().lower() or "auto"
    if wanted not in CHOICES:
        raise ValueError(f"{SETTING}={wanted!r}: choose one of {', '.join(CHOICES)}")
    if wanted == "process":
        return ProcessBackend(f"{SETTING}=process")
    engine, trouble = _engine()
    if engine is None:
        if wanted == "container":
            raise RuntimeError(f"{SETTING}=container, but no Docker engine answers: {trouble}")
        return ProcessBackend(f"{SETTING}=auto and no Docker engine answers: {trouble}")
    with contextlib.closing(engine):
        sweep(engine)
        image = build_image(engine)
        version = engine.version().get("Version", "?")
    return ContainerBackend(image, version, f"{SETTING}={wanted}")


def containers_in_use() -> bool:
    return chosen().name == "container"


def _engine():
    """A client of the local Docker engine and None, or None and why there is none."""
    try:
        import docker
    except ImportError as missing:
        return None, f"the docker package is not installed ({missing})"
    try:
        engine = docker.from_env(timeout=10)
        engine.ping()
        return engine, None
    except Exception as trouble:  # noqa: BLE001 - any failure means: no engine to use
        return None, str(trouble).splitlines()[0] if str(trouble) else type(trouble).__name__


def build_image(engine) -> str:
    """Build the server's image from deploy/container/Dockerfile, with the binary the
    process backend runs copied into a fresh build context; returns its tag. Docker's
    build cache makes a rebuild of an unchanged binary immediate."""
    binary = Path(server_binary()).resolve()
    if not is_static(binary):
        raise RuntimeError(f"{binary} is linked dynamically: an image FROM scratch could not run it")
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=True)
    tag = f"{IMAGE_REPOSITORY}:{version.stdout.strip().rsplit(' ', 1)[-1].lstrip('v')}"
    with tempfile.TemporaryDirectory(prefix="nats-image-") as context:
        shutil.copy2(binary, Path(context) / "nats-server")
        shutil.copy2(DOCKERFILE, Path(context) / "Dockerfile")
        engine.images.build(path=context, tag=tag, rm=True, forcerm=True, pull=False)
    return tag


def is_static(binary: Path) -> bool:
    """True for an ELF executable with no program interpreter (no dynamic loader to find)."""
    with open(binary, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF":
            return False
        order = "<" if head[5] == 1 else ">"
        if head[4] == 2:   # 64-bit
            phoff, = struct.unpack_from(order + "Q", head, 0x20)
            entry_size, count = struct.unpack_from(order + "HH", head, 0x36)
        else:
            phoff, = struct.unpack_from(order + "I", head, 0x1C)
            entry_size, count = struct.unpack_from(order + "HH", head, 0x2A)
        f.seek(phoff)
        table = f.read(entry_size * count)
    PT_INTERP = 3
    return all(struct.unpack_from(order + "I", table, i * entry_size)[0] != PT_INTERP for i in range(count))


def sweep(engine=None) -> None:
    """Remove the containers left by this test run, or by one that died before removing its own."""
    closing = engine is None
    if engine is None:
        engine, _ = _engine()
        if engine is None:
            return
    try:
        for container in engine.containers.list(all=True, filters={"label": OWNER_LABEL}):
            owner = int(container.labels.get(OWNER_LABEL, "0"))
            if owner == os.getpid() or not _alive(owner):
                with contextlib.suppress(Exception):
                    container.remove(force=True, v=True)
    finally:
        if closing:
            engine.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
