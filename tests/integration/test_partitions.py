"""Games spread over partitions: the server's mapping and the shared function agree on every game's
partition, each partition is worked by one table instance at a time, and another takes over when it
dies (services/bus/topology.py, services/bus/consumers.py: PinnedConsumer)."""
import asyncio
import os
import random
import signal
import string
import time

import pytest
from nats_backends import start_nats

from over_nats import new_game, one_table_writes
from test_crash_and_fork import start_table
from zioncheck.bots import make_bot
from zioncheck.client import GameClient
from zioncheck.contracts.commands import StartGame
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus import consumers
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import EMBEDDED_PARTITIONS
from zioncheck.services.bus.topology import (
    PartitionMismatch,
    commands_stream,
    game_of,
    layout,
    partition_in,
    partition_of,
    stored_command_subject,
)
from zioncheck.services.wiring import Services


def some_game_ids(count: int) -> list[str]:
    rng = random.Random(10)
    letters = string.ascii_letters + string.digits + "-_"
    ids = ["a", "Z", "0", "-", "_", "x" * 64, "game-1a2b3c4d5e6f"]
    ids += [new_game() for _ in range(count // 2)]
    ids += ["".join(rng.choice(letters) for _ in range(rng.randint(1, 64))) for _ in range(count - len(ids))]
    return ids


@pytest.mark.parametrize("partitions", [1, 2, 3, 4, 7])
async def test_the_intake_stores_every_game_in_the_partition_partition_of_names(tmp_path, monkeypatch, partitions):
    """Readers find a game's log and commands with partition_of: the intake must store there."""
    monkeypatch.setenv("ZIONCHECK_PARTITIONS", str(partitions))
    server = start_nats(tmp_path / "jetstream")
    running = await Services().start(["intake"], server.access)
    try:
        nc = await connect(server.access, "operator")
        stored: dict[str, int] = {}

        async def on_command(msg) -> None:
            stored[game_of(msg.subject)] = partition_in(msg.subject)
        await nc.subscribe("zc.cmd.*.*.play", cb=on_command)
        platform = await GameClient.connect(server.access, "platform")
        ids = some_game_ids(120)
        await asyncio.gather(*(platform.send(game, StartGame(game_id=game, players=2)) for game in ids))
        for _ in range(100):
            await nc.flush()
            if len(stored) == len(ids):
                break
            await asyncio.sleep(0.02)
        assert (await layout(nc.jetstream())).partitions == partitions
        assert stored == {game: partition_of(game, partitions) for game in ids}
        if partitions > 1:
            assert len(set(stored.values())) == partitions, "every partition gets games"
        await platform.close()
        await nc.close()
    finally:
        await running.stop()
        server.stop()


async def test_a_store_made_for_another_partition_count_is_said_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("ZIONCHECK_PARTITIONS", "3")
    server = start_nats(tmp_path / "jetstream")
    running = await Services().start(["table"], server.access)
    await running.stop()
    server.stop()
    monkeypatch.setenv("ZIONCHECK_PARTITIONS", "2")
    server = start_nats(tmp_path / "jetstream")
    try:
        with pytest.raises(PartitionMismatch) as told:
            await Services().start(["table"], server.access)
        assert "\n" not in str(told.value)
        assert "maps games to 2 partition(s) but the store holds the logs of 3" in str(told.value)
        assert "--partitions 3" in str(told.value)
    finally:
        server.stop()


async def test_a_server_started_again_on_its_store_keeps_the_p_the_store_was_made_with(tmp_path, monkeypatch):
    """With ZIONCHECK_PARTITIONS unset, a new store gets one partition (embedded.EMBEDDED_PARTITIONS) and a
    store made with another P is served with that P again, never refused as a mismatch."""
    monkeypatch.setenv("ZIONCHECK_PARTITIONS", "3")
    server = start_nats(tmp_path / "made-with-3" / "jetstream")
    running = await Services().start(["table"], server.access)
    await running.stop()
    server.stop()
    monkeypatch.delenv("ZIONCHECK_PARTITIONS")
    for store, partitions in (("made-with-3", 3), ("new", EMBEDDED_PARTITIONS)):
        server = start_nats(tmp_path / store / "jetstream")
        try:
            running = await Services().start(["table"], server.access)
            nc = await connect(server.access, "operator")
            assert (await layout(nc.jetstream())).partitions == partitions
            await nc.close()
            await running.stop()
        finally:
            server.stop()
    assert EMBEDDED_PARTITIONS == 1


async def play_games(client, count: int, players: int = 3) -> list:
    """`count` greedy games, their ids chosen so that they fall in every partition in turn."""
    where, games = await layout(client.js), []
    for index in range(count):
        game = new_game()
        while where.of(game) != index % where.partitions:
            game = new_game()
        follower = await client.follow(game)
        await client.send(game, StartGame(game_id=game, players=players))
        rng = random.Random(index)
        games.append((follower, play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(players)},
                                           rng)))
    return games


