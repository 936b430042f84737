"""Integration fixtures: real NATS servers, each with its own port and store (backends: tests/nats_backends.py)."""
import pytest

from services.app import SERVICES, Services
from services.client import GameClient
from services.observability import configure_logging
from nats_backends import start_nats

configure_logging("warning")


@pytest.fixture
def nats_server(tmp_path):
    server = start_nats(tmp_path / "jetstream", log=tmp_path / "nats-server.log")
    yield server
    server.stop()


@pytest.fixture
async def services(nats_server):
    running = await Services().start(SERVICES, nats_server.url)
    yield running
    await running.stop()


@pytest.fixture
async def client(nats_server):
    c = await GameClient.connect(nats_server.url)
    yield c
    await c.close()
