"""Fixtures for the tests that talk to a real nats-server: each server has its own port, store and
logins, and runs with the shipped users and permissions (services.access)."""
import pytest

from services.app import SERVICES, Services
from services.client import GameClient
from services.embedded import NatsServer
from services.observability import configure_logging

configure_logging("warning")


@pytest.fixture
def nats_server(tmp_path):
    server = NatsServer(tmp_path / "jetstream", log=tmp_path / "nats-server.log")
    yield server
    server.stop()


@pytest.fixture
async def services(nats_server):
    running = await Services().start(SERVICES, nats_server.access)
    yield running
    await running.stop()


@pytest.fixture
async def client(nats_server):
    """The operator's client: the tests stack deals and read seeds as only the operator may."""
    c = await GameClient.connect(nats_server.access, "operator")
    yield c
    await c.close()
