"""A service started beside a cluster that has not yet chosen a leader waits for its JetStream, saying so once,
and gives up after its time in one line, never with a traceback (deploy/README.md starts the services the moment
the nodes are started)."""
import asyncio

import nats.errors
import pytest
from nats.js.errors import ServiceUnavailableError

from zioncheck.services import wiring
from zioncheck.services.wiring import JetStreamAway, jetstream_answering


class Cluster:
    """JetStream's API as a cluster electing its leader answers it: `silent` asks unanswered, then an answer."""

    def __init__(self, silent: int, error=nats.errors.TimeoutError):
        self.silent, self.error, self.asked = silent, error, 0

    async def account_info(self):
        self.asked += 1
        if self.asked <= self.silent:
            raise self.error()
        return object()


@pytest.fixture(autouse=True)
def no_pause(monkeypatch):
    real = asyncio.sleep
    monkeypatch.setattr(wiring.asyncio, "sleep", lambda seconds: real(0))


@pytest.mark.parametrize("error", [nats.errors.TimeoutError, nats.errors.NoRespondersError, ServiceUnavailableError])
async def test_a_service_waits_for_a_cluster_to_elect_its_leader_and_says_so_once(error, monkeypatch):
    said = []
    monkeypatch.setattr(wiring.log, "warning", lambda event, **fields: said.append(event))
    cluster = Cluster(silent=3, error=error)
    await jetstream_answering(cluster, within=30)
    assert cluster.asked == 4
    assert said == ["waiting_for_jetstream"]


async def test_jetstream_that_never_answers_is_said_in_one_line_after_the_wait():
    with pytest.raises(JetStreamAway, match=r"did not within 0\.2 s .*TimeoutError.*quorum"):
        await jetstream_answering(Cluster(silent=10**9), within=0.2)
