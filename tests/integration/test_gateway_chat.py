"""A game's chat through a real gateway and nats-server: a seat's line reaches every page of the game with the seat
the token names, is limited in length and rate, and is never stored; and a game's feed is read a page at a time."""
import msgspec
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
    token,
)
from over_nats import stored_feed
from test_gateway_limits import refused, retry_after
from test_gateway_ws import frames, ws_url
from zioncheck.contracts.log import encode
from zioncheck.services.bus.log_store import read_batches
from zioncheck.services.bus.topology import chat_subject, feed_subject
from zioncheck.services.gateway import tokens
from zioncheck.services.gateway.wire import ChatUpdate, FeedUpdate, PublicMessage, PublicUpdate

public_message = msgspec.json.Decoder(PublicMessage)


def said(frames_got) -> list[tuple[int, str]]:
    return [(f.line.seat, f.line.text) for f in frames_got if isinstance(f, ChatUpdate)]


async def test_a_seats_line_reaches_every_page_of_the_game_named_by_its_token_not_its_body(gateway, http, client):
    follower, seat0, seat1 = await game_in_play(client)
    game = follower.game
    async with connect(ws_url(gateway, f"/games/{game}/public/ws")) as watcher:
        await frames(watcher, public_message, lambda got: any(isinstance(f, PublicUpdate) for f in got))
        answer = await http.post(f"/games/{game}/chat", json={"text": "  good\n\tluck  "}, headers=bearer(seat1))
        assert answer.status_code == 200, answer.text
        assert (answer.json()["seat"], answer.json()["text"]) == (1, "good luck")
        got = await frames(watcher, public_message, lambda got: said(got))
        assert said(got) == [(1, "good luck")]
    async with connect(ws_url(gateway, f"/games/{game}/public/ws")) as newcomer:   # the last lines, kept
        got = await frames(newcomer, public_message, lambda got: said(got))
        assert said(got) == [(1, "good luck")]
    refused(await http.post(f"/games/{game}/chat", json={"text": "hi", "seat": 0}, headers=bearer(seat1)), 422,
            "invalid_chat")


async def test_a_line_is_plain_text_of_at_most_200_characters_and_an_empty_one_is_refused(gateway, http, client):
    follower, seat0, _ = await game_in_play(client)
    chat = f"/games/{follower.game}/chat"
    markup = "<img src=x onerror=alert(1)>"
    assert (await http.post(chat, json={"text": markup}, headers=bearer(seat0))).json()["text"] == markup
    assert (await http.post(chat, json={"text": "é" * 200}, headers=bearer(seat0))).status_code == 200
    too_long = refused(await http.post(chat, json={"text": "é" * 201}, headers=bearer(seat0)), 422, "chat_too_long")
    assert "200" in too_long["detail"]
    refused(await http.post(chat, json={"text": " \n\t\x00 "}, headers=bearer(seat0)), 422, "chat_empty")
    refused(await http.post(chat, json={"text": 5}, headers=bearer(seat0)), 422, "invalid_chat")


async def test_only_a_seat_of_the_game_says_a_line(gateway, http, client):
    follower, _, _ = await game_in_play(client)
    other, _, _ = await game_in_play(client)
    chat = f"/games/{follower.game}/chat"
    refused(await http.post(chat, json={"text": "hi"}), 401, "token_missing")
    host = tokens.issue(SECRET, follower.game, tokens.HOST_SEAT, 600, domain=tokens.HOST)
    refused(await http.post(chat, json={"text": "hi"}, headers=bearer(host)), 401, "token_forged")
    refused(await http.post(chat, json={"text": "hi"}, headers=bearer(token(other.game, 0))), 403,
            "token_for_another_game")
    refused(await http.post("/games/no-such-game/chat", json={"text": "hi"},
                            headers=bearer(token("no-such-game", 0))), 404, "no_such_game")


