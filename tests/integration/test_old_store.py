"""A store written before partitions (tests/fixtures/store-v1.tar.gz, made by tests/fixtures/make_store_v1.py)
opens with the partitioned layout and tenants after `zioncheck migrate`: its finished game replays to
the same hash and is read where its tenant reads it, and its live game, left in hand 2, plays on to its
end exactly as one table would play it."""
import asyncio
import json
import random
import subprocess
import sys
import tarfile
from pathlib import Path

import msgspec
import pytest
from nats_backends import start_nats

from over_nats import one_table_writes
from zioncheck.application.replay import state_hash
from zioncheck.bots import make_bot
from zioncheck.client import GameClient
from zioncheck.contracts import events as ev
from zioncheck.contracts.feed import decode_feed_batch
from zioncheck.domain import GameState, fold
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus import log_store
from zioncheck.services.bus.log_store import read_batches
from zioncheck.services.bus.topology import DERIVED, FEED, feed_subject, off_the_synced_path
from zioncheck.services.wiring import SERVICES, Services

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def shown_aside(events: list) -> list:
    """The events, each hand's end without the cards it showed (R15, R23): a log written before hand ends
    showed them holds none, while its commands decided again show them."""
    return [msgspec.structs.replace(e, hands=[]) if isinstance(e, ev.HandEnded) else e for e in events]


def migrate(server) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zioncheck.cli.main", "migrate", *server.cli_args],
                          capture_output=True, text=True, timeout=120)


# The two games in one partition (played to the end), then in two: a whole store moved, `make test-long`.
@pytest.mark.long
@pytest.mark.parametrize("partitions", [2, 3])
async def test_a_store_from_before_partitions_is_moved_and_its_games_replay_and_play_on(
        tmp_path, monkeypatch, partitions):
    monkeypatch.setenv("ZIONCHECK_PARTITIONS", str(partitions))
    facts = json.loads((FIXTURES / "store-v1.json").read_text())
    with tarfile.open(FIXTURES / "store-v1.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    server = start_nats(tmp_path / "jetstream")
    client = None
    try:
        moved = migrate(server)
        assert moved.returncode == 0, moved.stderr
        assert f"moved {facts['finished']}: " in moved.stdout and f"moved {facts['live']}: " in moved.stdout
        client = await GameClient.connect(server.access, "operator")
        for derived in DERIVED:   # synced in the old store: made again off the synced path, written again
            assert off_the_synced_path((await client.js.stream_info(derived)).config), derived
        # Written before tenants too: its games are the default tenant's, read where a tenant reads them.
        assert "2 games of the store before tenants are the platform tenant's" in moved.stdout
        feed = await client.js.get_msg(FEED, subject=feed_subject(facts["finished"]), direct=True)
        assert decode_feed_batch(feed.data).seq == facts["finished_batches"]
        assert not await log_store.subject_counts(client.js, FEED, "zc.feed.*"), "the old feed is purged"
        finished_standings = await client.final_standings(facts["finished"])
        assert finished_standings is not None and finished_standings.over

        finished = [batch for _, batch in await read_batches(client.js, facts["finished"])]
        assert len(finished) == facts["finished_batches"]
        assert state_hash(fold(GameState(), [e for b in finished for e in b.events])) == facts["finished_hash"]

        services = await Services().start(SERVICES, server.access)
        try:
            follower = await client.follow(facts["live"])
            assert len(follower.batches) == facts["live_batches"] and follower.state.hand == facts["live_hand"]
            rng = random.Random(1)
            playing = asyncio.create_task(play_seats(client, follower, {s: make_bot("greedy", rng)
                                                                        for s in range(2)}, rng))
            game = facts["live"]
            if partitions == 2:   # to its end
                await playing
                await follower.wait_until(lambda f: all(f.state.seeds), timeout=60)
                assert follower.state.game_over
                standings = await client.final_standings(game)
                assert standings is not None and standings.totals == list(follower.state.totals)
            else:   # the hand it was left in, to the next one's deal
                await follower.wait_until(lambda f: f.state.hand > facts["live_hand"] and not f.state.hand_over,
                                          timeout=120)
                playing.cancel()
                await asyncio.gather(playing, return_exceptions=True)
            for _ in range(50):   # the commands sent last are logged a moment after they were stored
                logged = [e for b in follower.batches for e in b.events]
                if shown_aside(logged) == shown_aside(await one_table_writes(client, game)):
                    break
                await asyncio.sleep(0.1)
            assert shown_aside(logged) == shown_aside(await one_table_writes(client, game))
            again = [batch for _, batch in await read_batches(client.js, facts["finished"])]
            assert again == finished, "no service handled the moved history again"
        finally:
            await services.stop()
        twice = migrate(server)
        assert twice.returncode == 2 and "holds" in twice.stderr and "\n" not in twice.stderr.strip()
    finally:
        if client is not None:
            await client.close()
        server.stop()
