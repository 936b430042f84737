"""Each attack a security review tried, tried again as the role that would try it, against a real
nats-server running the shipped users and permissions with the services up. NATS or the service
must refuse it, and the game must go on untouched.
"""
import asyncio
import os
import stat

import msgspec
import nats
import pytest
from attacker import REFUSED
from nats.errors import TimeoutError as NatsTimeout
from nats.js.errors import KeyNotFoundError

from over_nats import new_game, stacked_game, views_stored
from zioncheck.client import CommandRefused, GameClient, read_view
from zioncheck.contracts.commands import Deal, DrawStock, StartGame
from zioncheck.contracts.dealer import ReshuffleRefused, ReshuffleRequest
from zioncheck.contracts.events import HandDealt, Rejected
from zioncheck.contracts.intake import Refused, decode_reply
from zioncheck.contracts.log import Batch, encode
from zioncheck.contracts.views import decode_public_view
from zioncheck.services.bus.topology import (
    LOG,
    RESHUFFLE,
    SEEDS,
    VIEWS,
    commands_stream,
    intake_subject,
    kv_stream,
    layout,
    live_subject,
    log_stream,
    public_view_key,
    rejected_subject,
    seat_view_key,
    stored_command_subject,
)
from zioncheck.services.observability import DROPPED

pytestmark = pytest.mark.security

HANDS = [["AS", "2S", "9D"], ["3S", "4S", "9C"]]
STOCK = ["5S", "6S", "7S"]
OUTSIDERS = ("platform", "spectator", "gateway", "bots", "intake")   # logins that must never write the log


async def dealt_game(client) -> str:
    """A game the dealer service dealt, waiting for its first move."""
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=2))
    await follower.wait_until(lambda f: f.state.hand == 1 and not f.state.hand_over)
    await follower.stop()
    await views_stored(client, game)
    return game


async def log_of(client, game: str) -> list[Batch]:
    from zioncheck.services.bus.log_store import read_batches
    return [batch for _, batch in await read_batches(client.js, game)]


async def test_a_connection_without_credentials_is_refused(nats_server):
    errors = []

    async def heard(error):
        errors.append(str(error))

    # nats-py raises its base Error carrying the server's -ERR, not AuthorizationError, when CONNECT is refused
    with pytest.raises(nats.errors.Error, match="(?i)authorization violation"):
        await nats.connect(nats_server.url, error_cb=heard, allow_reconnect=False, max_reconnect_attempts=0,
                           connect_timeout=2)
    assert any("Authorization" in e for e in errors)


async def test_the_embedded_servers_logins_are_readable_by_their_owner_only(nats_server):
    folder = nats_server.credentials
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    files = list(folder.glob("*.json"))
    assert {f.stem for f in files} >= {"table", "dealer", "platform", "spectator", "operator"}
    assert all(stat.S_IMODE(os.stat(f).st_mode) == 0o600 for f in files)
    config = next(nats_server.credentials.parent.glob("nats-*.conf"))
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600


@pytest.mark.parametrize("user", ["platform", "spectator"])
async def test_players_and_spectators_cannot_read_hidden_cards_in_the_log_or_its_live_copy(
        services, client, login, user):
    attacker = await login(user)
    heard = []
    for subject in ("zc.log.>", "zc.live.>"):
        async def hear(msg) -> None:
            heard.append(msg)

        await attacker.nc.subscribe(subject, cb=hear)
    game = await dealt_game(client)
    await asyncio.sleep(0.3)
    assert heard == [], "a hidden card reached a player"
    assert await attacker.refused("zc.live.>") and await attacker.refused("zc.log.>")
    where = await layout(client.js)
    with pytest.raises(NatsTimeout):  # a direct read of the log
        await attacker.js.get_msg(where.log_stream(game), seq=1, subject=where.log_subject(game))
    with pytest.raises(NatsTimeout):  # a consumer on the log
        await attacker.js.subscribe(where.log_subject(game), stream=where.log_stream(game), ordered_consumer=True)
    with pytest.raises(NatsTimeout):  # a batched direct get, as the services read a whole log
        await attacker.nc.request(f"$JS.API.DIRECT.GET.{where.log_stream(game)}",
                                  f'{{"seq": 1, "next_by_subj": "{where.log_subject(game)}", "batch": 100}}'.encode(),
                                  timeout=REFUSED)


