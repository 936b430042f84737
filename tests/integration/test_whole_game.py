"""A whole game through the real services: the log replays, the seeds check out, scores agree.

One game is played for the whole module; each test checks one thing about it.
"""
import random

import pytest
import pytest_asyncio
from nats_backends import start_nats

from over_nats import new_game, one_table_writes
from zioncheck.application.replay import fold_log, state_hash
from zioncheck.bots import make_bot
from zioncheck.client import GameClient
from zioncheck.contracts.commands import StartGame
from zioncheck.contracts.log import entries_of
from zioncheck.domain.audit import audit
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.wiring import SERVICES, Services

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def played(tmp_path_factory):
    server = start_nats(tmp_path_factory.mktemp("whole-game") / "jetstream")
    services = await Services().start(SERVICES, server.access)
    client = await GameClient.connect(server.access, "operator")
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=4))
    rng = random.Random(1)
    await play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(4)}, rng)
    await follower.wait_until(lambda f: all(f.state.seeds))  # the last hand's seed comes after the end
    yield client, game, follower
    await client.close()
    await services.stop()
    server.stop()


async def test_a_whole_six_hand_game_plays_over_nats_and_its_log_replays_to_the_live_state(played):
    client, game, follower = played
    assert follower.state.game_over and follower.state.hand == 6
    assert state_hash(fold_log(entries_of(follower.batches))) == state_hash(follower.state)


async def test_every_hand_was_committed_before_play_and_its_revealed_seed_rederives_the_deal(played):
    client, game, follower = played
    checked = audit(entries_of(follower.batches))
    assert checked.problems == []
    assert checked.verified == [1, 2, 3, 4, 5, 6]


async def test_the_log_holds_exactly_what_the_same_commands_give_in_process(played):
    client, game, follower = played
    logged = [e for b in follower.batches for e in b.events]
    assert logged == await one_table_writes(client, game)


async def test_r17_the_scoring_service_standings_equal_the_totals_folded_from_the_log(played):
    client, game, follower = played
    standings = await client.final_standings(game)
    assert standings is not None, "the scoring service never declared the game over"
    assert standings.totals == list(follower.state.totals)
    assert standings.winners == list(follower.state.winners)
    assert len(standings.hands) == 6
