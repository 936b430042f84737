"""A follower gets every batch, in order, even when core NATS drops some on the way."""
import asyncio

import pytest
from nats.js.errors import BadRequestError

from over_nats import stacked_game
from zioncheck import client as client_module
from zioncheck.client import GameClient
from zioncheck.contracts.commands import Discard, DrawStock
from zioncheck.contracts.events import Discarded, StockDrawn
from zioncheck.contracts.log import Batch, encode
from zioncheck.services.bus.topology import BATCH_HEADER, layout, live_subject

HANDS = [["AS", "2S", "9D", "KH"], ["3S", "4S", "9C", "KD"]]
STOCK = ["5S", "6S", "7S", "8S", "5H", "6H"]


async def deaf_while(client: GameClient, follower, send) -> int:
    """Run `send` while the follower hears nothing live, as if core NATS dropped it all."""
    await follower._subs[0].unsubscribe()
    seq = await send()
    await client.nc.flush()
    follower._subs[0] = await client.nc.subscribe(live_subject(follower.game), cb=follower._on_batch)
    return seq


async def test_a_batch_dropped_on_the_way_is_read_back_when_the_next_one_shows_the_gap(services, client):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    dropped = await deaf_while(client, follower, lambda: client.send(follower.game, DrawStock(seat=0)))
    later = await client.send(follower.game, Discard(seat=0, card="9D"))
    [discarded] = await follower.outcome(later, timeout=10)
    assert isinstance(discarded, Discarded)
    assert isinstance(follower.outcomes[dropped][0], StockDrawn)
    assert [b.cause for b in follower.batches][-2:] == [dropped, later]
    assert len(follower.state.hands[0]) == 4, "drew one, discarded one: every batch folded once, in order"


async def test_a_last_batch_dropped_is_found_by_asking_the_stream_while_waiting(services, client, monkeypatch):
    monkeypatch.setattr(client_module, "RECHECK", 0.2)
    follower = await stacked_game(client, 2, HANDS, STOCK)
    dropped = await deaf_while(client, follower, lambda: client.send(follower.game, DrawStock(seat=0)))
    [drawn] = await follower.outcome(dropped, timeout=10)
    assert isinstance(drawn, StockDrawn)
    assert follower.batches[-1].cause == dropped


async def test_a_follower_joining_mid_game_reads_the_history_then_follows_live(services, client):
    first = await stacked_game(client, 2, HANDS, STOCK)
    await first.outcome(await client.send(first.game, DrawStock(seat=0)))
    joiner = await client.follow(first.game)
    assert joiner.batches == first.batches
    seq = await client.send(first.game, Discard(seat=0, card="9D"))
    await joiner.outcome(seq)
    await first.outcome(seq)
    assert joiner.batches == first.batches and joiner.state == first.state


async def test_an_append_the_log_refuses_never_reaches_a_follower(services, client):
    """A second writer's stale append is refused by the stream, yet core NATS carries it on
    zc.log.>; followers hear only what the server republishes once stored."""
    follower = await stacked_game(client, 2, HANDS, STOCK)
    stale = Batch(cause=999_999, events=[StockDrawn(seat=1, card="KD")])
    where = await layout(client.js)
    headers = {"Nats-Expected-Last-Subject-Sequence": "1", BATCH_HEADER: str(len(follower.batches) + 1),
               "Nats-Expected-Last-Subject-Sequence-Subject": where.log_subject(follower.game)}
    with pytest.raises(BadRequestError):
        await client.js.publish(where.log_subject(follower.game, "move"), encode(stale), headers=headers)
    seq = await client.send(follower.game, DrawStock(seat=0))
    [drawn] = await follower.outcome(seq, timeout=10)
    assert isinstance(drawn, StockDrawn) and drawn.seat == 0
    assert all(batch.cause != 999_999 for batch in follower.batches)


async def test_a_batch_lost_while_the_connection_was_away_is_read_as_soon_as_it_is_back(services, client):
    """What the server republished while a connection was away never comes; once it is back (here, told so as
    nats-py tells a connection) each follower looks at the stream at once, not after a quiet RECHECK."""
    follower = await stacked_game(client, 2, HANDS, STOCK)

    async def stored_meanwhile() -> int:   # deaf until the batch is in the stream: its live copy is lost
        seq = await client.send(follower.game, DrawStock(seat=0))
        while not await follower._behind():
            await asyncio.sleep(0.02)
        return seq
    dropped = await deaf_while(client, follower, stored_meanwhile)
    waiting = asyncio.ensure_future(follower.outcome(dropped, timeout=client_module.RECHECK / 2))
    await asyncio.sleep(0.3)
    assert not waiting.done()
    await client.nc._reconnected_cb()   # what nats-py awaits when the connection is back
    [drawn] = await waiting
    assert isinstance(drawn, StockDrawn)
