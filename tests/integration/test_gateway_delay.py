"""A game watched before an audience: its start sets a spectator delay (`delay_seconds`), and the gateway shows it to
its spectators that many seconds after each move was made, over the public WebSocket and over HTTP, its chat too,
while its seats and its tenant see it live. A real gateway, real services, a game of bots and one person's seat."""
import asyncio
import time

import msgspec
from websockets.asyncio.client import connect

from gateway_helpers import GOING_OUT, LAST_HANDS, LAST_STOCK, PLATFORM, bearer, gateway, http, keys_file  # noqa: F401
from over_nats import new_game, stored_messages
from zioncheck.contracts.commands import Deal, StartGame
from zioncheck.domain.dealing import first_dealer_of
from zioncheck.services.bus.topology import layout
from zioncheck.services.gateway.wire import ChatUpdate, Clock, FeedUpdate, PublicMessage, PublicUpdate

DELAY = 3
public_message = msgspec.json.Decoder(PublicMessage)


def ws_url(gateway, path: str) -> str:
    return gateway.url.replace("http://", "ws://") + path


async def delayed_game(http) -> tuple[str, str]:
    """A game of two bots and a person (seat 2, who never moves: a bot plays each of their turns after 5 s) whose
    spectators watch it DELAY seconds behind; its id and the person's token."""
    created = await http.post("/games", headers=PLATFORM, json={
        "players": 3, "seats": ["greedy", "greedy", "person"], "pace": 0.25, "turn_seconds": 5,
        "claim_seconds": 0, "delay_seconds": DELAY})
    assert created.status_code == 201, created.text
    body = created.json()
    return body["game_id"], body["seats"][2]["token"]


async def heard(socket, until: float) -> list[tuple[float, object]]:
    """Every frame the socket gets until the gateway's clock passes `until`, each with when it came."""
    got = []
    try:
        async with asyncio.timeout(until - time.time()):
            while True:
                frame = public_message.decode(await socket.recv())
                got.append((time.time(), frame))
    except TimeoutError:
        pass
    return got


async def made(client, game: str) -> dict[int, float]:
    """When the server stored each batch of the game's log, by its number in the game (a feed batch's and a view's
    `seq`)."""
    where = await layout(client.js)
    stored = await stored_messages(client, where.log_stream(game), where.log_subject(game))
    return {n: message.time.timestamp() for n, message in enumerate(stored, 1)}


async def test_a_spectator_of_a_delayed_game_gets_each_batch_and_chat_line_no_sooner_than_the_delay_and_a_seat_live(
        gateway, http, client):
    game, person = await delayed_game(http)
    path = f"/games/{game}/public/ws"
    opened = time.time()
    async with connect(ws_url(gateway, path)) as watcher, \
            connect(ws_url(gateway, f"{path}?token={person}")) as seat:
        await asyncio.sleep(0.5)
        said = await http.post(f"/games/{game}/chat", json={"text": "good luck"}, headers=bearer(person))
        assert said.status_code == 200, said.text
        end = time.time() + DELAY + 3
        watched, seen = await asyncio.gather(heard(watcher, end), heard(seat, end))
    stored = await made(client, game)

    clock = watched[0][1]
    assert isinstance(clock, Clock) and clock.behind == DELAY
    assert opened - DELAY <= clock.now <= watched[0][0] - DELAY, "its clock runs as far behind as its table"
    assert isinstance(seen[0][1], Clock) and seen[0][1].behind == 0

    def arrivals(frames, kind) -> dict[int, float]:
        return {(f.batch.seq if kind is FeedUpdate else f.view.seq): at for at, f in frames if isinstance(f, kind)}
    for kind in (FeedUpdate, PublicUpdate):
        late, live = arrivals(watched, kind), arrivals(seen, kind)
        assert len(late) >= 3, f"the spectator got {len(late)} {kind.__name__} frames"
        early = {seq: round(at - stored[seq], 3) for seq, at in late.items() if at < stored[seq] + DELAY}
        assert early == {}, f"{kind.__name__} frames that came sooner than {DELAY} s after their batch was made"
        since = [seq for seq in late if seq in live and stored[seq] > opened + 0.5]   # made once both were watching
        assert since, f"no {kind.__name__} made while both watched"
        assert all(live[seq] < stored[seq] + 1 for seq in since), "the seat's stream is live"
        assert all(late[seq] - live[seq] >= DELAY - 0.5 for seq in since), "the spectator's runs the delay behind"

    [(watcher_got, line)] = [(at, f.line) for at, f in watched if isinstance(f, ChatUpdate)]
    [(seat_got, _)] = [(at, f.line) for at, f in seen if isinstance(f, ChatUpdate)]
    assert watcher_got >= line.at + DELAY, "the chat keeps pace with the delayed table"
    assert seat_got < line.at + 1