async def exactly_as_one_table(client, follower) -> None:
    await follower.wait_until(lambda f: all(f.state.seeds), timeout=60)
    causes = [b.cause for b in follower.batches]
    assert causes == sorted(set(causes)), "a command was applied twice or out of order"
    logged = [e for b in follower.batches for e in b.events]
    game = follower.game
    assert logged == await one_table_writes(client, game)


@pytest.mark.long   # whole games on two table instances: `make test-long`
async def test_two_table_instances_share_the_partitions_and_play_every_game_exactly_as_one_would(
        nats_server, client):
    where = await layout(client.js)
    tables = [await Services().start(["table"], nats_server.access) for _ in range(2)]
    others = await Services().start(["dealer", "scoring", "intake"], nats_server.access)
    share = [where.partitions // 2, where.partitions - where.partitions // 2]
    try:
        # The second instance takes its share once it sees the first hold them all; a partition given
        # away is pinned to it with the next command delivered there, so the split is looked for while
        # games play (another round of games if the first ended before it).
        played, held = [], []
        for _ in range(3):
            games = await play_games(client, 2 * where.partitions)
            assert {where.of(f.game) for f, _ in games} == set(range(where.partitions)), "games in every partition"
            plays = asyncio.ensure_future(asyncio.gather(*(play for _, play in games)))
            while not plays.done() and sorted(map(len, held)) != share:
                await asyncio.sleep(0.1)
                held = [t.direct[0].held() for t in tables]
            await asyncio.wait_for(plays, timeout=240)
            played += [follower for follower, _ in games]
            if sorted(map(len, held)) == share:
                break
        for follower in played:
            await exactly_as_one_table(client, follower)
        assert sorted(map(len, held)) == share, held
        assert not set(held[0]) & set(held[1]), "a partition pinned to both"
    finally:
        for running in (*tables, others):
            await running.stop()


@pytest.mark.long   # whole games on one instance of two: `make test-long`
async def test_a_table_instance_alone_keeps_every_partition_while_the_games_play(nats_server, client, monkeypatch):
    """One instance never gives a partition away for lack of a second: its games would wait for ever
    for a pin nobody takes, until its rest is over (it counts the instances that answer, not pulls)."""
    given: list[str] = []
    real = consumers.Partition.give_away

    async def give_away(partition):
        given.append(partition.stream)
        await real(partition)
    monkeypatch.setattr(consumers.Partition, "give_away", give_away)
    where = await layout(client.js)
    table = await Services().start(["table"], nats_server.access)
    others = await Services().start(["dealer", "scoring", "intake"], nats_server.access)
    try:
        plays = [asyncio.create_task(play) for _, play in await play_games(client, 2 * where.partitions)]
        consumer = table.direct[0]
        for _ in range(3):   # looks while the games play, as the balancer takes them
            await asyncio.sleep(0.3)
            await consumer._look()
        assert await consumer.instances() == 1
        await asyncio.wait_for(asyncio.gather(*plays), timeout=240)
        assert given == [] and len(consumer.held()) == where.partitions
        second = await Services().start(["table"], nats_server.access)
        try:
            assert await consumer.instances() == 2
        finally:
            await second.stop()
    finally:
        for running in (table, others):
            await running.stop()


@pytest.mark.long
async def test_a_table_killed_with_9_hands_its_partitions_over_and_every_game_finishes_exactly(
        nats_server, client, tmp_path):
    """The pinned instance dies; the waiting one is pinned once the pin's time is out and plays on."""
    others = await Services().start(["dealer", "scoring", "intake"], nats_server.access)
    first = start_table(nats_server, tmp_path)
    second = None
    try:
        games = await play_games(client, 4)
        plays = asyncio.gather(*(play for _, play in games))
        await games[0][0].wait_until(lambda f: f.state.hand == 2, timeout=60)
        second = start_table(nats_server, tmp_path)   # waits on every partition first holds
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        killed, seen = time.perf_counter(), len(games[0][0].batches)
        await games[0][0].wait_until(lambda f: len(f.batches) > seen + 1, timeout=60)
        print(f"failover: the next command applied {time.perf_counter() - killed:.2f} s after kill -9")
        await asyncio.wait_for(plays, timeout=240)
        for follower, _ in games:
            await exactly_as_one_table(client, follower)
    finally:
        first.kill()
        if second is not None:
            second.kill()
        await others.stop()


async def test_a_client_of_the_intake_needs_no_partition(nats_server, services):
    """A platform hands a command to the intake on zc.in.<game>; its seq is in the game's partition's stream."""
    platform = await GameClient.connect(nats_server.access, "platform")
    operator = await GameClient.connect(nats_server.access, "operator")
    try:
        game = new_game()
        seq = await platform.send(game, StartGame(game_id=game, players=2))
        where = await layout(operator.js)
        stored = await operator.js.get_msg(where.commands_stream(game), seq=seq)
        assert stored.subject == f"zc.cmd.{where.of(game)}.{game}.play"
    finally:
        await operator.close()
        await platform.close()


class Taken:
    """A partition's game queues that only keep what is delivered, acking nothing: a table that dies with it."""

    def __init__(self):
        self.messages: list = []

    def take(self, messages: list) -> None:
        self.messages += messages

    async def stop(self) -> None:
        pass


async def test_the_table_pinned_next_takes_at_once_the_commands_a_dead_one_held_unacked(nats_server, client):
    """A table that dies between taking a command and acking it leaves the command to the consumer's ack_wait.
    The table pinned next resets the consumer to its ack floor, so the command comes to it at once: here with an
    ack_wait of 30 s, it comes as a first delivery (a reset's), never as the redelivery ack_wait would make."""
    intake = await Services().start(["intake"], nats_server.access)   # the streams made too
    where = await layout(client.js)
    games = [new_game() for _ in range(200)]
    first, second = [game for game in games if where.of(game) == 0][:2]
    config = consumers.pinned_consumer_config("zc-tables", stored_command_subject(0, "*", "*")) | {
        "ack_wait": 30 * consumers.NANOS}
    assert await consumers.create_consumer(client.nc, commands_stream(0), config) is None
    dead, alive = await connect(nats_server.access, "table"), await connect(nats_server.access, "table")
    held, taken = Taken(), Taken()
    try:
        await client.send(first, StartGame(game_id=first, players=2))
        dying = consumers.Partition(dead, commands_stream(0), stored_command_subject(0, "*", "*"), "zc-tables",
                                    held, 0, where.partitions)   # type: ignore[arg-type]
        await dying.start()
        await wait_for(lambda: held.messages)
        await dead.close()   # dies holding the command, never acked

        standby = consumers.Partition(alive, commands_stream(0), stored_command_subject(0, "*", "*"), "zc-tables",
                                      taken, 0, where.partitions)   # type: ignore[arg-type]
        await standby.start()
        await client.send(second, StartGame(game_id=second, players=2))   # the server pins the standby with it
        await wait_for(lambda: any(game_of(m.subject) == first for m in taken.messages))
        again = next(m for m in taken.messages if game_of(m.subject) == first)
        assert again.metadata.sequence.stream == held.messages[0].metadata.sequence.stream
        assert again.metadata.num_delivered == 1, "delivered again by the reset, not by ack_wait"
        await standby.stop()
    finally:
        await intake.stop()
        await alive.close()


async def test_on_a_quiet_partition_the_waiting_table_takes_the_commands_a_dead_one_held(nats_server, client):
    """The dead table's command is the partition's last: no new one comes to pin the waiting table. Its watch sees
    a command held with no pin held, and resets the consumer: the command comes within a second or two, not after
    the 30 s ack_wait."""
    intake = await Services().start(["intake"], nats_server.access)
    where = await layout(client.js)
    game = next(game for game in (new_game() for _ in range(200)) if where.of(game) == 0)
    config = consumers.pinned_consumer_config("zc-tables", stored_command_subject(0, "*", "*")) | {
        "ack_wait": 30 * consumers.NANOS}
    assert await consumers.create_consumer(client.nc, commands_stream(0), config) is None
    dead, alive = await connect(nats_server.access, "table"), await connect(nats_server.access, "table")
    held, taken = Taken(), Taken()
    standby = consumers.Partition(alive, commands_stream(0), stored_command_subject(0, "*", "*"), "zc-tables",
                                  taken, 0, where.partitions)   # type: ignore[arg-type]
    try:
        dying = consumers.Partition(dead, commands_stream(0), stored_command_subject(0, "*", "*"), "zc-tables",
                                    held, 0, where.partitions)   # type: ignore[arg-type]
        await dying.start()
        await client.send(game, StartGame(game_id=game, players=2))
        await wait_for(lambda: held.messages)
        await standby.start()
        await asyncio.sleep(2 * consumers.PIN_SECONDS)
        assert not taken.messages, "the pinned table holds the partition while it lives"
        died = time.monotonic()
        await dead.close()   # dies holding the command, never acked; nothing else comes
        await wait_for(lambda: taken.messages, timeout=10.0)
        assert time.monotonic() - died < 3 * consumers.PIN_SECONDS + 2 * consumers.WATCH_SECONDS
        assert taken.messages[0].metadata.sequence.stream == held.messages[0].metadata.sequence.stream
    finally:
        await standby.stop()
        await intake.stop()
        await alive.close()


async def wait_for(condition, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time given"
        await asyncio.sleep(0.05)
