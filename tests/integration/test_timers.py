"""R19-R21 through the real services: the table's deadlines come back from the server as commands.

The table's clock is set back, so every deadline it asks for is already due when the server
stores it: the test waits for no time to pass, and the server delivers each timeout at once.
The one test that times a deadline keeps the real clock and the shortest turn_seconds.
"""
import asyncio
import datetime
import random
import time

import pytest

from gateway_helpers import LAST_HANDS, LAST_STOCK, PLATFORM, eventually, gateway, http, keys_file  # noqa: F401
from over_nats import new_game, stored_commands, stored_messages, uninterrupted
from zioncheck.bots import make_bot
from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import Deal, Limits, StartGame
from zioncheck.domain.timers import LIMIT_BOUNDS
from zioncheck.services.bus.log_store import schedule_pending, stalled_games
from zioncheck.services.bus.topology import commands_stream, layout, schedule_subject, stored_command_subject
from zioncheck.services.observability import TIMERS_SCHEDULED
from zioncheck.services.wiring import SERVICES, Services


@pytest.fixture
async def no_bots(nats_server):
    """The services but the bots: every turn of a bot seat waits for its deadline."""
    running = await Services().start([name for name in SERVICES if name != "bots"], nats_server.access)
    yield running
    await running.stop()


def set_back(services, days: int = 1) -> None:
    table = services.by_name["table"]
    table.clock = lambda: datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=days)


async def test_r21_a_game_whose_people_all_stop_moving_is_played_by_bots_then_ends_abandoned(
        services, client):
    set_back(services)
    game = new_game()
    follower = await client.follow(game)
    longest = Limits(turn_seconds=int(LIMIT_BOUNDS["turn_seconds"][1]))
    await client.send(game, StartGame(game_id=game, players=3, seats=["person", "greedy", "person"], limits=longest))
    await follower.wait_until(lambda f: f.state.game_over, timeout=120)
    events = [e for b in follower.batches for e in b.events]
    assert {e.seat for e in events if isinstance(e, ev.SeatIdle)} == {0, 2}            # R20: both people away
    assert isinstance(events[-2], ev.GameAbandoned) and isinstance(events[-1], ev.GameEnded)
    assert follower.state.abandoned
    await follower.wait_until(lambda f: all(f.state.seeds), timeout=30)   # the hand cut short is checkable too
    standings = await client.final_standings(game)
    assert standings is not None and standings.over and standings.abandoned


async def test_r19_timeouts_arrive_from_the_games_own_schedule_and_replay_exactly(no_bots, client):
    set_back(no_bots)
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=2, dealer=0, first_hand=6, stacked=True,
                                      seats=["greedy", "person"]))
    # Seat 0 plays first (seat 1 deals hand 6) and holds its contract: the bot playing its turn goes out.
    await client.send(game, Deal(hand=6, hands=LAST_HANDS, stock=LAST_STOCK), as_dealer=True)
    await follower.wait_until(lambda f: f.state.game_over, timeout=60)
    p = (await layout(client.js)).of(game)
    fired = await stored_messages(client, commands_stream(p), stored_command_subject(p, game, "timer"))
    assert fired and all(m.headers["Nats-Scheduler"] == schedule_subject(p, game) for m in fired)
    logged = [e for b in follower.batches for e in b.events]
    assert isinstance(logged[2], ev.TurnTimedOut) and logged[2].seat == 0
    assert follower.state.winners == (0,)
    assert logged == uninterrupted(await stored_commands(client, game), {})


async def test_r21_the_games_list_says_abandoned_not_whose_turn_it_was(services, gateway, http):  # noqa: F811
    set_back(services)
    created = await http.post("/games", json={"players": 2, "seats": ["person", "person"]}, headers=PLATFORM)
    game = created.json()["game_id"]
    listed = await eventually(lambda: http.get("/games"), lambda response: any(
        g["game_id"] == game and g["status"] == "abandoned" for g in response.json()), timeout=60)
    [summary] = [g for g in listed.json() if g["game_id"] == game]
    assert summary["game_over"] and summary["abandoned"] and summary["idle"] == [0, 1]


async def test_r19_a_deadline_moved_later_keeps_its_schedule_and_the_timeout_still_comes_on_time(no_bots, client):
    """Turns quicker than turn_seconds cost no schedule each: the one set comes early, is stale, and
    sets the schedule again for the turn then playing, which times out turn_seconds after it began;
    also when the table that comes to it has lost its notes (a restart: counted from the stored batch)."""
    table = no_bots.by_name["table"]
    game, seconds = new_game(), int(LIMIT_BOUNDS["turn_seconds"][0])
    follower = await client.follow(game)
    scheduled = TIMERS_SCHEDULED._value.get()
    await client.send(game, StartGame(game_id=game, players=2, seats=["person", "person"],
                                      limits=Limits(turn_seconds=seconds)))
    await follower.wait_until(lambda f: not f.state.hand_over)
    bot, turns = make_bot("greedy", random.Random(7)), 0
    for _ in range(40):
        if turns >= 6:
            break
        state = follower.state
        seq = await client.send(game, bot.move(state, state.turn))
        await follower.outcome(seq)
        turns = follower.state.turn_no - 1
    began = follower.arrived[max(follower.arrived)]   # the batch that began the turn now playing
    table.games.clear()   # the table's notes lost, as after a restart
    await follower.wait_until(lambda f: any(isinstance(e, ev.TurnTimedOut) for b in f.batches for e in b.events),
                              timeout=4 * seconds)
    timed_out = follower.arrived[max(follower.arrived)] - began
    [late] = [e for b in follower.batches for e in b.events if isinstance(e, ev.TurnTimedOut)]
    assert late.turn == turns + 1                       # the turn left waiting, not one played in time
    assert seconds - 1 <= timed_out <= seconds + 3      # on its own deadline (schedules are whole seconds)
    assert TIMERS_SCHEDULED._value.get() - scheduled < turns   # not one schedule a turn


async def test_r19_a_game_whose_schedule_was_lost_has_it_set_again_and_times_out(no_bots, client):
    """The table does not trust its memory of a pending schedule: its look over the store finds a game
    whose log calls for a deadline and that has none pending, and sets it again."""
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=2, dealer=1, stacked=True,
                                      limits=Limits(turn_seconds=int(LIMIT_BOUNDS["turn_seconds"][0]))))
    await client.send(game, Deal(hand=1, hands=[["AS", "2S", "9D"], ["3S", "4S", "9C"]], stock=["5S", "6S", "7S"]),
                      as_dealer=True)
    await follower.wait_until(lambda f: f.state.hand == 1)
    where = await layout(client.js)
    p = where.of(game)
    for _ in range(100):   # the table sets the turn's deadline with the deal's batch
        if await schedule_pending(client.js, p, game):
            break
        await asyncio.sleep(0.05)
    await client.js.purge_stream(commands_stream(p), subject=schedule_subject(p, game))   # the schedule is lost
    later = time.time() + 60   # past the turn's deadline
    assert game in await stalled_games(client.js, later), "zioncheck games shows it as stalled"
    table = no_bots.by_name["table"]
    assert game in await table.heal()
    assert game not in await stalled_games(client.js, later)
    assert await table.heal() == [], "a schedule pending now: nothing to set again"
    await follower.wait_until(lambda f: any(isinstance(e, ev.TurnTimedOut) for b in f.batches for e in b.events),
                              timeout=30)
