"""The gateway's keys and limits against a real uvicorn server and real services: who may open games, how
fast a key or a seat may go, how many games a key may hold, and bodies too large or too deep to read."""
import asyncio

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from gateway_helpers import (  # noqa: F401
    GOING_OUT,
    KEY,
    LAST_HANDS,
    LAST_STOCK,
    PLATFORM,
    bearer,
    eventually,
    game_in_play,
    gateway,
    http,
    keys_file,
    limited,
    token,
)
from over_nats import stacked_game, stored_commands
from zioncheck.contracts.log import tag_of
from zioncheck.services.bus.log_store import stored_games

BOT_GAME = {"players": 2, "seats": ["greedy", "greedy"], "pace": 1}
PERSON_GAME = {"players": 2, "seats": ["person", "greedy"], "pace": 0}
DEEP = b"[" * 30_000 + b"]" * 30_000


def refused(response, status: int, error: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == error and body["detail"], body
    return body


def retry_after(response) -> int:
    seconds = int(response.headers["retry-after"])
    assert seconds >= 1
    return seconds


async def games_stored(client) -> set[str]:
    return set(await stored_games(client.js))


async def test_opening_a_game_takes_a_platform_key_and_a_refused_one_opens_nothing(http, client):
    missing = refused(await http.post("/games", json=BOT_GAME), 401, "platform_key_missing")
    assert "X-Platform-Key" in missing["detail"]
    refused(await http.post("/games", json=BOT_GAME, headers={"X-Platform-Key": "not-a-key-this-gateway-knows"}),
            401, "platform_key_unknown")
    refused(await http.post("/games", json=BOT_GAME, headers={"X-Platform-Key": KEY[:-1]}), 401, "platform_key_unknown")
    refused(await http.post("/games", json=BOT_GAME, headers=bearer(KEY)), 401, "platform_key_missing")
    assert await games_stored(client) == set(), "no refused request opened a game"
    created = await http.post("/games", json=BOT_GAME, headers=PLATFORM)
    assert created.status_code == 201, created.text
    assert await games_stored(client) == {created.json()["game_id"]}


async def test_a_burst_over_the_keys_new_game_limit_is_429_with_retry_after_and_opens_nothing(nats_server, services,
                                                                                              keys_file, client):
    async with limited(nats_server, keys_file, games_per_minute=2) as (_, http):
        first = [await http.post("/games", json=BOT_GAME, headers=PLATFORM) for _ in range(2)]
        assert [r.status_code for r in first] == [201, 201]
        over = await http.post("/games", json=BOT_GAME, headers=PLATFORM)
        refused(over, 429, "too_many_new_games")
        assert 1 <= retry_after(over) <= 30, "one new game every 30 s"
        assert await games_stored(client) == {r.json()["game_id"] for r in first}


async def test_a_key_over_its_request_rate_is_429_whatever_it_asks(nats_server, services, keys_file):
    async with limited(nats_server, keys_file, requests_per_second=1) as (_, http):
        answers = [await http.post("/games", content=b"{not json", headers=PLATFORM) for _ in range(3)]
        assert [r.status_code for r in answers] == [400, 400, 429], "a burst of two, then one a second"
        refused(answers[2], 429, "too_many_requests")
        assert retry_after(answers[2]) == 1


async def test_a_seat_flooding_commands_gets_429_and_the_log_holds_only_the_commands_let_through(
        nats_server, services, keys_file, client):
    async with limited(nats_server, keys_file, commands_per_second=0.1, command_burst=3) as (_, http):
        follower, seat0, seat1 = await game_in_play(client)
        game = follower.game
        commands_before, batches_before = len(await stored_commands(client, game)), len(follower.batches)
        flood = await asyncio.gather(*(http.post(f"/games/{game}/commands", json={"type": "draw_stock"},
                                                 headers=bearer(seat1)) for _ in range(8)))
        statuses = sorted(r.status_code for r in flood)
        assert statuses == [200] * 3 + [429] * 5, statuses
        for response in flood:
            if response.status_code == 429:
                refused(response, 429, "too_many_commands")
                assert retry_after(response) >= 5
            else:
                assert response.json()["reason"] == "not_your_turn"
        drawn = await http.post(f"/games/{game}/commands", json={"type": "draw_stock"}, headers=bearer(seat0))
        assert drawn.json()["accepted"], "another seat of the game has its own limit"
        assert len(await stored_commands(client, game)) == commands_before + 4
        await follower.wait_until(lambda f: len(f.batches) == batches_before + 4, 5)
        await asyncio.sleep(0.3)
        assert len(follower.batches) == batches_before + 4, "only the commands let through are in the log"


async def test_a_key_holds_a_capped_number_of_open_games_and_an_idle_one_frees_its_place(nats_server, services,
                                                                                         keys_file, client):
    other_key = "another-platforms-key-here"
    keys_file.write_text(keys_file.read_text() + f"other:{other_key}\n")
    async with limited(nats_server, keys_file, open_games=2, idle_minutes=1.5 / 60) as (running, http):
        opened = [await http.post("/games", json=PERSON_GAME, headers=PLATFORM) for _ in range(2)]
        assert [r.status_code for r in opened] == [201, 201]
        full = refused(await http.post("/games", json=PERSON_GAME, headers=PLATFORM), 409, "too_many_open_games")
        assert "2 games" in full["detail"]
        assert len(await games_stored(client)) == 2, "the refused game was not opened"
        other = await http.post("/games", json=PERSON_GAME, headers={"X-Platform-Key": other_key})
        assert other.status_code == 201, "the cap is per key"
        # No one moves for the person at seat 0: after 1.5 s the games count as dropped, and are let go.
        await eventually(lambda: http.post("/games", json=PERSON_GAME, headers=PLATFORM),
                         lambda r: r.status_code == 201, timeout=10)
        await eventually(lambda: asyncio.sleep(0.1, running.gateway.games.held), lambda held: not held, timeout=10)


async def test_the_gateway_lets_go_of_a_game_once_it_is_over(http, gateway, client):
    follower = await stacked_game(client, 2, LAST_HANDS, LAST_STOCK, hand=6)
    game = follower.game
    for move in GOING_OUT:
        response = await http.post(f"/games/{game}/commands", json={"type": tag_of(move),
                                                                     **_fields(move)}, headers=bearer(token(game, 0)))
        assert response.json()["accepted"], response.text
        if move is not GOING_OUT[-1]:
            assert game in gateway.gateway.games.held
    await follower.wait_until(lambda f: f.state.game_over, 5)
    assert gateway.gateway.games.held == {}, "nothing of a finished game is kept"


def _fields(move) -> dict:
    return {name: getattr(move, name) for name in move.__struct_fields__}


async def test_json_nested_30000_deep_is_422_on_every_route_that_reads_json_and_nothing_is_logged(http, client):
    follower, seat0, _ = await game_in_play(client)
    game = follower.game
    before = len(await stored_commands(client, game))
    refused(await http.post("/games", content=DEEP, headers=PLATFORM), 422, "too_deeply_nested")
    refused(await http.post(f"/games/{game}/commands", content=DEEP, headers=bearer(seat0)), 422,
            "too_deeply_nested")
    deep_object = b'{"type": "discard", "card": ' + b'{"a":' * 10_000 + b"1" + b"}" * 10_001
    refused(await http.post(f"/games/{game}/commands", content=deep_object, headers=bearer(seat0)), 422,
            "too_deeply_nested")
    refused(await http.post(f"/games/{game}/chat", content=DEEP, headers=bearer(seat0)), 422, "too_deeply_nested")
    assert len(await stored_commands(client, game)) == before
    assert await games_stored(client) == {game}


async def test_a_deep_websocket_frame_closes_that_socket_and_the_gateway_stays_up(gateway, http, client):
    follower, _, _ = await game_in_play(client)
    url = gateway.url.replace("http://", "ws://") + f"/games/{follower.game}/public/ws"
    async with connect(url) as socket:
        await socket.send('{"x":' + "[" * 1010)   # within the 1 KiB a frame may hold
        try:
            async with asyncio.timeout(10):
                while True:
                    await socket.recv()
        except ConnectionClosed as closed:
            assert closed.rcvd.code == 1008 and closed.rcvd.reason
    assert (await http.get(f"/games/{follower.game}/public")).status_code in (200, 503)


async def test_a_body_over_64_kib_is_413_on_every_route_that_reads_json(http, client):
    follower, seat0, _ = await game_in_play(client)
    big = b"[" + b"1," * 40_000 + b"1]"
    refused(await http.post("/games", content=big, headers=PLATFORM), 413, "body_too_large")
    refused(await http.post(f"/games/{follower.game}/commands", content=big, headers=bearer(seat0)), 413,
            "body_too_large")
    refused(await http.post(f"/games/{follower.game}/chat", content=big, headers=bearer(seat0)), 413,
            "body_too_large")
