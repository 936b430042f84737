"""The gateway over HTTP against a real uvicorn server and real services: games, commands, tokens, bad input."""
import asyncio
import json
import os
import stat
import sys
from pathlib import Path

import httpx
import msgspec
import pytest

from gateway_helpers import (  # noqa: F401
    HANDS,
    PLATFORM,
    bearer,
    eventually,
    finished_game,
    game_in_play,
    gateway,
    http,
    keys_file,
    limited,
    token,
)
from zioncheck.contracts.log import read_jsonl, tag_of
from zioncheck.contracts.views import decode_public_view, decode_seat_view
from zioncheck.domain.dealing import MAX_PLAYERS, MIN_PLAYERS
from zioncheck.services.bus.embedded import free_port
from zioncheck.services.bus.log_store import stored_games
from zioncheck.services.gateway.wire import GameCreated, Outcome, ReplayStep

COMMITTED_OPENAPI = Path(__file__).parents[2] / "docs" / "openapi.json"


async def logged(client, game: str) -> int:
    """How many batches the game's log holds."""
    return (await stored_games(client.js)).get(game, 0)


async def chunks(chunk: bytes, count: int):
    """A body sent chunked, with no Content-Length: the gateway counts it as it comes."""
    for _ in range(count):
        yield chunk


def refused(response, status: int, error: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == error and body["detail"], body
    return body


async def test_a_new_game_gives_each_person_seat_a_token_and_bots_play_the_other_seats(http):
    response = await http.post("/games", json={"players": 3, "seats": ["person", "greedy", "random"], "pace": 0},
                               headers=PLATFORM)
    assert response.status_code == 201, response.text
    created = msgspec.json.decode(response.content, type=GameCreated)
    assert [s.player for s in created.seats] == ["person", "greedy", "random"]
    assert created.seats[0].token and created.seats[1].token is None and created.seats[2].token is None
    assert created.seats[0].link == f"/play/{created.game_id}#token={created.seats[0].token}"
    assert created.seats[1].link is None, "a bot's seat has no page"
    assert response.headers["location"] == f"/games/{created.game_id}/public"
    view = await eventually(lambda: http.get(f"/games/{created.game_id}/view", headers=bearer(created.seats[0].token)),
                            lambda r: r.status_code == 200 and decode_seat_view(r.content).cards)
    seat = decode_seat_view(view.content)
    assert seat.seat == 0 and len(seat.cards) == seat.public.hand_sizes[0]
    public = (await http.get(f"/games/{created.game_id}/public")).json()
    assert "cards" not in public and public["players"] == 3


async def test_r24_a_new_game_names_its_rules_and_its_views_show_the_games_contracts(http):
    body = {"players": 3, "seats": ["greedy"] * 3, "pace": 0, "rules": {"preset": "liverpool"}}
    response = await http.post("/games", json=body, headers=PLATFORM)
    assert response.status_code == 201, response.text
    game = response.json()["game_id"]
    public = (await eventually(lambda: http.get(f"/games/{game}/public"),
                               lambda r: r.status_code == 200 and r.json()["hand"] >= 1)).json()
    assert (public["game"], public["hands"], len(public["contracts"])) == ("liverpool", 7, 7)
    assert public["contracts"][6] == {"sets": 0, "runs": 3, "dealt": 12, "text": "3 runs, every card", "whole": True}
    refused(await http.post("/games", json={**body, "rules": {"preset": "canasta"}}, headers=PLATFORM), 422,
            "invalid_game")


async def test_a_game_the_rules_or_the_route_refuse_is_not_opened(http):
    def create(**body):
        return http.post("/games", headers=PLATFORM, **body)
    refused(await create(json={"players": 3, "seats": ["person", "greedy"]}), 422, "invalid_game")
    refused(await create(json={"players": 2, "seats": ["person", "clever"]}), 422, "invalid_game")
    refused(await create(json={"players": 2, "seats": ["greedy"] * 2, "dealer": 5}), 422, "start_refused")
    refused(await create(content=b"{players: 2"), 400, "malformed_json")
    refused(await create(json={"players": 2, "seats": ["greedy"] * 2, "pace": 1e9}), 422, "invalid_game")
    assert (await http.get("/games")).json() == []


@pytest.mark.parametrize("players", [MIN_PLAYERS - 1, MAX_PLAYERS + 1])
async def test_r1_a_seat_count_the_rules_refuse_is_422_at_once_with_the_range(
        nats_server, services, keys_file, players):
    async with limited(nats_server, keys_file, games_per_minute=1) as (_, http):
        body = {"players": players, "seats": ["greedy"] * players}
        problem = refused(await http.post("/games", json=body, headers=PLATFORM), 422, "invalid_game")
        assert problem["detail"] == f"a game seats {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"
        good = {"players": 2, "seats": ["greedy"] * 2}
        assert (await http.post("/games", json=good, headers=PLATFORM)).status_code == 201, \
            "the refused request opened nothing and used none of the key's new games"


async def test_r18_a_seats_command_gets_its_outcome_accepted_or_refused_and_the_seat_comes_from_the_token(http, client):
    follower, seat0, seat1 = await game_in_play(client)
    game = follower.game
    early = await http.post(f"/games/{game}/commands", json={"type": "draw_stock"}, headers=bearer(seat1))
    assert early.status_code == 200
    assert msgspec.json.decode(early.content, type=Outcome) == Outcome(
        game_id=game, seq=early.json()["seq"], accepted=False, reason="not_your_turn",
        detail="it is seat 0's turn, not seat 1's", said="not your turn: it is seat 0's turn, not seat 1's")
    asked = await http.post(f"/games/{game}/commands", json={"type": "draw_stock"},   # said as the reader asks
                            headers=bearer(seat1) | {"Accept-Language": "de-DE, es;q=0.9, en;q=0.5"})
    assert asked.json()["said"] == "no es tu turno: es el turno del asiento 0, no del asiento 1"
    assert asked.json()["detail"] == early.json()["detail"], "the table's own detail stays as the log has it"
    drawn = (await http.post(f"/games/{game}/commands", json={"type": "draw_stock", "seat": 0},
                             headers=bearer(seat0))).json()
    assert drawn["accepted"] and drawn["drew"] == "5S"
    assert drawn["events"] == [{"type": "stock_drawn", "seat": 0, "v": 1}], "the card is the seat's alone"
    discarded = (await http.post(f"/games/{game}/commands", json={"type": "discard", "card": "kc"},
                                 headers=bearer(seat0))).json()
    assert discarded["accepted"] and discarded["events"] == [{"type": "discarded", "seat": 0, "card": "KC", "v": 1}]
    assert follower.state.hands[0] == ("AS", "2S", "9D", "5S")


async def test_a_token_acts_only_for_its_seat_of_its_game_and_every_refusal_says_why(http, client):
    follower, seat0, _ = await game_in_play(client)
    another, _, _ = await game_in_play(client)
    game, other = follower.game, another.game
    url, draw = f"/games/{game}/commands", {"type": "draw_stock"}
    before = await logged(client, game)
    missing = await http.post(url, json=draw)
    refused(missing, 401, "token_missing")
    assert missing.headers["www-authenticate"].startswith("Bearer")
    refused(await http.post(url, json=draw, headers={"Authorization": f"Basic {seat0}"}), 401, "token_missing")
    refused(await http.post(url, json=draw, headers=bearer("not-a-token")), 401, "token_garbled")
    refused(await http.post(url, json=draw, headers=bearer(token(game, 0, secret=b"another gateway's secret"))),
            401, "token_forged")
    claims, signature = seat0.split(".")
    seat1_claims = token(game, 1).split(".")[0]
    refused(await http.post(url, json=draw, headers=bearer(f"{seat1_claims}.{signature}")), 401, "token_forged")
    refused(await http.post(url, json=draw, headers=bearer(token(game, 0, ttl=-1))), 401, "token_expired")
    refused(await http.post(f"/games/{other}/commands", json=draw, headers=bearer(seat0)), 403,
            "token_for_another_game")
    refused(await http.post(url, json={"type": "draw_stock", "seat": 1}, headers=bearer(seat0)), 403,
            "token_for_another_seat")
    refused(await http.get(f"/games/{game}/view", headers=bearer(token(other, 1))), 403, "token_for_another_game")
    refused(await http.get(f"/games/{game}/view"), 401, "token_missing")
    assert await logged(client, game) == before, "nothing refused here reaches the log"


async def test_bad_bodies_and_unknown_games_are_refused_before_the_table_and_nothing_is_logged(http, client):
    follower, seat0, _ = await game_in_play(client)
    game = follower.game
    url, auth = f"/games/{game}/commands", bearer(seat0)
    before = await logged(client, game)
    refused(await http.post(url, content=b"x" * (70 * 1024), headers=auth), 413, "body_too_large")
    refused(await http.post("/games", content=b"[" * (70 * 1024), headers=PLATFORM), 413, "body_too_large")
    refused(await http.post(url, content=chunks(b"y" * 40_000, 2), headers=auth), 413, "body_too_large")
    refused(await http.post(url, content=b'{"type": "discard", "card": ', headers=auth), 400, "malformed_json")
    refused(await http.post(url, content=b"\xff\xfe garbage", headers=auth), 400, "malformed_json")
    refused(await http.post(url, json=[1, 2], headers=auth), 422, "unknown_command")
    refused(await http.post(url, json={"seat": 0}, headers=auth), 422, "unknown_command")
    refused(await http.post(url, json={"type": "shuffle_the_deck"}, headers=auth), 422, "unknown_command")
    refused(await http.post(url, json={"type": "deal", "hand": 2, "hands": [], "stock": []}, headers=auth), 422,
            "unknown_command")
    refused(await http.post(url, json={"type": "discard"}, headers=auth), 422, "invalid_command")
    refused(await http.post(url, json={"type": "lay_off", "target": "x", "card": "5S"}, headers=auth), 422,
            "invalid_command")
    assert await logged(client, game) == before
    for path in ("/games/no-such-game/public", "/games/no-such-game/log", "/games/no-such-game/replay",
                 "/games/bad.id/public"):
        refused(await http.get(path), 404, "no_such_game")
    refused(await http.post("/games/no-such-game/commands", json={"type": "draw_stock"},
                            headers=bearer(token("no-such-game", 0))), 404, "no_such_game")
    refused(await http.get("/no/such/page"), 404, "not_found")
    refused(await http.delete("/games"), 405, "method_not_allowed")


async def test_a_finished_games_log_and_replay_are_served_and_a_game_in_play_keeps_its_cards(http, client):
    finished = await finished_game(client)
    playing, _, _ = await game_in_play(client)
    refused(await http.get(f"/games/{playing.game}/log"), 409, "game_in_play")
    refused(await http.get(f"/games/{playing.game}/replay"), 409, "game_in_play")
    response = await http.get(f"/games/{finished.game}/log")
    assert response.status_code == 200 and response.headers["content-type"] == "application/x-ndjson"
    entries = read_jsonl(response.text)
    assert [e.event for e in entries] == [e for b in finished.batches for e in b.events]
    final = msgspec.json.decode((await http.get(f"/games/{finished.game}/replay")).content, type=ReplayStep)
    assert final.steps == final.step == len(finished.batches) and final.view.game_over
    assert final.hands == {6: 2}, "the step that deals each hand: this game starts at hand 6"
    dealt = msgspec.json.decode((await http.get(f"/games/{finished.game}/replay?step=2")).content, type=ReplayStep)
    assert dealt.view.hand == 6 and dealt.view.hand_sizes == [14, 2] and tag_of(dealt.feed.items[0]) == "hand_dealt"
    assert "cards" not in json.dumps(msgspec.to_builtins(dealt.feed)), "a replay shows what the feed shows"
    refused(await http.get(f"/games/{finished.game}/replay?step=99"), 400, "bad_parameter")
    refused(await http.get(f"/games/{finished.game}/replay?step=-1"), 400, "bad_parameter")
    listed = await eventually(lambda: http.get("/games"),
                              lambda r: {g["game_id"] for g in r.json()} >= {finished.game, playing.game})
    summaries = {g["game_id"]: g for g in listed.json()}
    assert summaries[finished.game]["game_over"] and summaries[finished.game]["winners"] == [0]
    assert not summaries[playing.game]["game_over"] and summaries[playing.game]["turn"] == 0
    assert summaries[finished.game]["batches"] == len(finished.batches) == await logged(client, finished.game)


async def test_the_games_list_is_the_most_recently_changed_first_and_as_long_as_asked(http, client):
    older, seat0, _ = await game_in_play(client)
    newer, _, _ = await game_in_play(client)
    await eventually(lambda: http.get("/games"), lambda r: {g["game_id"] for g in r.json()} >= {older.game, newer.game})
    drawn = await http.post(f"/games/{older.game}/commands", json={"type": "draw_stock"}, headers=bearer(seat0))
    assert drawn.status_code == 200, drawn.text
    listed = await eventually(lambda: http.get("/games?limit=2"),
                              lambda r: [g["game_id"] for g in r.json()] == [older.game, newer.game])
    assert listed.json()[0]["updated"] >= listed.json()[1]["updated"]
    assert [g["game_id"] for g in (await http.get("/games?limit=1")).json()] == [older.game]
    for bad in ("0", "1001", "-1", "ten"):
        refused(await http.get(f"/games?limit={bad}"), 400, "bad_parameter")


async def test_the_public_view_is_the_projectors_and_names_no_card_in_a_hand(http, client):
    follower, _, _ = await game_in_play(client)
    response = await eventually(lambda: http.get(f"/games/{follower.game}/public"), lambda r: r.status_code == 200)
    view = decode_public_view(response.content)
    assert view.hand_sizes == [4, 4] and view.turn == 0
    assert not any(card in response.text for hand in HANDS for card in hand)


async def test_the_served_openapi_document_is_the_committed_one(http):
    response = await http.get("/openapi.json")
    assert response.status_code == 200
    assert response.json() == json.loads(COMMITTED_OPENAPI.read_text())


async def test_the_web_page_and_its_files_are_served(http):
    for path in ("/", "/watch/some-game", "/static/watch.js", "/static/table.js", "/static/style.css"):
        response = await http.get(path)
        assert response.status_code == 200 and response.content, path


async def test_zioncheck_serve_gateway_serves_on_the_port_asked_and_stops_on_sigterm(nats_server, tmp_path):
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "zioncheck.cli.main", "serve", "gateway", "--port", str(port), *nats_server.cli_args,
        "--log-level", "warning", stdout=asyncio.subprocess.PIPE, env=os.environ | {"ZIONCHECK_HOME": str(tmp_path)})
    try:
        async with asyncio.timeout(20):
            lines = [(await process.stdout.readline()).decode() for _ in range(3)]
        assert lines[1].startswith(f"gateway on http://127.0.0.1:{port}/")
        keys_file = tmp_path / "platform-keys"
        assert lines[2].startswith(f"made a new platform key in {keys_file}: "), lines[2]
        assert stat.S_IMODE(keys_file.stat().st_mode) == 0o600, "the keys file is its owner's alone"
        [line] = [line for line in keys_file.read_text().splitlines() if not line.startswith("#")]
        key = line.partition(":")[2]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            assert (await http.get("/games")).json() == []
            refused(await http.post("/games", json={"players": 2, "seats": ["greedy"]}), 401, "platform_key_missing")
            refused(await http.post("/games", json={"players": 2, "seats": ["greedy"]},
                                    headers={"X-Platform-Key": key}), 422, "invalid_game")  # past the key
        assert (tmp_path / "gateway.secret").exists(), "a secret made once, kept under the store"
    finally:
        process.terminate()
        assert await asyncio.wait_for(process.wait(), 20) == 0


async def test_zioncheck_serve_gateway_refuses_to_start_on_an_unusable_keys_file(nats_server, tmp_path):
    keys_file = tmp_path / "keys"
    keys_file.write_text("acme:too-short\n")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "zioncheck.cli.main", "serve", "gateway", "--port", str(free_port()),
        *nats_server.cli_args, "--platform-keys", str(keys_file), "--log-level", "warning",
        stderr=asyncio.subprocess.PIPE, env=os.environ | {"ZIONCHECK_HOME": str(tmp_path)})
    _, stderr = await asyncio.wait_for(process.communicate(), 20)
    assert process.returncode == 2
    assert stderr.decode() == f"zioncheck serve: {keys_file} line 1: a key needs at least 16 characters and no spaces\n"