async def test_over_http_a_delayed_games_spectator_reads_the_feed_as_it_was_the_delay_ago_and_its_tenant_reads_it_live(
        gateway, http, client):
    game, person = await delayed_game(http)
    async with asyncio.timeout(30):   # until some of its moves are older than the delay, and one is just made
        while not ((stored := await made(client, game)) and min(stored.values()) < time.time() - DELAY
                   and max(stored.values()) > time.time() - 0.5):
            await asyncio.sleep(0.1)
    asked = time.time()
    spectator = (await http.get(f"/games/{game}/feed")).json()
    newest = max(stored)
    async with asyncio.timeout(5):   # the projector writes the feed a moment after the log: read until it has it
        while True:
            tenant = (await http.get(f"/games/{game}/feed", headers=PLATFORM)).json()
            seat = (await http.get(f"/games/{game}/feed", headers=bearer(person))).json()
            if all(max(batch["seq"] for batch in live["batches"]) >= newest for live in (tenant, seat)):
                break
            await asyncio.sleep(0.05)
    stored = await made(client, game)
    shown = [batch["seq"] for batch in spectator["batches"]]
    assert shown, "the moves made the delay ago are there"
    assert all(stored[seq] <= asked - DELAY for seq in shown), "and none newer"
    assert not spectator["more"], "the rest comes on the public WebSocket in its time"
    for live in (tenant, seat):
        assert max(batch["seq"] for batch in live["batches"]) > max(shown)
        assert any(stored[batch["seq"]] > asked - DELAY for batch in live["batches"])

    view = await http.get(f"/games/{game}/public")   # the view stored the delay ago or before, if any
    if view.status_code == 200:
        assert stored.get(view.json()["seq"], 0) <= asked - DELAY, "no view newer than the delay"
    else:
        assert view.status_code == 503 and view.json()["error"] == "no_view_yet", "every view is younger than that"
    assert (await http.get(f"/games/{game}/public", headers=PLATFORM)).status_code == 200
    assert (await http.get(f"/games/{game}/replay")).status_code == 409


async def test_a_start_with_a_delay_out_of_bounds_is_refused_before_anything_is_sent(gateway, http):
    for delay in (-1, 901):
        refused = await http.post("/games", headers=PLATFORM, json={"players": 2, "seats": ["greedy", "greedy"],
                                                                    "delay_seconds": delay})
        assert refused.status_code == 422 and refused.json()["error"] == "invalid_game", refused.text


async def test_a_delayed_games_end_reaches_its_spectators_and_then_its_replay_opens_to_them(gateway, http, client):
    game = new_game()
    follower = await client.follow(game)
    await follower.outcome(await client.send(game, StartGame(
        game_id=game, players=2, dealer=first_dealer_of(1, 6, 2), first_hand=6, stacked=True, public=True,
        delay_seconds=DELAY)))
    await follower.outcome(await client.send(game, Deal(hand=6, hands=LAST_HANDS, stock=LAST_STOCK), as_dealer=True))
    for move in GOING_OUT:   # seat 0 goes out at once: the game is over
        await follower.outcome(await client.send(game, move))
    assert follower.state.game_over
    ended = (await made(client, game))[len(follower.batches)]
    assert (await http.get(f"/games/{game}/replay")).status_code == 409, "not while its end is on its way to them"
    assert (await http.get(f"/games/{game}/log")).status_code == 409
    assert (await http.get(f"/games/{game}/replay", headers=PLATFORM)).status_code == 200, "its tenant sees it whole"
    async with connect(ws_url(gateway, f"/games/{game}/public/ws")) as watcher:
        async with asyncio.timeout(DELAY + 10):
            while not (isinstance(frame := public_message.decode(await watcher.recv()), PublicUpdate)
                       and frame.view.game_over):
                pass
        assert time.time() >= ended + DELAY, "the end reaches a spectator no sooner than the delay after it"
    replayed = await http.get(f"/games/{game}/replay")
    assert replayed.status_code == 200 and replayed.json()["view"]["game_over"]
