"""A whole game through the real services: the log replays, the seeds check out, scores agree."""
import asyncio
import random

import msgspec

from bots import make_bot
from contracts.commands import StartGame
from contracts.log import entries_of
from contracts.scores import Standings
from engine.audit import audit
from engine.replay import fold_log, state_hash
from services.bot_seats import play_seats
from services.topology import STANDINGS
from over_nats import dealer_seeds, new_game, stored_commands, uninterrupted


async def play_greedy_game(client, players: int = 4) -> tuple[str, object]:
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=players))
    rng = random.Random(1)
    await play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(players)}, rng)
    await follower.wait_until(lambda f: all(f.state.seeds))  # the last hand's seed comes after the end
    return game, follower


async def test_a_whole_six_hand_game_plays_over_nats_and_its_log_replays_to_the_live_state(services, client):
    game, follower = await play_greedy_game(client)
    entries = entries_of(follower.batches)
    assert follower.state.game_over and follower.state.hand == 6
    assert state_hash(fold_log(entries)) == state_hash(follower.state)


async def test_every_hand_was_committed_before_play_and_its_revealed_seed_rederives_the_deal(services, client):
    game, follower = await play_greedy_game(client)
    checked = audit(entries_of(follower.batches))
    assert checked.problems == []
    assert checked.verified == [1, 2, 3, 4, 5, 6]


async def test_the_log_holds_exactly_what_the_same_commands_give_in_process(services, client):
    game, follower = await play_greedy_game(client)
    logged = [e for b in follower.batches for e in b.events]
    expected = uninterrupted(await stored_commands(client, game), await dealer_seeds(client, game))
    assert logged == expected


async def test_r17_the_scoring_service_standings_equal_the_totals_folded_from_the_log(services, client):
    game, follower = await play_greedy_game(client)
    kv = await client.js.key_value(STANDINGS)
    for _ in range(100):
        standings = msgspec.json.decode((await kv.get(game)).value, type=Standings)
        if standings.over:
            break
        await asyncio.sleep(0.05)
    assert standings.over
    assert standings.totals == list(follower.state.totals)
    assert standings.winners == list(follower.state.winners)
    assert len(standings.hands) == 6