async def test_nobody_but_the_dealer_reads_or_writes_the_seeds_before_their_reveal(services, client, login):
    game = await dealt_game(client)
    for user in ("platform", "spectator", "gateway", "bots", "table", "projector", "scoring"):
        attacker = await login(user)
        key = f"$KV.{SEEDS}.{game}.1"
        with pytest.raises(NatsTimeout):
            await attacker.nc.request(f"$JS.API.DIRECT.GET.{kv_stream(SEEDS)}.{key}", b"", timeout=REFUSED)
        await attacker.nc.publish(f"$KV.{SEEDS}.{game}.2", b"0" * 64)  # the next hand's seed, forged
        assert await attacker.refused(f"$KV.{SEEDS}"), user
    seeds = await client.js.key_value(SEEDS)
    with pytest.raises(KeyNotFoundError):  # no seed for hand 2 yet: nobody wrote one
        await seeds.get(f"{game}.2")


@pytest.mark.parametrize("user", OUTSIDERS)
async def test_only_the_table_appends_to_a_games_log(services, client, login, user):
    game = await dealt_game(client)
    before = await log_of(client, game)
    attacker = await login(user)
    forged = Batch(cause=10**9, events=[Rejected(seat=0, command="x", reason="bad_command", detail="forged")])
    with pytest.raises(NatsTimeout):
        await attacker.js.publish((await layout(client.js)).log_subject(game, "hand"), encode(forged))
    assert await attacker.refused("zc.log.")
    assert await log_of(client, game) == before
    # and the game goes on: the forged cause stopped nothing
    follower = await client.follow(game)
    first = follower.state.turn
    [drawn] = await follower.outcome(await client.send(game, DrawStock(seat=first)))
    assert drawn.seat == first


async def test_a_role_header_gives_no_authority_and_only_the_dealer_publishes_dealer_commands(
        services, client, login):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    attacker = await login("platform")
    deal = encode(Deal(hand=2, hands=[["AS"], ["2S"]], stock=[]))
    reply = decode_reply((await attacker.nc.request(intake_subject(follower.game), deal, timeout=5,
                                                    headers={"Zc-Role": "dealer"})).data)
    assert isinstance(reply, Refused) and reply.reason == "bad_command"
    assert reply.rejected.detail.startswith("only the dealer")
    where = await layout(client.js)
    with pytest.raises(NatsTimeout):
        await attacker.js.publish(stored_command_subject(where.of(follower.game), follower.game, "dealer"), deal)
    assert await attacker.refused(f"{follower.game}.dealer")


async def test_nobody_but_the_projector_writes_views(services, client, login):
    game = await dealt_game(client)
    views = await client.js.key_value(VIEWS)
    await asyncio.sleep(0.3)
    before = (await views.get(public_view_key(game))).value
    for user in ("platform", "spectator", "gateway", "bots"):
        attacker = await login(user)
        await attacker.nc.publish(f"$KV.{VIEWS}.{public_view_key(game)}", b'{"seq": 999999999}')
        assert await attacker.refused(f"$KV.{VIEWS}"), user
    assert (await views.get(public_view_key(game))).value == before


async def test_a_game_cannot_be_started_on_another_games_subject(services, client, login):
    victim = await dealt_game(client)
    attacker = await login("platform")
    intruder = new_game()
    reply = decode_reply((await attacker.nc.request(intake_subject(intruder),
                                                    encode(StartGame(game_id=victim, players=5)), timeout=5)).data)
    assert isinstance(reply, Refused) and reply.reason == "bad_command" and victim in reply.detail
    await asyncio.sleep(0.3)
    view = decode_public_view((await (await client.js.key_value(VIEWS)).get(public_view_key(victim))).value)
    assert view.players == 2


