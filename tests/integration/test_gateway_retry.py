"""A person's move made while the store cannot take it: the gateway sends it again with the same
idempotency key until it is stored, and it is applied once."""
import asyncio

import httpx

from gateway_helpers import SECRET, bearer, game_in_play, keys_file  # noqa: F401
from zioncheck.contracts import events as ev
from zioncheck.services.gateway.server import Running
from zioncheck.services.wiring import Services


async def test_a_move_sent_while_no_intake_answers_is_sent_again_and_applied_once(nats_server, client, keys_file):
    house = await Services().start(["table", "dealer", "scoring", "projector"], nats_server.access)
    intake = await Services().start(["intake"], nats_server.access)
    running = await Running.start(nats_server.access, port=0, secret=SECRET, platform_keys=keys_file)
    try:
        follower, seat_0, _ = await game_in_play(client)
        await intake.stop()   # an intake instance gone, none yet in its place
        async with httpx.AsyncClient(base_url=running.url, timeout=40) as http:
            move = asyncio.ensure_future(http.post(f"/games/{follower.game}/commands", json={"type": "draw_stock"},
                                                   headers=bearer(seat_0)))
            await asyncio.sleep(1.0)
            assert not move.done(), "the gateway waits and sends again; it does not give the person up"
            intake = await Services().start(["intake"], nats_server.access)
            answer = await move
        assert answer.status_code == 200 and answer.json()["accepted"] and answer.json()["drew"] == "5S"
        await follower.wait_until(lambda f: f.state.drawn)
        assert sum(isinstance(e, ev.StockDrawn) for b in follower.batches for e in b.events) == 1
    finally:
        await running.stop()
        await intake.stop()
        await house.stop()
