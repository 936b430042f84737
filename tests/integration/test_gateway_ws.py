"""The gateway's WebSockets against a real uvicorn server: the gateway's clock, live views and feed, token
refusals, bad frames."""
import asyncio
import time

import msgspec
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from gateway_helpers import PLATFORM, bearer, eventually, game_in_play, gateway, http, keys_file, token  # noqa: F401
from zioncheck.services.gateway.wire import (
    Clock,
    FeedUpdate,
    Pong,
    PublicMessage,
    PublicUpdate,
    SeatMessage,
    SeatUpdate,
)

public_message = msgspec.json.Decoder(PublicMessage)
seat_message = msgspec.json.Decoder(SeatMessage)


def ws_url(gateway, path: str) -> str:
    return gateway.url.replace("http://", "ws://") + path


async def frames(socket, decoder, until, timeout: float = 15.0, clock: bool = False) -> list:
    """Frames as they come, until `until(frames)` holds; the gateway's clock frames only when asked for."""
    got = []
    async with asyncio.timeout(timeout):
        while not until(got):
            frame = decoder.decode(await socket.recv())
            if clock or not isinstance(frame, Clock):
                got.append(frame)
    return got


async def closed_with(socket) -> tuple[int, str]:
    try:
        async with asyncio.timeout(10):
            while True:
                await socket.recv()
    except ConnectionClosed as closed:
        return closed.rcvd.code, closed.rcvd.reason


async def test_a_spectator_gets_the_public_view_then_every_view_and_feed_batch_of_a_game_as_it_moves(gateway, http):
    created = (await http.post("/games", json={"players": 3, "seats": ["greedy"] * 3, "pace": 0.02},
                               headers=PLATFORM)).json()
    async with connect(ws_url(gateway, f"/games/{created['game_id']}/public/ws")) as socket:
        got = await frames(socket, public_message, lambda got: sum(isinstance(f, FeedUpdate) for f in got) >= 12)
    views = [f.view for f in got if isinstance(f, PublicUpdate)]
    feed = [f.batch.seq for f in got if isinstance(f, FeedUpdate)]
    assert views and views[0].game_id == created["game_id"]
    assert [v.seq for v in views] == sorted(set(v.seq for v in views)), "views only ever move forward"
    assert feed == sorted(set(feed)), "each feed batch once, in order"
    assert max(feed) > 2 and any(v.hand == 1 and v.stock > 0 for v in views)


async def test_the_gateways_server_takes_each_spectators_frames_framed_once_for_all_of_them(gateway, http):
    created = (await http.post("/games", json={"players": 3, "seats": ["greedy"] * 3, "pace": 0.02},
                               headers=PLATFORM)).json()
    url = ws_url(gateway, f"/games/{created['game_id']}/public/ws")
    async with connect(url) as one, connect(url) as two:
        got = [await frames(socket, public_message, lambda got: sum(isinstance(f, FeedUpdate) for f in got) >= 8)
               for socket in (one, two)]
        hub = gateway.gateway.hubs.hubs[created["game_id"]]
        assert len(hub.spectators) == 2 and all(spectator.write is not None for spectator in hub.spectators)
    for frames_of_one in got:
        feed = [f.batch.seq for f in frames_of_one if isinstance(f, FeedUpdate)]
        assert feed == sorted(set(feed)), "each feed batch once, in order"


async def test_a_seat_stream_sends_that_seats_view_and_each_change_to_it(gateway, http, client):
    follower, seat0, _ = await game_in_play(client)
    async with connect(ws_url(gateway, f"/games/{follower.game}/view/ws?token={seat0}")) as socket:
        [first] = await frames(socket, seat_message, lambda got: got and got[-1].view.cards)
        assert isinstance(first, SeatUpdate) and first.view.seat == 0 and len(first.view.cards) == 4
        await http.post(f"/games/{follower.game}/commands", json={"type": "draw_stock"}, headers=bearer(seat0))
        got = await frames(socket, seat_message, lambda got: got and len(got[-1].view.cards) == 5)
        assert got[-1].view.cards[-1] == "5S"


async def test_a_seat_stream_refuses_every_token_that_does_not_act_for_the_game(gateway, client):
    follower, seat0, _ = await game_in_play(client)
    path = f"/games/{follower.game}/view/ws"
    cases = {"": 4401, "?token=": 4401, "?token=garbage": 4401, f"?token={token(follower.game, 0, ttl=-5)}": 4401,
             f"?token={token(follower.game, 0, secret=b'someone else entirely')}": 4401,
             f"?token={token('another-game', 0)}": 4403}
    for query, code in cases.items():
        async with connect(ws_url(gateway, path + query)) as socket:
            got, reason = await closed_with(socket)
            assert got == code and reason.startswith("token_"), (query, got, reason)
    async with connect(ws_url(gateway, "/games/no-such-game/public/ws")) as socket:
        assert (await closed_with(socket))[0] == 4404


async def test_garbage_and_oversized_frames_close_that_socket_with_a_reason_and_the_server_stays_up(
        gateway, http, client):
    follower, _, _ = await game_in_play(client)
    await eventually(lambda: http.get(f"/games/{follower.game}/public"), lambda r: r.status_code == 200)
    path = ws_url(gateway, f"/games/{follower.game}/public/ws")
    async with connect(path) as socket:
        await socket.send('{"type": "ping"}')
        got = await frames(socket, public_message, lambda got: any(isinstance(f, Pong) for f in got[:-1]),
                           clock=True)
        assert isinstance(got[0], Clock) and isinstance(got[1], PublicUpdate)
        assert isinstance(got[-2], Pong) and isinstance(got[-1], Clock)   # each pong, the clock again
        assert abs(got[-1].now - time.time()) < 5
    for frame, code in (("hello", 1008), ('{"type": "draw_stock"}', 1008), (b"\x00\x01\x02", 1003),
                        ("x" * 4000, 1009), ("y" * 200_000, 1009)):
        async with connect(path, max_size=None) as socket:
            await socket.send(frame)
            closed, reason = await closed_with(socket)
            assert closed == code and (reason or code == 1009), (frame[:10], closed, reason)
    assert (await http.get("/games")).status_code == 200
    async with connect(path) as socket:
        assert isinstance((await frames(socket, public_message, lambda got: got))[0], PublicUpdate)