async def test_only_the_table_asks_for_reshuffles_and_only_when_one_is_due(services, client, login):
    game = await dealt_game(client)
    platform = await login("platform")
    ask = encode(ReshuffleRequest(game_id=game, hand=1, reshuffle=1, count=40))
    with pytest.raises(NatsTimeout):
        await platform.nc.request(RESHUFFLE, ask, timeout=REFUSED)
    assert await platform.refused(RESHUFFLE)
    table = await login("table")  # even the table's own login gets no order that is not due
    nowhere = new_game()
    for request in (ReshuffleRequest(game_id=game, hand=1, reshuffle=1, count=3_000_000),
                    ReshuffleRequest(game_id=nowhere, hand=1, reshuffle=1, count=10),
                    ReshuffleRequest(game_id=game, hand=2, reshuffle=1, count=1),
                    ReshuffleRequest(game_id="*", hand=1, reshuffle=1, count=1)):
        reply = await table.nc.request(RESHUFFLE, encode(request), timeout=5)
        answer = msgspec.json.decode(reply.data, type=ReshuffleRefused)
        assert answer.reason
    seeds = await client.js.key_value(SEEDS)
    assert [key async for key in _keys(seeds) if key.startswith(nowhere)] == [], "a seed made for no game"


async def _keys(kv):
    try:
        for key in await kv.keys():
            yield key
    except Exception:  # noqa: BLE001 - no keys at all
        return


@pytest.mark.parametrize("subject", [live_subject("{game}", "hand"), rejected_subject("{game}")])
async def test_nobody_publishes_on_the_subjects_followers_trust(services, client, login, subject):
    game = await dealt_game(client)
    for user in OUTSIDERS:
        attacker = await login(user)
        over = Batch(cause=1, events=[Rejected(seat=0, command="x", reason="bad_command", detail="forged")])
        await attacker.nc.publish(subject.format(game=game), encode(over), headers={"Zc-Batch": "2",
                                                                                    "Nats-Stream": f"{LOG}_0"})
        assert await attacker.refused(subject.format(game=game)), user


async def test_a_follower_folds_only_what_the_log_stream_stored(services, client):
    game = await dealt_game(client)
    follower = await client.follow(game)
    known = len(follower.batches)
    fake = Batch(cause=1, events=[Rejected(seat=0, command="x", reason="bad_command", detail="fake")])
    # Even a login that may publish anywhere cannot pass a batch off as stored without the server's header.
    await client.nc.publish(live_subject(game, "move"), encode(fake), headers={"Zc-Batch": str(known + 1)})
    await asyncio.sleep(0.3)
    assert len(follower.batches) == known
    await follower.stop()


POISON = [b"", b"[" * 30_000 + b"]" * 30_000, b'{"type": "draw_stock", "seat": 0, "x": "' + b"a" * 20_000 + b'"}',
          b"{" * 9 + b"}" * 9, b"\xff\xfe",
          b'{"type": "draw_stock", "seat": 0, "pad": "' + b"a" * 16_000 + b'"}']   # 16 KB: a field none declares


async def test_no_message_can_stop_a_game_and_none_the_intake_cannot_read_is_stored(
        services, client, login, nats_server):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    platform = await GameClient.connect(nats_server.access, "platform")
    where = await layout(client.js)
    before = (await client.js.stream_info(where.commands_stream(follower.game))).state.last_seq
    for data in POISON:
        with pytest.raises(CommandRefused) as refused:
            await platform.send(follower.game, data)
        assert refused.value.refusal.reason == "bad_command" and refused.value.refusal.rejected.reason == "bad_command"
    for game in ("*", "x" * 65, "a>b"):   # no game id: a wildcard, too long, not one token's letters
        with pytest.raises(CommandRefused, match="bad_game"):
            await platform.send(game, DrawStock(seat=0))
    assert (await client.js.stream_info(where.commands_stream(follower.game))).state.last_seq == before
    [drawn] = await follower.outcome(await client.send(follower.game, DrawStock(seat=0)))
    assert drawn.card == "5S", "the game went on after every poison message"
    await platform.close()


