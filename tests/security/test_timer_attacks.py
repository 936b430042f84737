"""The server's timers (R19-R21): only the table sets a game's deadline, and only the game's own
schedule delivers a timeout. Tried as each role against a real server with the shipped permissions.
"""
import datetime

import pytest
from nats.errors import TimeoutError as NatsTimeout

from over_nats import stacked_game
from zioncheck.contracts.commands import Deal, TurnTimeout
from zioncheck.contracts.events import Rejected, TurnTimedOut
from zioncheck.contracts.log import encode
from zioncheck.services.bus.access import ROLES
from zioncheck.services.bus.topology import (
    command_subject,
    commands_stream,
    layout,
    schedule_headers,
    schedule_subject,
    stored_command_subject,
)

pytestmark = pytest.mark.security

HANDS = [["AS", "2S", "9D"], ["3S", "4S", "9C"]]
STOCK = ["5S", "6S", "7S"]
NOT_THE_TABLE = [role for role in ROLES if role not in ("operator", "table")]


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("user", NOT_THE_TABLE)
async def test_only_the_table_sets_a_games_deadline(services, client, login, user):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    attacker = await login(user)
    p = (await layout(client.js)).of(game)
    timeout = TurnTimeout(hand=1, turn=follower.state.turn_no)
    with pytest.raises(NatsTimeout):
        await attacker.js.publish(schedule_subject(p, game), encode(timeout), headers=schedule_headers(p, game, now()))
    assert await attacker.refused(schedule_subject(p, game))


@pytest.mark.parametrize("user", [*NOT_THE_TABLE, "table"])
async def test_nobody_sends_a_timeout_but_the_server_itself(services, client, login, user):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    attacker = await login(user)
    stored = stored_command_subject((await layout(client.js)).of(follower.game), follower.game, "timer")
    for subject in (command_subject(follower.game, "timer"), stored):   # as published, and as stored
        with pytest.raises(NatsTimeout):
            await attacker.js.publish(subject, encode(TurnTimeout(hand=1, turn=follower.state.turn_no)))
        assert await attacker.refused(stored)   # the server checks a publish as its mapping stores it
        attacker.errors.clear()


@pytest.mark.parametrize("target, command, refusal", [
    ("timer", TurnTimeout(hand=1, turn=1), "a timeout the game's own timer did not deliver"),
    ("dealer", Deal(hand=2, hands=[["AS"], ["2S"]], stock=[]), "delivered by a schedule on"),
])
async def test_a_platforms_own_schedule_delivers_neither_a_timeout_nor_a_deal(
        services, client, login, target, command, refusal):
    """The commands stream allows schedules (the table's own live there), so a platform may publish
    one on its seat subject, aimed at the timer's or the dealer's: the server delivers it marked
    with the schedule it came from, and the table refuses it."""
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    attacker = await login("platform")
    p = (await layout(client.js)).of(game)
    headers = schedule_headers(p, game, now()) | {"Nats-Schedule-Target": stored_command_subject(p, game, target)}
    await attacker.js.publish(command_subject(game), encode(command), headers=headers)
    await follower.wait_until(lambda f: any(
        isinstance(e, Rejected) and e.detail.startswith(refusal) for b in f.batches for e in b.events),
        timeout=10)
    fired = await client.js.get_msg(commands_stream(p), subject=stored_command_subject(p, game, target))
    assert fired.headers["Nats-Scheduler"] == stored_command_subject(p, game, "play")   # the server's mark
    events = [e for b in follower.batches for e in b.events]
    assert not any(isinstance(e, TurnTimedOut) for e in events) and follower.state.hand == 1
    assert follower.state.turn == 0 and not follower.state.drawn   # the game waits on its seats, untouched


async def test_a_client_cannot_forge_the_servers_mark_of_a_schedule(services, client, login):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    attacker = await login("platform")
    p = (await layout(client.js)).of(follower.game)
    with pytest.raises(Exception):  # noqa: B017 - the server answers "invalid scheduler"
        await attacker.js.publish(command_subject(follower.game), encode(TurnTimeout(hand=1, turn=1)),
                                  headers={"Nats-Scheduler": schedule_subject(p, follower.game)})


async def test_a_store_from_before_timers_gets_schedules_on_and_says_so(nats_server, client):
    """A commands stream made before the server's timers gains their subject and schedules, said once."""
    from nats.js.api import StreamConfig

    from zioncheck.services.wiring import prepare_topology
    stream = commands_stream(0)
    await client.js.add_stream(StreamConfig(name=stream, subjects=[stored_command_subject(0, "*", "*")]))
    changes, _ = await prepare_topology(nats_server.access)
    assert any(line.startswith(f"{stream}: subjects ") and line.endswith(
        "message schedules on, so a turn's deadline comes back as a command") for line in changes), changes
    config = (await client.js.stream_info(stream)).config
    assert config.allow_msg_schedules and schedule_subject(0, "*") in config.subjects
    assert (await prepare_topology(nats_server.access))[0] == [], "a second start changes nothing"
