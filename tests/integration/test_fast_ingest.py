"""The feed's way into its stream (services/bus/fast_ingest.py, FastIngest): messages stored as they come,
the server answering once for many; whatever a batch did not store told to its owners, each of them
barred until it says it stored what it lost, so that no owner's message is stored after one of its own
that was lost."""
import asyncio

import pytest
from nats.js.api import StreamConfig

from over_nats import new_game, stored_messages, until
from zioncheck.services.bus.fast_ingest import IDLE_SECONDS, FastIngest
from zioncheck.services.bus.topology import FEED, ensure_topology, feed_subject

pytestmark = pytest.mark.integration


async def test_every_message_is_stored_in_order_with_an_answer_for_many(nats_server, client):
    await ensure_topology(client.js)
    games = [new_game() for _ in range(3)]
    lost: list[set[str]] = []
    fast = FastIngest(client.nc, lost.append)
    answers_before = client.nc.stats["in_msgs"]
    for n in range(0, 600, 6):   # two messages of each game at a time
        for i, game in enumerate(games):
            assert await fast.add(game, [(feed_subject(game), b"%d" % (n + i + k), None) for k in (0, 3)]) == 2
    await asyncio.sleep(IDLE_SECONDS + 0.5)
    assert not fast.batch, "a quiet batch is ended"
    answers = client.nc.stats["in_msgs"] - answers_before
    await fast.close()
    assert lost == []
    for i, game in enumerate(games):
        stored = [int(msg.data) for msg in await stored_messages(client, FEED, feed_subject(game))]
        assert stored == list(range(i, 600, 3)), "each message once, in the order sent"
    assert answers <= 60, f"{answers} answers to 600 messages: the server answers once for many"


async def tiny_stream(client, name: str, **config) -> str:
    await client.js.add_stream(StreamConfig(name=name, subjects=[f"{name}.>"], max_msg_size=64, **config))
    return f"{name}.x"


async def test_a_message_refused_ends_the_batch_and_its_owner_is_barred_until_repaired(nats_server, client):
    subject = await tiny_stream(client, "TINY", allow_batched=True)
    lost: list[set[str]] = []
    fast = FastIngest(client.nc, lost.append)
    assert await fast.add("a", [(subject, b"first", None)])
    assert await fast.add("b", [(subject, b"x" * 100, None)])        # more than the stream takes
    assert await fast.add("c", [(subject, b"after it", None)])
    await until(lambda: asyncio.sleep(0, bool(lost)), 10, "the refusal was never told")
    assert lost == [{"b", "c"}], "the refused message's owner, and the owner of every one sent after it"
    assert [msg.data for msg in await stored_messages(client, "TINY", subject)] == [b"first"]
    assert not await fast.add("c", [(subject, b"c again", None)]), "a barred owner's message is not sent"
    assert await fast.add("a", [(subject, b"a again", None)]), "another's goes in a new batch"
    fast.repaired("c")
    assert await fast.add("c", [(subject, b"c repaired", None)])
    await fast.close()
    assert lost == [{"b", "c"}]
    assert [msg.data for msg in await stored_messages(client, "TINY", subject)] == [b"first", b"a again",
                                                                                    b"c repaired"]


async def test_a_stream_that_takes_no_fast_batches_is_told_and_nothing_is_lost_unsaid(nats_server, client):
    subject = await tiny_stream(client, "PLAIN")
    lost: list[set[str]] = []
    fast = FastIngest(client.nc, lost.append)
    assert await fast.add("a", [(subject, b"first", None)])
    assert lost == [{"a"}] and not fast.usable
    await fast.close()


async def test_where_no_stream_takes_the_subject_each_message_is_told_lost_without_waiting(nats_server, client):
    lost: list[set[str]] = []
    fast = FastIngest(client.nc, lost.append)
    started = asyncio.get_running_loop().time()
    assert await fast.add("a", [("nowhere.x", b"first", None)])
    await until(lambda: asyncio.sleep(0, bool(lost)), 5, "the missing stream was never told")
    assert not await fast.add("b", [("nowhere.x", b"second", None)]), "no batch opened again at once"
    assert lost == [{"a"}, {"b"}] and fast.usable
    assert asyncio.get_running_loop().time() - started < 2, "told by the server's status, not by a deadline"
    await fast.close()


async def test_settling_an_owner_ends_the_batch_only_when_it_has_messages_in_it(nats_server, client):
    await ensure_topology(client.js)
    games = [new_game() for _ in range(2)]
    lost: list[set[str]] = []
    fast = FastIngest(client.nc, lost.append)
    assert await fast.add(games[0], [(feed_subject(games[0]), b"one", None)])
    opened = fast.batch
    await fast.settle(games[1])
    assert fast.batch == opened, "another owner's messages in flight: the batch goes on"
    await fast.settle(games[0])
    assert not fast.batch and lost == [], "its fate known: stored"
    assert [msg.data for msg in await stored_messages(client, FEED, feed_subject(games[0]))] == [b"one"]
    await fast.close()