async def test_a_seat_over_five_lines_in_ten_seconds_is_told_when_to_try_again_and_others_still_talk(
        nats_server, services, keys_file, client):
    follower, seat0, seat1 = await game_in_play(client)
    chat = f"/games/{follower.game}/chat"
    async with limited(nats_server, keys_file) as (running, http):
        for n in range(5):
            assert (await http.post(chat, json={"text": f"line {n}"}, headers=bearer(seat0))).status_code == 200
        over = await http.post(chat, json={"text": "one too many"}, headers=bearer(seat0))
        refused(over, 429, "too_many_messages")
        assert 1 <= retry_after(over) <= 2, "a line comes back every 2 s"
        assert (await http.post(chat, json={"text": "my turn"}, headers=bearer(seat1))).status_code == 200
        async def kept():
            return list(running.gateway.chat.recent.get(follower.game, ()))
        heard = await eventually(kept, lambda lines: len(lines) >= 6)
        assert len(heard) == 6 and not any("one too many" in line for line in heard)


async def test_a_chat_line_is_stored_nowhere(gateway, http, client):
    follower, seat0, _ = await game_in_play(client)
    secret = "a line that no stream may keep"
    assert (await http.post(f"/games/{follower.game}/chat", json={"text": secret},
                            headers=bearer(seat0))).status_code == 200
    names = await client.nc.request("$JS.API.STREAM.NAMES",
                                    msgspec.json.encode({"subject": chat_subject(follower.game)}), timeout=5)
    assert not msgspec.json.decode(names.data).get("streams"), "no stream captures a game's chat"
    log = b"".join(encode(batch) for _, batch in await read_batches(client.js, follower.game))
    assert secret.encode() not in log
    assert not any(secret.encode() in data for data in await stored_feed(client, follower.game))


async def test_a_games_feed_is_read_a_page_at_a_time_from_its_first_batch(gateway, http, client):
    follower, seat0, seat1 = await game_in_play(client)
    game = follower.game
    for seat, move in [(seat0, {"type": "draw_stock"}), (seat0, {"type": "discard", "card": "5S"}),   # R11: twice
                       (seat0, {"type": "draw_stock"}), (seat0, {"type": "discard", "card": "6S"})]:
        answer = (await http.post(f"/games/{game}/commands", json=move, headers=bearer(seat))).json()
        assert answer["accepted"], answer
    written = await stored_feed(client, game)
    stored = [msgspec.json.decode(data)["seq"] for data in written]
    first = await eventually(lambda: http.get(f"/games/{game}/feed"), lambda r: len(r.json()["batches"]) == 6)
    page = first.json()
    assert [b["seq"] for b in page["batches"]] == stored == [1, 2, 3, 4, 5, 6] and page["more"] is False
    assert page["batches"][0]["items"][0]["type"] == "game_started"
    after = (await http.get(f"/games/{game}/feed?from={page['next']}")).json()
    assert after["batches"] == [] and after["next"] == page["next"]
    small = await gateway.gateway.reads.feed(game, 0, most=4)
    rest = await gateway.gateway.reads.feed(game, small.next, most=4)
    assert [b.seq for b in small.batches] == [1, 2, 3, 4] and small.more
    assert [b.seq for b in rest.batches] == [5, 6] and not rest.more
    assert small.next == 4   # the seq of a page's last batch
    # The feed written again after a server's restart repeats batches at later places: a page has each seq once.
    await client.js.publish(feed_subject(game), written[2])
    again = await gateway.gateway.reads.feed(game, 2)
    assert [b.seq for b in again.batches] == [3, 4, 5, 6] and again.next == 6
    refused(await http.get(f"/games/{game}/feed?from=x"), 400, "bad_parameter")
    refused(await http.get(f"/games/{game}/feed?from={2**64}"), 400, "bad_parameter")
    refused(await http.get("/games/no-such-game/feed"), 404, "no_such_game")
    async with connect(ws_url(gateway, f"/games/{game}/public/ws?after={stored[-1]}")) as socket:
        await frames(socket, public_message, lambda got: any(isinstance(f, PublicUpdate) for f in got))
        assert (await http.post(f"/games/{game}/commands", json={"type": "draw_stock"},
                                headers=bearer(seat1))).json()["accepted"]
        got = await frames(socket, public_message, lambda got: any(isinstance(f, FeedUpdate) for f in got))
        assert [f.batch.seq for f in got if isinstance(f, FeedUpdate)] == [7], "the live stream goes on from there"
