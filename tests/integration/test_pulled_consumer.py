"""The projector's way of taking the log (services/bus/consumers.py, PulledConsumer): every message
of a partition's log reaches its game's hand-over once, each game's in stream order, through pulls
that are made again as soon as the ones before are answered; none is acked, and a consumer made when
deliveries were acked is made again to ack none, from the first message it had not settled."""
import asyncio

import pytest
from nats.js.api import AckPolicy, ConsumerConfig

from over_nats import new_game
from zioncheck.services.bus.consumers import PulledConsumer
from zioncheck.services.bus.publish import publish_stored
from zioncheck.services.bus.topology import ensure_topology, layout, log_stream_subjects

pytestmark = pytest.mark.integration


async def test_a_small_hand_takes_a_long_backlog_pull_after_pull_each_game_in_order(nats_server, client):
    await ensure_topology(client.js)
    where = await layout(client.js)
    first = new_game()
    stream = where.log_stream(first)
    games = [first]
    while len(games) < 5:
        game = new_game()
        if where.log_stream(game) == stream:
            games.append(game)
    for n in range(300):
        await publish_stored(client.js, where.log_subject(games[n % 5], "move"), b"{}")
    seen: dict[str, list[int]] = {}

    async def drain(game, msgs):
        seen.setdefault(game, []).extend(msg.metadata.sequence.stream for msg in msgs)

    partition = int(stream.rsplit("_", 1)[1])
    # A hand of 8: 300 messages take some 38 pulls, each filled at once. A pull filled is never answered
    # again, so one not known to be over would hold the consumer up until its expiry, seconds a pull.
    consumer = PulledConsumer(client.nc, stream, log_stream_subjects(partition)[0], "zc-pulled-test", drain,
                              in_hand=8)
    await consumer.start()
    try:
        for _ in range(400):
            if sum(map(len, seen.values())) >= 300:
                break
            await asyncio.sleep(0.05)
    finally:
        await consumer.stop()
    assert sorted(seen) == sorted(games)
    assert all(len(seqs) == 60 and seqs == sorted(seqs) for seqs in seen.values()), "each once, in order"
    info = await client.js.consumer_info(stream, "zc-pulled-test")
    assert (info.num_pending, info.num_ack_pending) == (0, 0), "every message delivered and settled"
    assert info.config.ack_policy == AckPolicy.NONE


async def test_a_consumer_that_acked_is_made_again_to_ack_none_from_its_first_message_not_acked(nats_server, client):
    await ensure_topology(client.js)
    where = await layout(client.js)
    game = new_game()
    stream, subject = where.log_stream(game), where.log_subject(game, "move")
    seqs = [await publish_stored(client.js, subject, b"{}") for _ in range(10)]
    await client.js.add_consumer(stream, ConsumerConfig(durable_name="zc-acked-test", filter_subject=subject,
                                                        ack_policy=AckPolicy.EXPLICIT))
    before = await client.js.pull_subscribe_bind("zc-acked-test", stream)
    for msg in await before.fetch(4):
        await msg.ack()
    await before.fetch(2)   # delivered and never acked: as the service that had them died
    await before.unsubscribe()
    seen: list[int] = []

    async def drain(_, msgs):
        seen.extend(msg.metadata.sequence.stream for msg in msgs)
    consumer = PulledConsumer(client.nc, stream, subject, "zc-acked-test", drain)
    await consumer.start()
    try:
        for _ in range(100):
            if len(seen) >= 6:
                break
            await asyncio.sleep(0.05)
    finally:
        await consumer.stop()
    assert seen == seqs[4:], "the first four were settled; the two delivered and not acked come again"
    assert (await client.js.consumer_info(stream, "zc-acked-test")).config.ack_policy == AckPolicy.NONE
