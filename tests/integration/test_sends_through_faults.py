"""A command in flight when its intake or the server goes: nats-py lets a request wait out its timeout after
its connection is lost, so every house connection fails its waiting requests at once (fail_pending), every
send carries an idempotency key, and each try waits TRY_SECONDS: the command is sent again as soon as
something can answer it, and stored once."""
import asyncio

import pytest

from over_nats import stacked_game, stored_messages
from zioncheck.client import TRY_SECONDS, GameClient
from zioncheck.contracts.commands import DrawStock
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.bus.publish import ConnectionLost, request
from zioncheck.services.bus.topology import commands_stream, layout, stored_command_subject
from zioncheck.services.wiring import SERVICES, Services

pytestmark = pytest.mark.integration
HANDS = [["AS", "2S", "9D"], ["3S", "4S", "9C"]]
STOCK = ["5S", "6S", "7S"]


async def test_a_request_waiting_when_the_connection_is_lost_fails_at_once_not_at_its_timeout(tmp_path):
    server = NatsServer(tmp_path / "jetstream", credentials=tmp_path / "credentials")
    nc = await connect(server.access, "operator", max_reconnect_attempts=0)
    try:
        await nc.subscribe("zc.in.platform.silent")   # takes the request and never answers it
        waiting = asyncio.ensure_future(request(nc, "zc.in.platform.silent", b"{}", timeout=600))
        await asyncio.sleep(0.2)
        server.kill()
        with pytest.raises(ConnectionLost):
            await asyncio.wait_for(waiting, 30)   # the request's own timeout is 600 s
    finally:
        await nc.close()
        server.stop()


async def test_a_services_request_waiting_when_the_connection_is_lost_fails_at_once_too(nats_server):
    """The services' connections are FastStream's, made apart from `connect`: theirs fail their waiting requests
    at once as well (a projector's view writes waited out their timeout after a server's kill, and its games with
    them). Here a request of the projector's waits, and its connection is told it is lost, as nats-py tells it."""
    services = await Services().start(["projector"], nats_server.access)
    try:
        nc = services.brokers[0].config.connection_state.connection
        waiting = asyncio.get_running_loop().create_future()
        nc._resp_map["waiting"] = waiting
        await nc._disconnected_cb()   # what nats-py awaits when the connection is lost
        with pytest.raises(ConnectionLost):
            await waiting
    finally:
        services.brokers[0].config.connection_state.connection._resp_map.pop("waiting", None)
        await services.stop()


async def test_a_command_sent_while_the_server_is_down_is_stored_once_when_it_is_back(tmp_path):
    store, credentials = tmp_path / "jetstream", tmp_path / "credentials"
    server = NatsServer(store, credentials=credentials)
    services = await Services().start(SERVICES, server.access)
    client = await GameClient.connect(server.access, "operator")
    try:
        follower = await stacked_game(client, 2, HANDS, STOCK)
        server.kill()
        sending = asyncio.ensure_future(client.send(follower.game, DrawStock(seat=0)))
        await asyncio.sleep(3 * TRY_SECONDS)   # tries fail while nothing answers; the send goes on
        assert not sending.done()
        server = NatsServer(store, port=server.port, credentials=credentials)
        seq = await asyncio.wait_for(sending, 60)
        [drawn] = await follower.outcome(seq, timeout=30)
        assert drawn.card == "5S"
        partition = (await layout(client.js)).of(follower.game)
        draws = [m for m in await stored_messages(client, commands_stream(partition),
                                                  stored_command_subject(partition, follower.game, "play"))
                 if b"draw_stock" in m.data]
        assert len(draws) == 1   # sent many times, stored once
    finally:
        await client.close()
        await services.stop()
        server.stop()
