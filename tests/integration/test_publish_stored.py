"""A synced publish (services/bus/publish.py) says what became of it: the stream's sequence, the
stream's refusal, no stream at all, or no answer in time; and many at once each get their own.
Appends grouped into one synced write (publish_grouped) each keep their own guard and Msg-Id. What
a house connection publishes in one turn of the event loop goes out in one write (write_together); many
messages framed at once (publish_all) arrive as nats-py's publish would send each."""
import asyncio

import nats
import pytest
from nats.errors import TimeoutError as NatsTimeout
from nats.js.errors import BadRequestError, NoStreamResponseError

from over_nats import new_game
from zioncheck.client import GameClient
from zioncheck.contracts.commands import StartGame
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.publish import publish_all, publish_grouped, publish_stored, store_each
from zioncheck.services.bus.topology import ensure_topology, layout

pytestmark = pytest.mark.integration

GUARD = "Nats-Expected-Last-Subject-Sequence"


async def test_many_publishes_at_once_each_get_their_own_sequence(nats_server, client):
    await ensure_topology(client.js)
    where, game = await layout(client.js), new_game()
    seqs = await asyncio.gather(*(publish_stored(client.js, where.log_subject(game, "move"), b"{}") for _ in range(50)))
    assert len(set(seqs)) == 50
    info = await client.js.stream_info(where.log_stream(game))
    assert max(seqs) <= info.state.last_seq


async def test_a_refused_expectation_is_the_streams_error_and_no_stream_is_said(nats_server, client):
    await ensure_topology(client.js)
    where, game = await layout(client.js), new_game()
    subject = where.log_subject(game, "move")
    first = await publish_stored(client.js, subject, b"{}")
    with pytest.raises(BadRequestError) as refused:
        await publish_stored(client.js, subject, b"{}", {"Nats-Expected-Last-Subject-Sequence": str(first - 1)})
    assert refused.value.err_code == 10071   # wrong last sequence
    with pytest.raises(NoStreamResponseError):
        await publish_stored(client.js, "nobody.stores.this", b"{}")


async def test_messages_stored_together_each_get_their_own_outcome_in_order(nats_server, client):
    await ensure_topology(client.js)
    where, game = await layout(client.js), new_game()
    subject = where.log_subject(game, "move")
    first = await publish_stored(client.js, subject, b"{}")
    outcomes = await store_each(client.js, [(subject, b"{}", {GUARD: str(first)}),
                                            (subject, b"{}", {GUARD: str(first)}),   # the first moved it on
                                            ("nobody.stores.this", b"{}", None),
                                            (subject, b"{}", None)])
    assert isinstance(outcomes[0], int) and outcomes[0] > first
    assert isinstance(outcomes[1], BadRequestError) and outcomes[1].err_code == 10071
    assert isinstance(outcomes[2], NoStreamResponseError)
    assert isinstance(outcomes[3], int) and outcomes[3] > outcomes[0]
    assert await store_each(client.js, []) == []


async def test_no_answer_in_time_is_a_timeout_and_later_publishes_still_work(nats_server, client):
    await ensure_topology(client.js)
    silent = await client.nc.subscribe("zc.silent.here")   # a listener that never answers: no 503 either
    quick = client.nc.jetstream(timeout=0.3)
    with pytest.raises(NatsTimeout):
        await publish_stored(quick, "zc.silent.here", b"{}")
    await silent.unsubscribe()
    where, game = await layout(client.js), new_game()
    assert await publish_stored(quick, where.log_subject(game, "move"), b"{}") > 0



def games_of_one_stream(where, count: int) -> list[str]:
    """`count` new games whose logs are in one partition's stream: enough at once to be grouped."""
    games = [new_game()]
    while len(games) < count:
        game = new_game()
        if where.log_stream(game) == where.log_stream(games[0]):
            games.append(game)
    return games


async def test_appends_of_many_games_at_once_share_atomic_batches_each_in_its_place(nats_server, client):
    await ensure_topology(client.js)
    where = await layout(client.js)
    games = games_of_one_stream(where, 20)
    stream = where.log_stream(games[0])
    before = (await client.js.stream_info(stream)).state.last_seq
    seqs = await asyncio.gather(*(publish_grouped(client.js, stream, where.log_subject(game, "move"), game.encode(),
                                                  {GUARD: "0"}) for game in games))
    assert sorted(seqs) == list(range(before + 1, before + 1 + len(games)))
    for game, seq in zip(games, seqs, strict=True):   # each sequence is where that game's batch is
        assert (await client.js.get_msg(stream, seq)).data == game.encode()
    grouped = [seq for seq in seqs if "Nats-Batch-Id" in ((await client.js.get_msg(stream, seq)).headers or {})]
    assert len(grouped) >= len(games) - 1   # all but the first, sent alone while the rest were kept