async def test_poison_read_back_from_the_stream_after_a_restart_is_refused_not_retried(nats_server, client):
    """Only the intake stores seats' commands, and it stores none it cannot read: this takes the operator's
    login (an old store, or a bug), and the table must still refuse such a command, once."""
    from zioncheck.services.wiring import Services
    running = await Services().start(["table", "intake"], nats_server.access)
    follower = await stacked_game(client, 2, HANDS, STOCK)
    await running.stop()  # no table: the commands wait in the stream
    subject = stored_command_subject((await layout(client.js)).of(follower.game), follower.game, "play")
    first = (await client.js.publish(subject, b"")).seq
    await client.js.publish(subject, b"[" * 5000 + b"]" * 5000)
    draw = (await client.js.publish(subject, encode(DrawStock(seat=0)))).seq
    running = await Services().start(["table"], nats_server.access)
    try:
        [drawn] = await follower.outcome(draw)
        assert drawn.card == "5S"
        assert follower.outcomes[first][0].reason == "bad_command"
    finally:
        await running.stop()


@pytest.mark.parametrize("user", ["spectator", "platform"])
async def test_a_spectator_reads_public_views_only_and_a_platform_every_seat(services, client, login, user):
    game = await dealt_game(client)
    await asyncio.sleep(0.3)
    attacker = await login(user)
    assert decode_public_view(await read_view(attacker.nc, public_view_key(game))).game_id == game
    if user == "spectator":
        with pytest.raises(NatsTimeout):
            await read_view(attacker.nc, seat_view_key(game, 0), timeout=REFUSED)
        for api in ("STREAM.MSG.GET", "DIRECT.GET"):   # nor by a get that names the key in its body
            with pytest.raises(NatsTimeout):
                await attacker.nc.request(f"$JS.API.{api}.{kv_stream(VIEWS)}", b'{"last_by_subj": "x"}',
                                          timeout=REFUSED)
    else:
        assert await read_view(attacker.nc, seat_view_key(game, 0))


@pytest.mark.parametrize("user", OUTSIDERS + ("table", "dealer", "scoring", "projector"))
async def test_no_service_or_client_changes_or_removes_a_stream(nats_server, services, login, user):
    attacker = await login(user)
    where = await layout(attacker.js) if user != "platform" and user != "spectator" else None
    partitions = where.partitions if where else 2
    calls = ["STREAM.CREATE.EVIL", "CONSUMER.UNPIN.ZC_COMMANDS_0.zc-tables",
             "CONSUMER.RESET.ZC_COMMANDS_0.zc-tables"] * (user != "table")
    for p in range(partitions):
        calls += [f"STREAM.UPDATE.{log_stream(p)}", f"STREAM.DELETE.{log_stream(p)}",
                  f"STREAM.PURGE.{commands_stream(p)}", f"CONSUMER.DELETE.{commands_stream(p)}.zc-tables"]
    if user == "table":  # the table may drop its own consumer; it is recreated on start
        calls = [call for call in calls if not call.startswith("CONSUMER.DELETE")]
    answers = await asyncio.gather(*(attacker.nc.request(f"$JS.API.{call}", b"{}", timeout=REFUSED)
                                     for call in calls), return_exceptions=True)   # all at once: one wait
    answered = [call for call, answer in zip(calls, answers, strict=True) if not isinstance(answer, NatsTimeout)]
    assert answered == [], f"{user} was answered on {answered}"


async def test_starting_services_never_changes_an_existing_streams_config(nats_server, client):
    from zioncheck.services.wiring import SERVICES, Services
    running = await Services().start(SERVICES, nats_server.access)
    await running.stop()
    info = await client.js.stream_info(log_stream(0))
    await client.js.update_stream(info.config.evolve(max_age=86400.0 * 365))
    running = await Services().start(SERVICES, nats_server.access)  # no replicas given: nothing to change
    await running.stop()
    assert (await client.js.stream_info(log_stream(0))).config.max_age == 86400.0 * 365
    assert (await client.js.stream_info(log_stream(0))).config.num_replicas == 1


