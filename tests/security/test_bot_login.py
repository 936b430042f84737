"""The bots see what their seats see, by permission: the bots' login reads the views of the seats the bots service
plays and nothing else of a game. No log, no live copy of it, no other seat's view, no refusal of another seat's:
the server itself refuses, on the embedded server's configuration and on the shipped one (deploy/single.conf)."""
import asyncio
import json

import pytest
from attacker import REFUSED, Attacker
from nats.errors import TimeoutError as NatsTimeout
from test_shipped_config import shipped  # noqa: F401 - a fixture: deploy/single.conf with its logins

from zioncheck.client import GameClient, read_view
from zioncheck.contracts.commands import StartGame
from zioncheck.contracts.views import decode_seat_view
from zioncheck.domain import GameState, fold
from zioncheck.services.bus.topology import (
    BOT_VIEWS,
    VIEWS,
    bot_view_key,
    kv_stream,
    kv_subject,
    layout,
    live_subject,
    new_game_id,
    public_view_key,
    rejected_subject,
    seat_view_key,
    view_live_subject,
)
from zioncheck.services.wiring import SERVICES, Services

pytestmark = pytest.mark.security
SEATS = ["person", "greedy", "strong"]   # seat 0 a person's, seats 1 and 2 the bots service's


@pytest.fixture(params=["embedded", "shipped"])
def access(request):
    """The embedded server's logins (tests/conftest.py), or deploy/single.conf's, as `credentials --deploy` makes
    them."""
    if request.param == "embedded":
        return request.getfixturevalue("nats_server").access
    return request.getfixturevalue("shipped")


async def until(check, seconds: float = 15.0):
    async with asyncio.timeout(seconds):
        while not (found := await check()):
            await asyncio.sleep(0.05)
    return found


async def test_the_bots_login_reads_its_seats_views_and_not_the_log_its_live_copy_or_a_persons_view(access):
    services = await Services().start(SERVICES, access)
    operator = await GameClient.connect(access, "operator")
    bots = await Attacker.login(access, "bots")
    heard: list[str] = []

    async def hear(msg) -> None:
        heard.append(msg.subject)
    try:
        await bots.nc.subscribe(view_live_subject(BOT_VIEWS), cb=hear)
        await bots.nc.flush()
        game = new_game_id("sight")
        await operator.send(game, StartGame(game_id=game, players=len(SEATS), seats=SEATS))

        async def dealt():
            data = await read_view(bots.nc, bot_view_key(game, 1))
            return data and decode_seat_view(data).cards and decode_seat_view(data)
        mine = await until(dealt)   # its own seat's view, by a direct get naming the key: that seat's cards
        follower = await operator.follow(game)
        then = fold(GameState(), [event for batch in follower.batches[:mine.seq] for event in batch.events])
        assert mine.seat == 1 and list(then.hands[1]) == mine.cards
        await follower.stop()

        async def heard_some():
            return heard
        await until(heard_some)   # and each as the server republishes it
        assert {subject.rsplit(".", 2)[-2] for subject in heard} == {"bot"}, "only bot seats' views are heard"

        # No other view: the person's seat, a bot seat's seat key, the public one; nor by a get naming the key in
        # its body, nor through a consumer (a KV watch) on the bucket.
        for key in (seat_view_key(game, 0), seat_view_key(game, 1), public_view_key(game)):
            with pytest.raises(NatsTimeout):
                await read_view(bots.nc, key, timeout=REFUSED)
        views, person = kv_stream(VIEWS), kv_subject(VIEWS, seat_view_key(game, 0))
        asks = [(f"$JS.API.DIRECT.GET.{views}", {"last_by_subj": person}),
                (f"$JS.API.STREAM.MSG.GET.{views}", {"last_by_subj": person}),
                (f"$JS.API.CONSUMER.CREATE.{views}", {"stream_name": views, "config": {"filter_subject": person}}),
                (f"$JS.API.CONSUMER.CREATE.{views}.peek.{person}",
                 {"stream_name": views, "config": {"name": "peek", "filter_subject": person}})]
        # The log: no get of any kind, no consumer, no stream info (it lists every game); in every partition.
        where = await layout(operator.js)
        for stream in where.log_streams():
            subject = f"zc.log.{stream.rsplit('_', 1)[-1]}.{game}.*"
            asks += [(f"$JS.API.STREAM.MSG.GET.{stream}", {"last_by_subj": subject}),
                     (f"$JS.API.DIRECT.GET.{stream}", {"seq": 1, "next_by_subj": subject, "batch": 100}),
                     (f"$JS.API.DIRECT.GET.{stream}.{subject}", None),
                     (f"$JS.API.STREAM.INFO.{stream}", {"subjects_filter": subject}),
                     (f"$JS.API.CONSUMER.CREATE.{stream}",
                      {"stream_name": stream, "config": {"filter_subject": subject}}),
                     (f"$JS.API.CONSUMER.CREATE.{stream}.peek.{subject}",
                      {"stream_name": stream, "config": {"name": "peek", "filter_subject": subject}}),
                     (f"$JS.API.CONSUMER.DURABLE.CREATE.{stream}.peek",
                      {"stream_name": stream, "config": {"durable_name": "peek", "filter_subject": subject}})]
        answers = await asyncio.gather(*(bots.nc.request(api, json.dumps(body).encode() if body else b"",
                                                         timeout=REFUSED) for api, body in asks),
                                       return_exceptions=True)
        for (api, _), answer in zip(asks, answers, strict=True):
            assert isinstance(answer, NatsTimeout) and await bots.refused(api), (api, answer)
        with pytest.raises(NatsTimeout):
            await bots.js.get_msg(where.log_stream(game), seq=1, subject=where.log_subject(game))

        # Nothing live but its own seats' views: not the log's live copy, not another seat's view, no refusal.
        for subject in ("zc.live.>", live_subject(game), "zc.view.>", "zc.view.*.*.seat.*",
                        view_live_subject(seat_view_key(game, 0)), view_live_subject(public_view_key(game)),
                        "zc.rejected.>", rejected_subject(game), "zc.log.>"):
            await bots.nc.subscribe(subject, cb=hear)
            assert await bots.refused(subject), subject
        assert {s.rsplit(".", 2)[-2] for s in heard} == {"bot"}
    finally:
        await bots.close()
        await operator.close()
        await services.stop()
