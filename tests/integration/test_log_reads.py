"""A game's log is read whole in batched direct gets, however many batches it holds."""
import asyncio

import pytest
from nats.js.api import StorageType, StreamConfig

from over_nats import new_game
from zioncheck.contracts.log import Batch, encode
from zioncheck.services.bus import log_store
from zioncheck.services.bus.topology import ensure_topology, layout

pytestmark = pytest.mark.integration


async def logged(client, game: str, count: int) -> list[int]:
    """`count` batches of `game` (every fifth a hand boundary) beside another game's; their sequences."""
    seqs, where = [], await layout(client.js)
    other = next(g for g in (f"other-{i}" for i in range(100)) if where.of(g) == where.of(game))  # the same stream
    for i in range(count):
        kind = "hand" if i % 5 == 0 else "move"
        seqs.append((await client.js.publish(where.log_subject(game, kind), encode(Batch(cause=i + 1, events=[])))).seq)
        await client.js.publish(where.log_subject(other, "move"), encode(Batch(cause=i + 1, events=[])))
    return seqs


async def test_a_log_longer_than_one_batched_get_is_read_whole_in_order(nats_server, client, monkeypatch):
    await ensure_topology(client.js)
    monkeypatch.setattr(log_store, "WHOLE_BATCH", 4)   # 23 batches: six gets
    game = new_game()
    seqs = await logged(client, game, 23)
    read = await log_store.read_batches(client.js, game)
    assert [seq for seq, _ in read] == seqs
    assert [batch.cause for _, batch in read] == list(range(1, 24))
    assert [seq for seq, _ in await log_store.read_batches(client.js, game, "hand")] == seqs[::5]


async def test_load_and_catch_up_fold_every_batch_and_know_the_last_sequence(nats_server, client, monkeypatch):
    await ensure_topology(client.js)
    monkeypatch.setattr(log_store, "WHOLE_BATCH", 4)
    game = new_game()
    seqs = await logged(client, game, 10)
    loaded = await log_store.load(client.js, game)
    assert (loaded.last_seq, loaded.applied, loaded.batches) == (seqs[-1], 10, 10)
    seqs += await logged(client, game, 3)   # causes 1..3 again: applied stays at 10
    await log_store.catch_up(client.js, loaded)
    assert (loaded.last_seq, loaded.applied, loaded.batches) == (seqs[-1], 10, 13)


def counting_gets(monkeypatch) -> list[dict]:
    """The batched direct gets the reads ask for, as they are encoded."""
    asked, real = [], log_store._request_encoder

    class Counting:
        def encode(self, request) -> bytes:
            asked.append(request)
            return real.encode(request)
    monkeypatch.setattr(log_store, "_request_encoder", Counting())
    return asked


