"""A 3-node JetStream cluster with replicated streams: the services work across it unchanged."""
import asyncio
import subprocess
import time
from types import SimpleNamespace
from pathlib import Path

import pytest

from engine.scenario import load, run
from services.access import Access, connect, make_credentials, routes_block
from services.app import SERVICES, Services
from services.embedded import config_text, free_port, reachable, server_binary
from services.scenario_over_nats import play
from services.topology import stream_configs

EXAMPLE = Path(__file__).parent.parent / "scenarios" / "example.json"


ROUTE_PASSWORD = "route-secret-for-tests"


def node_config(i: int, ports: list[int], routes: list[int], store: Path, credentials: Path) -> str:
    """A node as deploy/cluster/*.conf makes one: the roles' users, and routes that must log in."""
    route_auth = routes_block(ROUTE_PASSWORD, [f"127.0.0.1:{r}" for r in routes])
    return f"server_name: n{i}\n" + config_text(ports[i], store / f"n{i}", True, credentials, extra=(
        f'cluster {{\n  name: zc-test\n  listen: "127.0.0.1:{routes[i]}"\n{route_auth}}}\n'))


@pytest.fixture
def cluster(tmp_path):
    ports, routes = [free_port() for _ in range(3)], [free_port() for _ in range(3)]
    credentials = tmp_path / "credentials"
    make_credentials(credentials)
    nodes = []
    for i in range(3):
        conf = tmp_path / f"n{i}.conf"
        conf.write_text(node_config(i, ports, routes, tmp_path, credentials))
        nodes.append(subprocess.Popen([server_binary(), "-c", str(conf)], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
    urls = [f"nats://127.0.0.1:{p}" for p in ports]
    deadline = time.monotonic() + 15
    while not all(map(reachable, urls)) and time.monotonic() < deadline:
        time.sleep(0.1)
    yield SimpleNamespace(access=Access(tuple(urls), credentials), routes=routes)
    for node in nodes:
        node.terminate()
        node.wait()


async def test_a_scenario_plays_the_same_on_a_three_node_cluster_with_three_replicas(cluster):
    for _ in range(100):  # the cluster needs a moment to elect a JetStream meta leader
        try:
            services = await Services().start(SERVICES, cluster.access, replicas=3)
            break
        except Exception:  # noqa: BLE001 - not ready yet
            await asyncio.sleep(0.2)
    else:
        pytest.fail("the cluster never accepted the streams")
    try:
        scenario = load(EXAMPLE.read_bytes())
        assert await play(scenario, cluster.access, services) == run(scenario)
    finally:
        await services.stop()
    # Services started again without --replicas leave every stream's replicas as they are.
    again = await Services().start(SERVICES, cluster.access)
    await again.stop()
    nc = await connect(cluster.access, "operator")
    try:
        for config in stream_configs():
            assert (await nc.jetstream().stream_info(config.name)).config.num_replicas == 3, config.name
    finally:
        await nc.close()


async def test_a_node_without_the_route_login_cannot_join_the_cluster(cluster, tmp_path):
    """The routes carry every game's cards: a node must log in to join them."""
    port, route = free_port(), free_port()
    conf = tmp_path / "intruder.conf"
    peers = ", ".join(f'"nats-route://127.0.0.1:{r}"' for r in cluster.routes)
    conf.write_text(f'server_name: intruder\nlisten: "127.0.0.1:{port}"\n'
                    f'cluster {{\n  name: zc-test\n  listen: "127.0.0.1:{route}"\n  routes: [{peers}]\n}}\n')
    log = tmp_path / "intruder.log"
    node = subprocess.Popen([server_binary(), "-c", str(conf), "-l", str(log)])
    try:
        time.sleep(2)
    finally:
        node.terminate()
        node.wait()
    assert "Route Error 'Authorization Violation'" in log.read_text()
