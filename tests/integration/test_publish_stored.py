"""A synced publish (services/bus/publish.py) says what became of it: the stream's sequence, the
stream's refusal, no stream at all, or no answer in time; and many at once each get their own."""
import asyncio

import pytest
from nats.errors import TimeoutError as NatsTimeout
from nats.js.errors import BadRequestError, NoStreamResponseError

from over_nats import new_game
from zioncheck.services.bus.publish import publish_stored
from zioncheck.services.bus.topology import ensure_topology, layout

pytestmark = pytest.mark.integration


async def test_many_publishes_at_once_each_get_their_own_sequence(nats_server, client):
    await ensure_topology(client.js)
    where, game = await layout(client.js), new_game()
    seqs = await asyncio.gather(*(publish_stored(client.js, where.log_subject(game, "move"), b"{}") for _ in range(50)))
    assert len(set(seqs)) == 50
    info = await client.js.stream_info(where.log_stream(game))
    assert max(seqs) <= info.state.last_seq


async def test_a_refused_expectation_is_the_streams_error_and_no_stream_is_said(nats_server, client):
    await ensure_topology(client.js)
    where, game = await layout(client.js), new_game()
    subject = where.log_subject(game, "move")
    first = await publish_stored(client.js, subject, b"{}")
    with pytest.raises(BadRequestError) as refused:
        await publish_stored(client.js, subject, b"{}", {"Nats-Expected-Last-Subject-Sequence": str(first - 1)})
    assert refused.value.err_code == 10071   # wrong last sequence
    with pytest.raises(NoStreamResponseError):
        await publish_stored(client.js, "nobody.stores.this", b"{}")


async def test_no_answer_in_time_is_a_timeout_and_later_publishes_still_work(nats_server, client):
    await ensure_topology(client.js)
    silent = await client.nc.subscribe("zc.silent.here")   # a listener that never answers: no 503 either
    quick = client.nc.jetstream(timeout=0.3)
    with pytest.raises(NatsTimeout):
        await publish_stored(quick, "zc.silent.here", b"{}")
    await silent.unsubscribe()
    where, game = await layout(client.js), new_game()
    assert await publish_stored(quick, where.log_subject(game, "move"), b"{}") > 0
