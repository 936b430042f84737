"""Public is opt-in: the gateway lists and shows to anyone only the games their start made public (its own lobby's
and `POST /games`' by default); a platform's game started over NATS is its own unless its start says otherwise, and
to anyone without its tenant's key or one of its seat tokens it is no game at all."""
import pytest
from websockets.asyncio.client import connect

from gateway_helpers import KEY, PLATFORM, bearer, eventually, gateway, http, token  # noqa: F401
from over_nats import new_game
from test_gateway_lobby import host_of
from test_gateway_ws import closed_with, frames, public_message, ws_url
from zioncheck.client import GameClient
from zioncheck.contracts.commands import StartGame
from zioncheck.services.gateway.keys import HEADER
from zioncheck.services.gateway.wire import PublicUpdate

pytestmark = pytest.mark.integration
ACME = {HEADER: "acme-platform-key-for-the-tests"}   # a key of another tenant, acme


@pytest.fixture
def keys_file(tmp_path):
    path = tmp_path / "platform-keys"
    path.write_text(f"tests:{KEY}\nacme@acme:{ACME[HEADER]}\n")
    return path


async def started_by_the_platform(nats_server, **public) -> list[str]:
    """Two-seat games a platform starts over NATS through the intake, as docs/integration.md shows: one with `public`
    as given (nothing, or public=True), and the same again; the ids."""
    platform = await GameClient.connect(nats_server.access, "platform")
    try:
        games = [new_game(), new_game()]
        for game in games:
            await platform.send(game, StartGame(game_id=game, players=2, **public))
        return games
    finally:
        await platform.close()


async def listed(http, headers=None) -> dict[str, dict]:
    response = await http.get("/games", headers=headers)
    assert response.status_code == 200, response.text
    return {line["game_id"]: line for line in response.json()}


async def test_a_platforms_game_started_without_public_is_neither_listed_nor_shown_to_anyone_without_its_key(
        nats_server, http, gateway):
    private, also_private = await started_by_the_platform(nats_server)
    public, _ = await started_by_the_platform(nats_server, public=True)
    # A game is listed once the projector has written its view: wait for all three, then look without a key.
    await eventually(lambda: listed(http), lambda games: public in games)
    await eventually(lambda: listed(http, PLATFORM), lambda games: {private, also_private} <= set(games))
    keyless = await listed(http)
    assert private not in keyless and also_private not in keyless, "a private game is not listed to anyone"
    assert keyless[public]["public"]

    never = (await http.get("/games/never-stored/public")).json()
    for path in ("public", "feed", "log", "replay"):
        hidden = await http.get(f"/games/{private}/{path}")
        assert hidden.status_code == 404 and hidden.json()["error"] == never["error"] == "no_such_game", \
            f"{path}: a private game answers as a game never stored"
        assert hidden.json()["detail"] == never["detail"].replace("never-stored", private)
    async with connect(ws_url(gateway, f"/games/{private}/public/ws")) as socket:
        assert (await closed_with(socket))[0] == 4404
    assert (await http.get(f"/games/{public}/public")).json()["game_id"] == public
    assert (await http.get(f"/games/{public}/log")).status_code == 409, "a public game in play is there, in play"

    assert (await listed(http, PLATFORM))[private]["public"] is False, "its tenant's key lists it, marked private"
    shown = await http.get(f"/games/{private}/public", headers=PLATFORM)
    assert shown.status_code == 200 and shown.json()["game_id"] == private and shown.json()["public"] is False
    assert (await http.get(f"/games/{private}/feed", headers=PLATFORM)).json()["batches"]
    assert (await http.get(f"/games/{private}/public", headers=ACME)).status_code == 404, \
        "another tenant's key sees no more than anyone"
    assert private not in await listed(http, ACME)
    assert (await http.get(f"/games/{private}/public", headers={HEADER: "no-such-key-at-this-gateway"})).status_code \
        == 401


async def test_a_seats_token_shows_its_private_game_and_its_stream(nats_server, http, gateway):
    private, other = await started_by_the_platform(nats_server)
    shown = await eventually(lambda: http.get(f"/games/{private}/public", headers=bearer(token(private, 1))),
                             lambda r: r.status_code == 200)
    assert shown.json()["game_id"] == private
    refused = await http.get(f"/games/{private}/public", headers=bearer(token(other, 1)))
    assert refused.status_code == 404, "a token of another game shows nothing of this one"
    async with connect(ws_url(gateway, f"/games/{private}/public/ws?token={token(private, 0)}")) as socket:
        got = await frames(socket, public_message, lambda got: any(isinstance(f, PublicUpdate) for f in got))
    assert got[0].view.game_id == private


async def test_the_lobbys_game_and_a_keyed_new_game_are_public_unless_the_request_says_private(http, gateway):
    opened = (await http.post("/lobbies", json={"players": 2, "seats": ["person", "greedy"]})).json()   # keyless
    started = await http.post(f"/lobbies/{opened['game_id']}/start", headers=bearer(host_of(opened)))
    assert started.status_code == 200, started.text
    keyed = (await http.post("/games", json={"players": 2, "seats": ["greedy", "greedy"], "pace": 0},
                             headers=PLATFORM)).json()
    kept = (await http.post("/games", json={"players": 2, "seats": ["person", "greedy"], "public": False},
                            headers=PLATFORM)).json()
    games = await eventually(lambda: listed(http, PLATFORM), lambda games: {opened["game_id"], keyed["game_id"],
                                                                            kept["game_id"]} <= set(games))
    assert games[kept["game_id"]]["public"] is False
    keyless = await listed(http)
    assert opened["game_id"] in keyless and keyed["game_id"] in keyless, "the lobby's and POST /games' are public"
    assert kept["game_id"] not in keyless
    watched = await http.get(f"/games/{opened['game_id']}/public")
    assert watched.status_code == 200 and watched.json()["public"]
    assert (await http.get(f"/games/{kept['game_id']}/public")).status_code == 404
    seat = kept["seats"][0]["token"]
    assert (await http.get(f"/games/{kept['game_id']}/public", headers=bearer(seat))).status_code == 200