async def test_a_seed_stays_hidden_until_its_hand_ends_and_then_checks_out(services, client):
    game = await dealt_game(client)
    follower = await client.follow(game)
    dealt = next(e for b in follower.batches for e in b.events if isinstance(e, HandDealt))
    assert dealt.commitment and not any(follower.state.seeds)
    await follower.stop()


async def test_a_log_message_no_service_can_read_is_dropped_at_once_not_retried(services, client):
    """Only the table writes the log, so this takes the operator's login: an old store, or a bug."""
    dropped = DROPPED.labels("log")._value.get()
    game = new_game()
    await client.js.publish((await layout(client.js)).log_subject(game, "hand"), b"\x00 not a batch")
    for _ in range(100):
        if DROPPED.labels("log")._value.get() >= dropped + 3:  # dealer, scoring and projector each drop it
            break
        await asyncio.sleep(0.05)
    assert DROPPED.labels("log")._value.get() == dropped + 3
    await asyncio.sleep(1.5)  # a nak would bring it back within a second
    assert DROPPED.labels("log")._value.get() == dropped + 3


async def test_a_command_stored_in_another_partition_is_dropped_never_applied(services, client, login):
    """Only the intake stores seats' commands, always in their game's partition; a platform may name no
    partition at all. A command in the wrong partition (the operator's, here) is dropped by the table."""
    where = await layout(client.js)
    if where.partitions == 1:
        pytest.skip("one partition: there is no other to misplace a command in")
    follower = await stacked_game(client, 2, HANDS, STOCK)
    wrong = (where.of(follower.game) + 1) % where.partitions
    platform = await login("platform")
    await platform.nc.publish(f"zc.cmd.{wrong}.{follower.game}.play", encode(DrawStock(seat=0)))
    assert await platform.refused(f"zc.cmd.{wrong}.{follower.game}.play")
    dropped = DROPPED.labels("command")._value.get()
    await client.js.publish(f"zc.cmd.{wrong}.{follower.game}.play", encode(DrawStock(seat=0)))
    for _ in range(60):
        if DROPPED.labels("command")._value.get() > dropped:
            break
        await asyncio.sleep(0.05)
    assert DROPPED.labels("command")._value.get() == dropped + 1
    [drawn] = await follower.outcome(await client.send(follower.game, DrawStock(seat=0)))
    assert drawn.card == "5S", "the game went on, the misplaced command never applied"


async def test_no_login_can_tell_the_services_another_partition_count(services, client, login):
    """zc.partitions.<P> is published by the server's mapping; a login may publish only the true P there."""
    where = await layout(client.js)
    for user in OUTSIDERS + ("table", "dealer", "scoring", "projector"):
        attacker = await login(user)
        await attacker.nc.publish(f"zc.partitions.{where.partitions + 1}", b"")
        assert await attacker.refused(f"zc.partitions.{where.partitions + 1}"), user


async def test_no_other_login_answers_or_hears_the_table_instances_roll_call(services, login):
    """A fake answer on zc.tables.here would make an instance alone think another waits and give its
    partitions away; hearing it tells nothing a table needs to hide, but no one else needs it either."""
    from zioncheck.services.bus.topology import TABLES_HERE
    for user in OUTSIDERS + ("dealer", "scoring", "projector"):
        attacker = await login(user)
        await attacker.nc.publish(TABLES_HERE, b"")
        assert await attacker.refused(TABLES_HERE), user
        attacker.errors.clear()
        await attacker.nc.subscribe(TABLES_HERE)
        assert await attacker.refused(TABLES_HERE) and "subscription" in " ".join(attacker.errors).lower(), user
    assert await services.direct[0].instances() == 1
