"""The projector over NATS: it catches up from the log, restarts without repeating itself, and rebuilds."""
import asyncio
import subprocess
import sys

from over_nats import stacked_game, stored_feed, until
from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import Discard, DrawStock
from zioncheck.contracts.feed import decode_feed_batch
from zioncheck.contracts.log import Batch, encode
from zioncheck.contracts.views import decode_public_view, decode_seat_view
from zioncheck.domain.views import feed_batch, project, public_view, seat_view
from zioncheck.services.bus.log_store import read_stamped
from zioncheck.services.bus.topology import FEED, VIEWS, ensure_topology, public_view_key, seat_view_key
from zioncheck.services.bus.view_store import write_views
from zioncheck.services.projector import service as projector_service
from zioncheck.services.wiring import Services

HANDS = [["2C", "3C", "4C", "5C"], ["2D", "3D", "4D", "5D"], ["2H", "3H", "4H", "5H"]]
STOCK = ["6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]
# Seat 2's early draw is refused (R18): the views carry refusals as well as moves.
MOVES = [DrawStock(seat=0), Discard(seat=0, card="2C"), DrawStock(seat=0), Discard(seat=0, card="3C"),
         DrawStock(seat=2), DrawStock(seat=1), Discard(seat=1, card="2D"),
         DrawStock(seat=2), Discard(seat=2, card="2H")]


async def play(client, follower, moves) -> list[int]:
    """Each move sent and its outcome in the log; returns the moves' seqs."""
    seqs = []
    for move in moves:
        seqs.append(await client.send(follower.game, move))
        await follower.outcome(seqs[-1])
    return seqs


async def projected(client, game: str, seq: int):
    """The public view once it has folded `seq` batches."""
    kv = await client.js.key_value(VIEWS)
    for _ in range(400):
        try:
            view = decode_public_view((await kv.get(public_view_key(game))).value)
            if view.seq >= seq:
                return view
        except Exception:  # noqa: BLE001 - not written yet
            pass
        await asyncio.sleep(0.025)
    raise AssertionError(f"the views of {game} never reached seq {seq}")


async def assert_views_are_the_logs(client, follower) -> None:
    """The views are the fold of the log, each deadline's time as the log's headers give it."""
    stamped = await read_stamped(client.js, follower.game)
    assert [batch for batch, _ in stamped] == follower.batches
    projection = project(follower.batches, (due for _, due in stamped))
    kv = await client.js.key_value(VIEWS)
    assert await projected(client, follower.game, projection.seq) == public_view(projection)
    for seat in range(len(HANDS)):
        data = (await kv.get(seat_view_key(follower.game, seat))).value
        stored = decode_seat_view(data)
        assert stored == seat_view(projection, seat)
        assert data == encode(stored), "the public view put in as bytes encodes as the view itself would"
        assert sorted(stored.cards) == sorted(follower.state.hands[seat])
    feed = [decode_feed_batch(d).seq for d in await stored_feed(client, follower.game)]
    public = [n for n, batch in enumerate(follower.batches, 1) if feed_batch(follower.game, n, batch.events)]
    assert feed == public, "each batch with anything public in the feed once, in order"
    assert len(public) == len(follower.batches) - 1, "all but the refusal"


async def test_a_projector_that_starts_late_or_restarts_projects_each_batch_once(nats_server, client):
    table = await Services().start(["table", "intake"], nats_server.access)
    try:
        follower = await stacked_game(client, 3, HANDS, STOCK)
        await play(client, follower, MOVES[:4])
        projector = await Services().start(["projector"], nats_server.access)
        await projected(client, follower.game, len(follower.batches))
        await projector.stop()
        refused, *_ = await play(client, follower, MOVES[4:])
        projector = await Services().start(["projector"], nats_server.access)
        await assert_views_are_the_logs(client, follower)
        kv = await client.js.key_value(VIEWS)
        seat_2 = decode_seat_view((await kv.get(seat_view_key(follower.game, 2))).value)
        assert [(r.cause, r.reason) for r in seat_2.refusals] == [(refused, "not_your_turn")]
        assert seat_2.public.applied == follower.batches[-1].cause
        await projector.stop()
    finally:
        await table.stop()


async def test_a_game_whose_views_failed_to_go_out_is_folded_again_from_its_log(nats_server, client, monkeypatch):
    """The projector acks no delivery of the log: a batch it failed on never comes again, so the game is folded
    again from its log, even when no batch of it follows."""
    failures = []
    send_live = projector_service.send_live

    async def failing_once(nc, views):
        if not failures:
            failures.append(len(views))
            raise ConnectionError("the server went away")
        await send_live(nc, views)
    services = await Services().start(["table", "intake", "projector"], nats_server.access)
    try:
        follower = await stacked_game(client, 3, HANDS, STOCK)
        await play(client, follower, MOVES[:-1])
        await projected(client, follower.game, len(follower.batches))
        monkeypatch.setattr(projector_service, "send_live", failing_once)
        await play(client, follower, MOVES[-1:])      # the game's last batch, and it fails to go out
        await until(lambda: asyncio.sleep(0, bool(failures)), 10, "the projector never tried to send the views")
        await assert_views_are_the_logs(client, follower)
    finally:
        await services.stop()


async def test_a_game_whose_feed_the_stream_refused_has_it_whole_and_in_order_once_the_stream_takes_it(
        nats_server, client):
    """The feed goes out in a fast batch, the server answering once for many (services/bus/fast_ingest.py): a
    batch the stream refused is told to the projector, which sends none of the game's feed until it has
    stored what was lost again from the game's log, tried again while the stream refuses it."""
    services = await Services().start(["table", "intake", "projector"], nats_server.access)

    async def feed() -> list[int]:
        return [decode_feed_batch(d).seq for d in await stored_feed(client, follower.game)]

    async def feed_is(seq: int) -> bool:
        return (await feed())[-1:] == [seq]
    try:
        follower = await stacked_game(client, 3, HANDS, STOCK)
        await play(client, follower, MOVES[:4])
        before = len(follower.batches)
        await until(lambda: feed_is(before), 10, "the feed of the first moves never stored")
        config = (await client.js.stream_info(FEED)).config
        await client.js.update_stream(config=config.evolve(max_msg_size=16))   # each feed batch refused
        await play(client, follower, MOVES[4:])
        await projected(client, follower.game, len(follower.batches))          # the views go on
        await asyncio.sleep(1.5)
        assert (await feed())[-1] == before, "the stream took no feed batch of the later moves"
        await client.js.update_stream(config=config)
        await until(lambda: feed_is(len(follower.batches)), 15, "the refused feed never stored")
        await assert_views_are_the_logs(client, follower)
    finally:
        await services.stop()


def zioncheck(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zioncheck.cli.main", *args],
                          capture_output=True, text=True, timeout=60)


async def test_rebuild_views_makes_views_and_feed_again_from_the_logs(nats_server, client):
    table = await Services().start(["table", "intake"], nats_server.access)  # no projector: nothing is projected
    try:
        follower = await stacked_game(client, 3, HANDS, STOCK)
        await play(client, follower, MOVES)
    finally:
        await table.stop()
    rebuilt = await asyncio.to_thread(zioncheck, "rebuild-views", "--feed", *nats_server.cli_args)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert f"{follower.game}: views at seq {len(follower.batches)}, feed republished (1 of 1)" in rebuilt.stdout
    await assert_views_are_the_logs(client, follower)
    shown = await asyncio.to_thread(zioncheck, "view", follower.game, "--seat", "1", *nats_server.cli_args)
    assert decode_seat_view(shown.stdout).cards == list(follower.state.hands[1])


async def test_rebuild_views_and_view_of_an_unknown_game_say_so_in_one_line(nats_server):
    result = await asyncio.to_thread(zioncheck, "rebuild-views", "no-such-game", *nats_server.cli_args)
    assert result.returncode == 2
    assert result.stderr.strip() == ("zioncheck rebuild-views: no game 'no-such-game' is stored "
                                     "(zioncheck games lists them)")
    result = await asyncio.to_thread(zioncheck, "view", "no-such-game", *nats_server.cli_args)
    assert result.returncode == 2
    assert result.stderr.startswith("zioncheck view: no view 'platform.no-such-game.public' is stored")
    assert len(result.stderr.strip().splitlines()) == 1


async def test_a_view_is_never_replaced_by_an_older_one_and_an_equal_one_is_rewritten(nats_server, client):
    await ensure_topology(client.js)
    kv = await client.js.key_value(VIEWS)
    started = [ev.GameStarted(game_id="g", players=2, decks=2, dealer=1)]
    dealt = [ev.HandDealt(hand=1, dealer=1, hands=[["2C"], ["3C"]], stock=["4C"], commitment="c0ffee")]
    older, newer = project([Batch(cause=1, events=started)]), project([Batch(cause=1, events=started),
                                                                       Batch(cause=2, events=dealt)])
    await write_views(kv, "g", newer, {})
    await write_views(kv, "g", older, {})
    assert decode_public_view((await kv.get(public_view_key("g"))).value) == public_view(newer)
    revision = (await kv.get(public_view_key("g"))).revision
    await write_views(kv, "g", newer, {})
    assert (await kv.get(public_view_key("g"))).revision > revision
