"""Lobbies over HTTP (a link per seat that admits that seat only, who has joined, the host's start) and streams
that resume from the last seq a client saw."""
import asyncio
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import connect

from gateway_helpers import (  # noqa: F401
    PLATFORM,
    SECRET,
    bearer,
    eventually,
    game_in_play,
    gateway,
    http,
    keys_file,
    limited,
)
from test_gateway_ws import closed_with, frames, public_message, seat_message, ws_url
from zioncheck.services.gateway import tokens
from zioncheck.services.gateway.server import Running
from zioncheck.services.gateway.wire import FeedUpdate, PublicUpdate

SEATS = {"players": 3, "seats": ["person", "greedy", "person"], "pace": 0.05}


def token_of(link: str) -> str:
    return urlsplit(link).fragment.removeprefix("token=")


def host_of(lobby: dict) -> str:
    return urlsplit(lobby["host"]).fragment.removeprefix("host=")


async def test_a_lobby_gives_a_link_per_person_seat_shows_who_joined_and_starts_when_its_host_says(http):
    opened = await http.post("/lobbies", json=SEATS, headers=PLATFORM)
    assert opened.status_code == 201, opened.text
    lobby = opened.json()
    game = lobby["game_id"]
    assert [s["link"] is not None for s in lobby["seats"]] == [True, False, True], "no link for a bot's seat"
    links = [s["link"] for s in lobby["seats"] if s["link"]]
    assert all(link.startswith(f"/play/{game}#token=") for link in links), "the token is past '#': never sent"
    assert (await http.get(f"/games/{game}/public")).status_code == 404, "nothing starts before the host says"
    host = host_of(lobby)
    assert {tokens.verify(SECRET, token_of(link), game).exp for link in links} == {lobby["expires"]}
    assert tokens.verify(SECRET, host, game, domain=tokens.HOST).exp == lobby["expires"]
    seen = (await http.get(f"/lobbies/{game}", headers=bearer(token_of(links[1])))).json()
    assert seen["you"] == 2 and all(s["link"] is None for s in seen["seats"]), "a seat sees no one's link"
    state = (await http.get(f"/lobbies/{game}", headers=bearer(host))).json()
    assert [s["joined"] for s in state["seats"]] == [False, False, True]
    started = await http.post(f"/lobbies/{game}/start", headers=bearer(host))
    assert started.status_code == 200 and started.json()["started"]
    assert (await http.get(f"/lobbies/{game}", headers=bearer(host))).json()["error"] == "no_such_lobby"
    view = await eventually(lambda: http.get(f"/games/{game}/view", headers=bearer(token_of(links[0]))),
                            lambda r: r.status_code == 200 and r.json()["cards"])
    assert view.json()["seat"] == 0 and len(view.json()["cards"]) >= 10


async def test_the_host_takes_a_free_persons_seat_but_never_one_whose_link_someone_opened(http):
    lobby = (await http.post("/lobbies", json=SEATS, headers=PLATFORM)).json()
    game, host = lobby["game_id"], host_of(lobby)
    await http.get(f"/lobbies/{game}", headers=bearer(token_of(lobby["seats"][2]["link"])))   # someone sits at 2
    taken = await http.post(f"/lobbies/{game}/seats/2/take", headers=bearer(host))
    assert (taken.status_code, taken.json()["error"]) == (409, "seat_taken")
    mine = await http.post(f"/lobbies/{game}/seats/0/take", headers=bearer(host))
    assert mine.status_code == 200 and mine.json()["you"] == 0
    assert [s["joined"] for s in mine.json()["seats"]] == [True, False, True]
    assert (await http.post(f"/lobbies/{game}/seats/0/take", headers=bearer(host))).json()["error"] == "seat_taken"
    for seat in ("1", "3", "x"):   # a bot's, past the table, not a number
        wrong = await http.post(f"/lobbies/{game}/seats/{seat}/take", headers=bearer(host))
        assert (wrong.status_code, wrong.json()["error"]) == (422, "no_such_seat"), seat
    as_seat = await http.post(f"/lobbies/{game}/seats/0/take", headers=bearer(token_of(lobby["seats"][0]["link"])))
    assert (as_seat.status_code, as_seat.json()["error"]) == (401, "token_forged"), "a seat's link takes no seat"


