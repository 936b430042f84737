"""A 3-node JetStream cluster with replicated streams: the services work across it unchanged."""
import asyncio
import subprocess
import time
from pathlib import Path

import pytest

from engine.scenario import load, run
from services.app import SERVICES, Services
from services.embedded import free_port, reachable, server_binary
from services.scenario_over_nats import play

EXAMPLE = Path(__file__).parent.parent / "scenarios" / "example.json"


def node_config(i: int, ports: list[int], routes: list[int], store: Path) -> str:
    peers = "\n".join(f'    "nats-route://127.0.0.1:{r}"' for r in routes)
    return (f'server_name: n{i}\nlisten: "127.0.0.1:{ports[i]}"\n'
            f'jetstream {{\n  store_dir: "{store / f"n{i}"}"\n  sync_interval: always\n}}\n'
            f'cluster {{\n  name: zc-test\n  listen: "127.0.0.1:{routes[i]}"\n  routes: [\n{peers}\n  ]\n}}\n')


@pytest.fixture
def cluster(tmp_path):
    ports, routes = [free_port() for _ in range(3)], [free_port() for _ in range(3)]
    nodes = []
    for i in range(3):
        conf = tmp_path / f"n{i}.conf"
        conf.write_text(node_config(i, ports, routes, tmp_path))
        nodes.append(subprocess.Popen([server_binary(), "-c", str(conf)], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
    urls = [f"nats://127.0.0.1:{p}" for p in ports]
    deadline = time.monotonic() + 15
    while not all(map(reachable, urls)) and time.monotonic() < deadline:
        time.sleep(0.1)
    yield ",".join(urls)
    for node in nodes:
        node.terminate()
        node.wait()


async def test_a_scenario_plays_the_same_on_a_three_node_cluster_with_three_replicas(cluster):
    for _ in range(100):  # the cluster needs a moment to elect a JetStream meta leader
        try:
            services = await Services().start(SERVICES, cluster, replicas=3)
            break
        except Exception:  # noqa: BLE001 - not ready yet
            await asyncio.sleep(0.2)
    else:
        pytest.fail("the cluster never accepted the streams")
    try:
        scenario = load(EXAMPLE.read_bytes())
        assert await play(scenario, cluster, services) == run(scenario)
    finally:
        await services.stop()
