"""The server's timers (R19-R21): only the table sets a game's deadline, and only the game's own
schedule delivers a timeout. Tried as each role against a real server with the shipped permissions.
"""
import datetime

import pytest
from attacker import Attacker
from nats.errors import TimeoutError as NatsTimeout

from over_nats import stacked_game
from zioncheck.contracts.commands import Deal, TurnTimeout
from zioncheck.contracts.events import Rejected, TurnTimedOut
from zioncheck.contracts.log import encode
from zioncheck.services.bus.access import ROLES
from zioncheck.services.bus.topology import COMMANDS, command_subject, schedule_headers, schedule_subject

pytestmark = pytest.mark.security

HANDS = [["AS", "2S", "9D"], ["3S", "4S", "9C"]]
STOCK = ["5S", "6S", "7S"]
NOT_THE_TABLE = [role for role in ROLES if role not in ("operator", "table")]


@pytest.fixture
async def login(nats_server):
    made = []

    async def as_user(user: str) -> Attacker:
        made.append(await Attacker.login(nats_server.access, user))
        return made[-1]

    yield as_user
    for attacker in made:
        await attacker.close()


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("user", NOT_THE_TABLE)
async def test_only_the_table_sets_a_games_deadline(services, client, login, user):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    attacker = await login(user)
    timeout = TurnTimeout(hand=1, turn=follower.state.turn_no)
    with pytest.raises(NatsTimeout):
        await attacker.js.publish(schedule_subject(game), encode(timeout), headers=schedule_headers(game, now()))
    assert await attacker.refused(schedule_subject(game))


@pytest.mark.parametrize("user", [*NOT_THE_TABLE, "table"])
async def test_nobody_sends_a_timeout_but_the_server_itself(services, client, login, user):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    attacker = await login(user)
    with pytest.raises(NatsTimeout):
        await attacker.js.publish(command_subject(follower.game, "timer"),
                                  encode(TurnTimeout(hand=1, turn=follower.state.turn_no)))
    assert await attacker.refused(command_subject(follower.game, "timer"))


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
    headers = schedule_headers(game, now()) | {"Nats-Schedule-Target": command_subject(game, target)}
    await attacker.js.publish(command_subject(game), encode(command), headers=headers)
    await follower.wait_until(lambda f: any(
        isinstance(e, Rejected) and e.detail.startswith(refusal) for b in f.batches for e in b.events),
        timeout=10)
    fired = await client.js.get_msg(COMMANDS, subject=command_subject(game, target))
    assert fired.headers["Nats-Scheduler"] == command_subject(game)   # the server's mark, not the attacker's
    events = [e for b in follower.batches for e in b.events]
    assert not any(isinstance(e, TurnTimedOut) for e in events) and follower.state.hand == 1
    assert follower.state.turn == 0 and not follower.state.drawn   # the game waits on its seats, untouched


async def test_a_client_cannot_forge_the_servers_mark_of_a_schedule(services, client, login):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    attacker = await login("platform")
    with pytest.raises(Exception):  # noqa: B017 - the server answers "invalid scheduler"
        await attacker.js.publish(command_subject(follower.game), encode(TurnTimeout(hand=1, turn=1)),
                                  headers={"Nats-Scheduler": schedule_subject(follower.game)})


async def test_a_store_from_before_timers_gets_schedules_on_and_says_so(nats_server, client):
    """A commands stream made before the server's timers gains their subject and schedules, said once."""
    from nats.js.api import StreamConfig

    from zioncheck.services.wiring import prepare_topology
    await client.js.add_stream(StreamConfig(name=COMMANDS, subjects=["zc.cmd.*.*"]))
    changes = await prepare_topology(nats_server.access)
    assert f"{COMMANDS}: message schedules on, so a turn's deadline comes back as a command" in changes, changes
    assert any("zc.timer.*" in line for line in changes)
    config = (await client.js.stream_info(COMMANDS)).config
    assert config.allow_msg_schedules and "zc.timer.*" in config.subjects
    assert await prepare_topology(nats_server.access) == [], "a second start changes nothing"
