"""The table survives kill -9, and a second table on the same game cannot fork its log."""
import asyncio
import os
import random
import signal
import subprocess
import sys

import pytest

from over_nats import new_game, one_table_writes, store
from zioncheck.bots import make_bot
from zioncheck.contracts.commands import Deal, Discard, DrawStock, StartGame
from zioncheck.contracts.log import Batch
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus import log_store as game_log
from zioncheck.services.bus.log_store import LogConflict
from zioncheck.services.bus.topology import ensure_topology
from zioncheck.services.table.service import TableService
from zioncheck.services.wiring import Services


def start_table(server, tmp_path) -> subprocess.Popen:
    """The table service as its own process, as `zioncheck serve table` runs it."""
    out = open(tmp_path / "table.log", "ab")
    process = subprocess.Popen([sys.executable, "-m", "zioncheck.cli.main", "serve", "table", *server.cli_args,
                                "--log-level", "warning"], stdout=subprocess.PIPE, stderr=out)
    assert b"serving table" in process.stdout.readline()
    return process


@pytest.mark.long   # a whole game through kills: `make test-long`
async def test_a_table_killed_mid_game_resumes_with_no_event_lost_or_doubled(nats_server, client, tmp_path):
    others = await Services().start(["dealer", "scoring", "intake"], nats_server.access)
    table = start_table(nats_server, tmp_path)
    try:
        game = new_game()
        follower = await client.follow(game)
        await client.send(game, StartGame(game_id=game, players=3))
        rng = random.Random(3)
        bots = {s: make_bot("greedy", rng) for s in range(3)}
        playing = asyncio.create_task(play_seats(client, follower, bots, rng))
        await follower.wait_until(lambda f: f.state.hand == 2, timeout=60)
        os.kill(table.pid, signal.SIGKILL)
        table.wait()
        table = start_table(nats_server, tmp_path)
        await asyncio.wait_for(playing, timeout=120)
        await follower.wait_until(lambda f: all(f.state.seeds), timeout=30)
        logged = [e for b in follower.batches for e in b.events]
        causes = [b.cause for b in follower.batches]
        assert causes == sorted(set(causes)), "a command was applied twice or out of order"
        assert logged == await one_table_writes(client, game)
        assert follower.state.game_over
    finally:
        table.kill()
        await others.stop()


async def opened_game(client) -> str:
    """A two-seat stacked game in the commands stream, with no table running yet."""
    await ensure_topology(client.js)
    game = new_game()
    await store(client, game, StartGame(game_id=game, players=2, dealer=1, stacked=True))
    deal = Deal(hand=1, hands=[["AS", "2S", "9D"], ["3S", "4S", "9C"]], stock=["5S", "6S", "7S", "8S"])
    await client.send(game, deal, as_dealer=True)
    return game


async def causes(client, game: str) -> list[int]:
    return [batch.cause for _, batch in await game_log.read_batches(client.js, game)]


async def test_a_second_table_with_a_stale_view_cannot_fork_the_log(nats_server, client):
    game = await opened_game(client)
    first, second = TableService(client.nc, client.js), TableService(client.nc, client.js)
    stale = await game_log.load(client.js, game)
    seq = await store(client, game, DrawStock(seat=0))
    later = await store(client, game, Discard(seat=0, card="9D"))
    await first.handle(game, seq)
    with pytest.raises(LogConflict):  # a writer that missed `seq` cannot append after it
        await game_log.append(client.js, stale, Batch(cause=later, events=[]))
    await second.handle(game, seq)  # loads the log, finds the command applied, appends nothing
    assert await causes(client, game) == [1, 2, seq]


async def test_two_tables_racing_on_one_game_apply_each_command_once_in_stream_order(nats_server, client):
    game = await opened_game(client)
    tables = [TableService(client.nc, client.js) for _ in range(2)]
    seqs = [await store(client, game, move) for move in (DrawStock(seat=0), Discard(seat=0, card="9D"))]
    # Both are woken by the last command only: each must apply the earlier ones first, once.
    await asyncio.gather(*(table.handle(game, seqs[-1]) for table in tables))
    assert await causes(client, game) == [1, 2, *seqs]


@pytest.mark.long   # whole games on two table instances: `make test-long`
async def test_two_table_instances_play_concurrent_games_exactly_as_one_would(nats_server, client):
    """Each partition is pinned to one instance at a time; when the pin moves (the instances spread the
    partitions), the new holder reads each game's earlier commands from the stream before applying one."""
    tables = [await Services().start(["table"], nats_server.access) for _ in range(2)]
    others = await Services().start(["dealer", "scoring", "intake"], nats_server.access)
    try:
        games, plays = [], []
        for index in range(2):
            game = new_game()
            follower = await client.follow(game)
            await client.send(game, StartGame(game_id=game, players=4))
            rng = random.Random(index)
            games.append((game, follower))
            plays.append(play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(4)}, rng))
        await asyncio.wait_for(asyncio.gather(*plays), timeout=180)
        for game, follower in games:
            await follower.wait_until(lambda f: all(f.state.seeds), timeout=30)
            causes = [b.cause for b in follower.batches]
            assert causes == sorted(set(causes)), "a command was applied twice or out of order"
            logged = [e for b in follower.batches for e in b.events]
            assert logged == await one_table_writes(client, game)
    finally:
        for running in (*tables, others):
            await running.stop()