async def test_a_seat_link_admits_its_seat_only_and_never_starts_or_shows_the_lobby_as_its_host(http):
    lobby = (await http.post("/lobbies", json=SEATS, headers=PLATFORM)).json()
    game, host = lobby["game_id"], host_of(lobby)
    seat0 = token_of(lobby["seats"][0]["link"])
    refused = await http.post(f"/lobbies/{game}/start", headers=bearer(seat0))
    assert (refused.status_code, refused.json()["error"]) == (401, "token_forged"), "a seat's token starts nothing"
    await http.post(f"/lobbies/{game}/start", headers=bearer(host))
    as_seat = await http.post(f"/games/{game}/commands", json={"type": "draw_stock", "seat": 0}, headers=bearer(host))
    assert (as_seat.status_code, as_seat.json()["error"]) == (401, "token_forged"), "a host token acts for no seat"
    other = await http.post(f"/games/{game}/commands", json={"type": "draw_stock", "seat": 2}, headers=bearer(seat0))
    assert (other.status_code, other.json()["error"]) == (403, "token_for_another_seat")
    elsewhere = (await http.post("/lobbies", json=SEATS, headers=PLATFORM)).json()
    foreign = await http.get(f"/lobbies/{elsewhere['game_id']}", headers=bearer(host))
    assert (foreign.status_code, foreign.json()["error"]) == (403, "token_for_another_game")


async def test_a_public_lobby_opens_games_without_a_key_and_a_private_one_asks_for_it(nats_server, services,
                                                                                     keys_file):
    for public in (True, False):
        running = await Running.start(nats_server.access, port=0, secret=SECRET, platform_keys=keys_file,
                                      public_lobby=public)
        try:
            async with httpx.AsyncClient(base_url=running.url, timeout=20) as http:
                keyless = await http.post("/lobbies", json=SEATS)
                assert keyless.status_code == (201 if public else 401), keyless.text
                if not public:
                    assert keyless.json()["error"] == "platform_key_missing"
                    assert (await http.post("/lobbies", json=SEATS, headers=PLATFORM)).status_code == 201
                games = await http.post("/games", json=SEATS)
                assert games.status_code == 401, "POST /games always takes a key"
        finally:
            await running.stop()


async def test_lobbies_count_toward_their_keys_open_games_and_are_let_go_by_starting(nats_server, services,
                                                                                    keys_file):
    async with limited(nats_server, keys_file, open_games=1) as (_, http):
        first = (await http.post("/lobbies", json=SEATS, headers=PLATFORM)).json()
        full = await http.post("/lobbies", json=SEATS, headers=PLATFORM)
        assert (full.status_code, full.json()["error"]) == (409, "too_many_open_games")
        started = await http.post(f"/lobbies/{first['game_id']}/start", headers=bearer(host_of(first)))
        assert started.status_code == 200
        again = await http.post("/lobbies", json=SEATS, headers=PLATFORM)
        assert again.status_code == 409, "its game holds the place"


async def test_a_spectator_resuming_from_the_last_seq_it_saw_gets_every_later_batch_once(gateway, http):
    created = (await http.post("/games", json={"players": 3, "seats": ["greedy"] * 3, "pace": 0.02},
                               headers=PLATFORM)).json()
    path = f"/games/{created['game_id']}/public/ws"
    async with connect(ws_url(gateway, path)) as socket:
        before = await frames(socket, public_message, lambda got: sum(isinstance(f, FeedUpdate) for f in got) >= 5)
    last = max(f.batch.seq for f in before if isinstance(f, FeedUpdate))
    await asyncio.sleep(0.5)   # the game moves on while this client is away
    async with connect(ws_url(gateway, f"{path}?after={last}")) as socket:
        after = await frames(socket, public_message,
                             lambda got: sum(isinstance(f, FeedUpdate) for f in got) >= 8)
    seqs = [f.batch.seq for f in after if isinstance(f, FeedUpdate)]
    assert seqs == list(range(last + 1, last + 1 + len(seqs))), "every batch after the last seen, once, in order"
    assert isinstance(after[0], PublicUpdate) and after[0].view.seq >= last, "the newest view first"


async def test_a_seat_resuming_gets_only_a_newer_view_and_a_bad_after_is_refused(gateway, http, client):
    follower, seat0, _ = await game_in_play(client)
    url = f"/games/{follower.game}/view/ws?token={seat0}"
    async with connect(ws_url(gateway, url)) as socket:
        [first] = await frames(socket, seat_message, lambda got: got)
    async with connect(ws_url(gateway, f"{url}&after={first.view.seq}")) as socket:
        await http.post(f"/games/{follower.game}/commands", json={"type": "draw_stock"}, headers=bearer(seat0))
        [next_view] = await frames(socket, seat_message, lambda got: got)
        assert next_view.view.seq > first.view.seq and len(next_view.view.cards) == 5
    async with connect(ws_url(gateway, f"{url}&after=soon")) as socket:
        code, reason = await closed_with(socket)
    assert code == 4400 and "whole number" in reason
