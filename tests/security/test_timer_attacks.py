"""The server's timers (R19-R21): only the table sets a game's deadline, and only the game's own
schedule delivers a timeout. Tried as each role against a real server with the shipped permissions.
"""
import asyncio
import datetime

import pytest
from nats.errors import TimeoutError as NatsTimeout
from nats.js.errors import NotFoundError

from over_nats import stacked_game
from zioncheck.contracts.commands import DrawStock, TurnTimeout
from zioncheck.contracts.intake import Refused, decode_reply
from zioncheck.contracts.log import encode
from zioncheck.services.bus.access import ROLES
from zioncheck.services.bus.topology import (
    commands_stream,
    intake_subject,
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
    with pytest.raises(NatsTimeout):
        await attacker.js.publish(stored, encode(TurnTimeout(hand=1, turn=follower.state.turn_no)))
    assert await attacker.refused(stored)


@pytest.mark.parametrize("user", ["platform", "gateway", "bots"])
async def test_no_client_puts_a_schedule_in_the_commands_stream(services, client, login, user):
    """The commands stream allows schedules (the table's own live there). A client hands its commands to
    the intake, which stores none of the headers a request carries: a schedule aimed at the timer's or
    the dealer's subject is stored as a plain command, and no timeout or deal ever fires from it."""
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    attacker = await login(user)
    p = (await layout(client.js)).of(game)
    for target in ("timer", "dealer"):
        headers = schedule_headers(p, game, now()) | {"Nats-Schedule-Target": stored_command_subject(p, game, target)}
        reply = decode_reply((await attacker.nc.request(intake_subject(game), encode(DrawStock(seat=1)),
                                                        timeout=5, headers=headers)).data)
        stored = await client.js.get_msg(commands_stream(p), seq=reply.seq)
        assert not any(name.startswith("Nats-Schedule") for name in stored.headers or {}), stored.headers
    await asyncio.sleep(1.5)   # a schedule "@at now" would have fired by now
    with pytest.raises(NotFoundError):
        await client.js.get_msg(commands_stream(p), subject=stored_command_subject(p, game, "timer"))
    deal = await client.js.get_msg(commands_stream(p), subject=stored_command_subject(p, game, "dealer"))
    assert "Nats-Scheduler" not in (deal.headers or {}), "the last dealer command is the stacked deal itself"
    assert follower.state.turn == 0 and not follower.state.drawn   # the game waits on its seats, untouched


async def test_a_client_cannot_forge_the_servers_mark_of_a_schedule(services, client, login):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    attacker = await login("platform")
    p = (await layout(client.js)).of(follower.game)
    reply = decode_reply((await attacker.nc.request(
        intake_subject(follower.game), encode(TurnTimeout(hand=1, turn=1)), timeout=5,
        headers={"Nats-Scheduler": schedule_subject(p, follower.game)})).data)
    assert isinstance(reply, Refused) and "only the game's timer" in reply.rejected.detail


async def test_a_store_from_before_timers_gets_schedules_on_and_says_so(nats_server, client):
    """A commands stream made before the server's timers gains their subject and schedules, said once."""
    from nats.js.api import StreamConfig

    from zioncheck.services.wiring import prepare_topology
    stream = commands_stream(0)
    await client.js.add_stream(StreamConfig(name=stream, subjects=[stored_command_subject(0, "*", "*")]))
    changes, _ = await prepare_topology(nats_server.access)
    assert any(line.startswith(f"{stream}: ") and "allow_msg_schedules True" in line for line in changes), changes
    config = (await client.js.stream_info(stream)).config
    assert config.allow_msg_schedules and schedule_subject(0, "*") in config.subjects
    assert (await prepare_topology(nats_server.access))[0] == [], "a second start changes nothing"