async def test_one_failed_guard_refuses_only_its_own_append_and_a_retry_is_no_second_copy(nats_server, client):
    await ensure_topology(client.js)
    where = await layout(client.js)
    games = games_of_one_stream(where, 20)
    stream = where.log_stream(games[0])
    forked = games[1]
    await publish_stored(client.js, where.log_subject(forked, "move"), b"another writer")

    async def append(game: str, msg_id: str) -> int:
        guard = {GUARD: "0", "Nats-Expected-Last-Subject-Sequence-Subject": where.log_subject(game, "*"),
                 "Nats-Msg-Id": msg_id}
        return await publish_grouped(client.js, stream, where.log_subject(game, "move"), b"{}", guard)

    found = await asyncio.gather(*(append(game, f"{game}:1") for game in games), return_exceptions=True)
    refused = [game for game, result in zip(games, found, strict=True) if isinstance(result, Exception)]
    assert refused == [forked]
    assert isinstance(found[1], BadRequestError) and found[1].err_code == 10071
    stored = (await client.js.stream_info(stream)).state.last_seq
    again = await asyncio.gather(*(append(game, f"{game}:1") for game in games), return_exceptions=True)
    assert all(isinstance(result, BadRequestError) for result in again)   # each guard holds: nothing stored twice
    assert (await client.js.stream_info(stream)).state.last_seq == stored


async def test_the_intakes_stores_of_many_games_at_once_each_answer_once_and_a_resend_is_the_same_command(
        nats_server, services, client):
    platform = await GameClient.connect(nats_server.access, "platform")
    try:
        games = [new_game() for _ in range(24)]
        first = await asyncio.gather(*(platform.send(g, StartGame(game_id=g, players=2), msg_id=f"start-{g}")
                                       for g in games))
        again = await asyncio.gather(*(platform.send(g, StartGame(game_id=g, players=2), msg_id=f"start-{g}")
                                       for g in games))
        where = await layout(client.js)
        places = {(where.commands_stream(g), seq) for g, seq in zip(games, first, strict=True)}
        assert again == first and len(places) == len(games)   # each stored once, at its own place
        for game, seq in zip(games, first, strict=True):
            stored = await client.js.get_msg(where.commands_stream(game), seq)
            assert b'"start_game"' in stored.data and f'"game_id":"{game}"'.encode() in stored.data
    finally:
        await platform.close()


async def _writes_for_a_turn(nc, subject: str, handlers: int) -> int:
    """Socket writes the connection makes for one turn of the event loop in which `handlers` handlers each
    publish an answer and start a task that publishes another, as the intake and the table do for the
    deliveries of one read."""
    transport, writes = nc._transport, 0
    library = transport.writelines

    def counted(data) -> None:
        nonlocal writes
        writes += 1
        library(data)

    async def spawned(n: int) -> None:
        await nc.publish(subject, b"b%d" % n)

    async def handler(n: int) -> None:
        await nc.publish(subject, b"a%d" % n)
        started.append(asyncio.ensure_future(spawned(n)))

    started: list[asyncio.Future] = []
    transport.writelines = counted
    try:
        woken = asyncio.get_running_loop().create_future()
        waiting = [asyncio.ensure_future(_after(woken, handler, n)) for n in range(handlers)]
        await asyncio.sleep(0)   # every handler waits on the same future, as replies of one read wake them
        woken.set_result(None)
        await asyncio.gather(*waiting)
        await asyncio.gather(*started)
        await nc.flush()
    finally:
        transport.writelines = library
    return writes - 1   # the flush's own PING


async def _after(woken: asyncio.Future, handler, n: int) -> None:
    await woken
    await handler(n)


async def test_what_one_turn_publishes_goes_out_in_one_write_and_every_message_arrives(nats_server):
    together = await connect(nats_server.access, "operator")
    alone = await nats.connect(**nats_server.access.connect_options("operator"))   # nats-py's own writer
    arrived: list[bytes] = []

    async def got(msg) -> None:
        arrived.append(msg.data)
    sub = await alone.subscribe("zc.test.together", cb=got)
    await alone.flush()
    try:
        ours = await _writes_for_a_turn(together, "zc.test.together", 50)
        library = await _writes_for_a_turn(alone, "zc.test.other", 50)
        for _ in range(200):
            if len(arrived) == 100:
                break
            await asyncio.sleep(0.01)
    finally:
        await sub.unsubscribe()
        await together.close()
        await alone.close()
    assert ours == 1 < library, f"{ours} writes for the turn, nats-py's writer {library}"
    assert arrived == [b"a%d" % n for n in range(50)] + [b"b%d" % n for n in range(50)]


async def test_messages_framed_at_once_arrive_as_each_publish_would_send_them(nats_server, client):
    got: list = []

    async def take(msg) -> None:
        got.append((msg.subject, msg.reply, msg.data, msg.headers))
    sub = await client.nc.subscribe("framed.>", cb=take)
    out_before = client.nc.stats["out_msgs"]
    await publish_all(client.nc, [("framed.a", b"with a header", {"Nats-Subject": "$KV.b.c"}),
                                  ("framed.b", b"", None),
                                  ("framed.c", b"two", {"One": "1", "Two": "two words"})], reply="framed.back")
    await publish_all(client.nc, [("framed.d", b"alone", None)])
    await client.nc.flush()
    for _ in range(50):
        if len(got) == 4:
            break
        await asyncio.sleep(0.02)
    await sub.unsubscribe()
    assert got == [("framed.a", "framed.back", b"with a header", {"Nats-Subject": "$KV.b.c"}),
                   ("framed.b", "framed.back", b"", None),
                   ("framed.c", "framed.back", b"two", {"One": "1", "Two": "two words"}),
                   ("framed.d", "", b"alone", None)]
    assert client.nc.stats["out_msgs"] - out_before >= 4, "counted as nats-py counts its publishes"