@pytest.mark.parametrize("count", [9, 8, 3])
async def test_a_whole_log_is_read_in_as_few_gets_as_it_takes_and_no_more(nats_server, client, monkeypatch, count):
    """A game's log read whole (a table's load, a rebuild) asks once for all of it: an answer that held fewer
    than it asked for, with no more pending than it held, ends the read without a get answered with nothing.
    Only an answer as full as it was asked for is followed by another get."""
    await ensure_topology(client.js)
    monkeypatch.setattr(log_store, "WHOLE_BATCH", 4)
    game = new_game()
    seqs = await logged(client, game, count)
    asked = counting_gets(monkeypatch)
    loaded = await log_store.load(client.js, game)
    assert (loaded.last_seq, loaded.batches) == (seqs[-1], count)
    gets = [request for request in asked if "next_by_subj" in request]
    assert len(gets) == count // 4 + 1      # 9: 4, 4, 1; 8: 4, 4, then none; 3: 3
    assert all(request["no_hdr"] for request in gets)
    asked.clear()
    assert [seq for seq, _ in await log_store.read_batches(client.js, game)] == seqs   # with headers: the same
    assert len([request for request in asked if "next_by_subj" in request]) == -(-count // 4)


def lagging(monkeypatch, short_answers: int) -> list[int]:
    """Replicas behind the leader, as on a cluster: the first `short_answers` passes of each read answer
    as if nothing after `after` were stored yet. The passes read_stored made, by `after`."""
    passes, real = [], log_store._read_stored

    async def behind(js, stream, subject, after, *args):
        passes.append(after)
        if len(passes) <= short_answers:
            return [], after
        return await real(js, stream, subject, after, *args)
    monkeypatch.setattr(log_store, "_read_stored", behind)
    monkeypatch.setattr(log_store, "READ_PAUSE", 0.001)
    return passes


async def test_a_read_a_replica_answers_short_of_a_known_message_is_asked_again_until_it_has_it(
        nats_server, client, monkeypatch):
    """Read your writes: the scoring service was delivered a hand end at `seqs[-1]`; a replica that has not
    stored it yet answers without it, and is asked again rather than folded and acked."""
    await ensure_topology(client.js)
    game = new_game()
    seqs = await logged(client, game, 6)
    passes = lagging(monkeypatch, short_answers=2)
    read = await log_store.read_batches(client.js, game, at_least=seqs[-1])
    assert [seq for seq, _ in read] == seqs and len(passes) == 3
    passes.clear()   # by default a read goes as far as the stream's leader holds
    assert [seq for seq, _ in await log_store.read_batches(client.js, game)] == seqs and len(passes) == 3
    passes.clear()
    loaded = await log_store.load(client.js, game)
    assert loaded.last_seq == seqs[-1] and loaded.batches == 6 and len(passes) == 3


async def test_a_replica_that_never_catches_up_fails_the_read_so_that_nothing_is_acked(nats_server, client,
                                                                                      monkeypatch):
    await ensure_topology(client.js)
    game = new_game()
    seqs = await logged(client, game, 3)
    lagging(monkeypatch, short_answers=10_000)
    where = await layout(client.js)
    with pytest.raises(log_store.Behind):
        await log_store.read_stored(client.js, where.log_stream(game), where.log_subject(game), timeout=0.2,
                                    at_least=seqs[-1])


async def test_a_game_with_no_log_reads_empty(nats_server, client):
    await ensure_topology(client.js)
    assert await log_store.read_batches(client.js, new_game()) == []
    empty = await log_store.load(client.js, new_game())
    assert (empty.last_seq, empty.batches) == (0, 0)



async def test_a_stream_without_direct_gets_is_still_read_whole_one_get_a_message(nats_server, client):
    await client.js.add_stream(config=StreamConfig(name="NO_DIRECT", subjects=["nodirect.*"], allow_direct=False))
    seqs = [(await client.js.publish("nodirect.g", encode(Batch(cause=i + 1, events=[])))).seq for i in range(3)]
    await client.js.publish("nodirect.h", b"another subject")
    found, last = await log_store.read_stored(client.js, "NO_DIRECT", "nodirect.g")
    assert [seq for seq, _ in found] == seqs and last == seqs[-1]


async def test_reads_at_once_on_one_connection_each_get_their_own_games_and_leave_others_alone(nats_server, client):
    await ensure_topology(client.js)
    games = [new_game() for _ in range(6)]
    seqs = {game: await logged(client, game, 7 + i) for i, game in enumerate(games)}
    heard = []

    async def hear(msg) -> None:
        heard.append(msg.data)

    await client.nc.subscribe("test.plain", cb=hear)
    loaded = await asyncio.gather(*(log_store.load(client.js, game) for game in games))
    assert [(g.last_seq, g.batches) for g in loaded] == [(seqs[game][-1], len(seqs[game])) for game in games]
    await client.nc.publish("test.plain", b"after")
    await client.nc.flush()
    await asyncio.sleep(0.1)
    assert heard == [b"after"]


async def test_every_subject_is_counted_past_the_servers_100000_an_answer(nats_server, client):
    """`zioncheck games`, `zioncheck rebuild-views` and `zioncheck migrate` list a stream's subjects: the
    server gives 100,000 at most an answer, and nats-py's stream_info the first answer only."""
    await client.js.add_stream(StreamConfig(name="MANY_SUBJECTS", subjects=["many.>"], storage=StorageType.MEMORY))
    js = client.nc.jetstream(publish_async_max_pending=8192)
    for i in range(100_050):
        await js.publish_async(f"many.{i}", b"x")
    await js.publish_async_completed()
    assert len((await client.js.stream_info("MANY_SUBJECTS", subjects_filter=">")).state.subjects) == 100_000
    counts = await log_store.subject_counts(client.js, "MANY_SUBJECTS", ">")
    assert len(counts) == 100_050 and set(counts.values()) == {1}
    assert await log_store.subject_counts(client.js, "MANY_SUBJECTS", "many.7") == {"many.7": 1}
    assert await log_store.subject_counts(client.js, "NO_SUCH_STREAM", ">") == {}
