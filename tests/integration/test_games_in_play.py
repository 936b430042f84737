"""The register of games in play (services/bus/open_games.py), through the real services: the table
marks a game before it logs its start and unmarks it once it is over; the intake stores a move only
for a game in play, and a start only while its tenant has room for one more."""
import asyncio
import random

import pytest

from gateway_helpers import LAST_HANDS, LAST_STOCK
from over_nats import new_game, stored_commands
from zioncheck.bots import make_bot
from zioncheck.client import CommandRefused
from zioncheck.contracts.commands import Deal, DrawStock, StartGame
from zioncheck.contracts.events import StockDrawn
from zioncheck.services.bus import open_games
from zioncheck.services.bus.topology import DEFAULT_TENANT
from zioncheck.services.wiring import SERVICES, Services


@pytest.fixture
async def no_bots(nats_server):
    running = await Services().start([name for name in SERVICES if name != "bots"], nats_server.access)
    yield running
    await running.stop()


async def test_a_move_for_a_game_never_started_is_refused_and_nothing_is_stored(services, client):
    game = new_game()
    with pytest.raises(CommandRefused) as refused:
        await client.send(game, DrawStock(seat=0))
    assert refused.value.refusal.reason == "no_game"
    assert await stored_commands(client, game) == []


async def test_a_game_is_in_play_from_its_start_to_its_end_and_then_takes_no_more_moves(no_bots, client):
    game = new_game()
    follower = await client.follow(game)
    await follower.outcome(await client.send(game, StartGame(game_id=game, players=2, dealer=0, first_hand=6,
                                                             stacked=True, seats=["person", "person"])))
    assert await open_games.in_play(client.js, game)
    assert await open_games.tenant_games(client.js, DEFAULT_TENANT) >= 1
    await follower.outcome(await client.send(game, Deal(hand=6, hands=LAST_HANDS, stock=LAST_STOCK),
                                             as_dealer=True))
    bot = make_bot("greedy", random.Random(7))
    for _ in range(20):   # seat 0 holds the last contract: a greedy bot's moves take it out
        if follower.state.game_over:
            break
        await follower.outcome(await client.send(game, bot.move(follower.state, follower.state.turn)))
    assert follower.state.game_over
    for _ in range(100):   # unmarked just after the batch that ends it is stored
        if not await open_games.in_play(client.js, game):
            break
        await asyncio.sleep(0.05)
    assert not await open_games.in_play(client.js, game)
    stored = len(await stored_commands(client, game))
    no_bots.by_name["intake"].in_play.seen.clear()   # as an intake that has not seen the game
    with pytest.raises(CommandRefused) as refused:
        await client.send(game, DrawStock(seat=1))
    assert refused.value.refusal.reason == "no_game"
    assert len(await stored_commands(client, game)) == stored


async def test_the_table_heals_a_game_in_play_left_unmarked_and_a_mark_left_on_a_game_over(no_bots, client):
    table = no_bots.by_name["table"]
    game = new_game()
    follower = await client.follow(game)
    await follower.outcome(await client.send(game, StartGame(game_id=game, players=2, seats=["person", "person"])))
    await open_games.mark_over(client.js, game)   # a mark lost, as an operator's purge would lose it
    stray = new_game()
    await open_games.mark_open(client.js, stray)   # a start that was marked and never logged
    await table.heal()
    assert await open_games.in_play(client.js, game)
    assert await open_games.in_play(client.js, stray), "a mark with no log stays for one look (its start may come)"
    await table.heal()
    assert not await open_games.in_play(client.js, stray)


async def test_refusals_past_a_games_fill_are_told_and_not_logged(no_bots, client, monkeypatch):
    from zioncheck.application import turns
    monkeypatch.setattr(turns, "LOGGED_REFUSALS", 3)
    game = new_game()
    follower = await client.follow(game)
    await follower.outcome(await client.send(game, StartGame(game_id=game, players=2, seats=["person", "person"])))
    await follower.wait_until(lambda f: not f.state.hand_over)
    idle = 1 - follower.state.turn   # the seat whose turn it is not
    logged = len(follower.batches)
    outcomes = [await follower.outcome(await client.send(game, DrawStock(seat=idle))) for _ in range(5)]
    assert all(events[0].reason == "not_your_turn" for events in outcomes), "every refusal reaches the sender"
    assert len(follower.batches) == logged + 3, "the log keeps the game's fill of refusals and no more"
    moved = await follower.outcome(await client.send(game, DrawStock(seat=follower.state.turn)))
    assert isinstance(moved[0], StockDrawn) and len(follower.batches) == logged + 4, "the game plays on"
