"""Sealed streams: no client writes a stream, readers cannot write, acks only on one's own consumers.

The server honours what a publish into a stream carries (rollup, msg-id, schedule and expected-*
headers), a push consumer's delivery subject and acks. So only house services may publish where a
stream stores, the intake stores commands with headers it sets itself, and readers outside the house
make no consumers. The matrix below is generated from the permission tables and the stream configs
themselves: a subject a stream captures tomorrow is checked the day it is added.
"""
import asyncio
import datetime

import pytest
from attacker import REFUSED, matches
from nats.errors import TimeoutError as NatsTimeout

from over_nats import stacked_game, views_stored
from zioncheck.client import GameClient
from zioncheck.contracts.commands import DrawStock
from zioncheck.contracts.intake import KEY_HEADER, Refused, Taken, decode_reply
from zioncheck.contracts.log import encode
from zioncheck.services.bus.access import INBOXES, ROLES, TENANT_ROLES, permissions
from zioncheck.services.bus.topology import (
    ARCHIVE_BUCKET,
    BUCKETS,
    FEED,
    HISTORY,
    OPEN,
    REMOVALS,
    SCORES,
    SEEDS,
    STANDINGS,
    VIEWS,
    archive_config,
    archive_stream,
    archive_subjects,
    bot_view_key,
    bucket_configs,
    commands_stream,
    intake_subject,
    kv_stream,
    kv_subject,
    layout,
    log_stream,
    public_feed_subject,
    public_view_key,
    seat_view_key,
    stored_command_subject,
    stream_configs,
    view_keys,
    view_live_subject,
)

pytestmark = pytest.mark.security

HANDS = [["AS", "2S", "9D"], ["3S", "4S", "9C"]]
STOCK = ["5S", "6S", "7S"]
PARTITIONS = 3

CLIENTS = ("platform", "spectator", "gateway", "bots")   # never publish where a stream stores

# Every header nats-server interprets on a message published into a stream (server/stream.go,
# server/jetstream_batching.go, server/jetstream_api.go and server/msgtrace.go of the pinned 2.15
# line): expectations, dedupe, rollups, TTLs and markers, counters, schedules, atomic batches, API
# levels and tracing. Each carries a value that would do harm if the stream took it.
SERVER_HEADERS = {
    "Nats-Msg-Id": "deal:{game}:2",
    "Nats-Expected-Stream": "{stream}",
    "Nats-Expected-Last-Sequence": "1",
    "Nats-Expected-Last-Subject-Sequence": "1",
    "Nats-Expected-Last-Subject-Sequence-Subject": "zc.cmd.*.{game}.*",
    "Nats-Expected-Last-Msg-Id": "deal:{game}:1",
    "Nats-Rollup": "all",
    "Nats-TTL": "1s",
    "Nats-Marker-Reason": "Purge",
    "Nats-Incr": "1",
    "Nats-Counter-Sources": "{{}}",
    "Nats-Schedule": "@every 1s",
    "Nats-Schedule-Target": "{target}",
    "Nats-Schedule-Source": "{target}",
    "Nats-Schedule-TTL": "1s",
    "Nats-Schedule-Time-Zone": "UTC",
    "Nats-Schedule-Rollup": "sub",
    "Nats-Scheduler": "zc.timer.0.{game}",
    "Nats-Schedule-Next": "purge",
    "Nats-Batch-Id": "b1",
    "Nats-Batch-Sequence": "1",
    "Nats-Batch-Commit": "1",
    "Nats-Required-Api-Level": "0",
    "Nats-Stream-Source": "ZC_LOG_0 1 zc.log.0.{game}.move",
    "Nats-Trace-Dest": "zc.rejected.{game}",
    "Nats-Stream": "ZC_LOG_0",
    "Nats-Sequence": "1",
    "Zc-Batch": "1",
}




def may_publish(role: str, subject: str) -> bool:
    return any(matches(pattern, subject) for pattern in permissions(PARTITIONS)[role].publish)


def stored_subjects() -> dict[str, list[str]]:
    """Every stream's and bucket's stream's subjects, each as a concrete subject a publish could name."""
    configs = {c.name: c.subjects for c in stream_configs(partitions=PARTITIONS)}
    configs |= {kv_stream(bucket): [kv_subject(bucket, ">")] for bucket in bucket_configs()}
    configs[archive_stream()] = archive_subjects()
    concrete = {}
    for stream, patterns in configs.items():
        subjects = []
        for pattern in patterns:
            tokens = [("g" if token == "*" else "k.x" if token == ">" else token) for token in pattern.split(".")]
            if pattern.startswith("zc.cmd."):   # each origin of a command is its own writer's
                subjects += [".".join(tokens[:-1] + [origin]) for origin in ("play", "dealer", "timer")]
            else:
                subjects.append(".".join(tokens))
        concrete[stream] = subjects
    return concrete


def writers_of(subject: str) -> set[str]:
    """Who the house says writes a subject: a new stream subject must be named here to pass."""
    if subject.startswith("zc.cmd."):
        return {"play": {"intake"}, "dealer": {"dealer"}, "timer": set()}[subject.rsplit(".", 1)[1]]
    prefixes = {"zc.timer.": {"table"}, "zc.log.": {"table"}, "zc.open.": {"table", "intake"},
                "zc.score.": {"scoring"}, "zc.feed.": {"projector"}, f"$KV.{VIEWS}.": {"projector"},
                f"$KV.{STANDINGS}.": {"scoring"}, f"$KV.{SEEDS}.": {"dealer"},
                f"$O.{ARCHIVE_BUCKET}.": {"archiver"}, "zc.history.": {"archiver"}, "zc.removal.": {"archiver"},
                "zc.remove.": set()}   # a removal due: the server's, from the archiver's schedule
    found = [roles for prefix, roles in prefixes.items() if subject.startswith(prefix)]
    assert found, f"{subject} is stored by a stream, but no writer is named for it here"
    return found[0]


def test_only_the_house_writer_of_each_stored_subject_may_publish_on_it():
    matrix = stored_subjects()
    assert set(matrix) >= {commands_stream(0), log_stream(PARTITIONS - 1), FEED, SCORES, kv_stream(VIEWS), HISTORY,
                           REMOVALS, archive_stream()}
    for stream, subjects in matrix.items():
        for subject in subjects:
            allowed = {role for role in ROLES if role != "operator" and may_publish(role, subject)}
            assert allowed == writers_of(subject), f"{stream}: {subject} may be published by {sorted(allowed)}"


def test_only_the_projector_may_send_a_live_view():
    """A live view is stored nowhere, so no stream's writer guards it: the permissions alone say who sends one."""
    for key in (public_view_key("g"), seat_view_key("g", 0), bot_view_key("g", 0)):
        allowed = {role for role in ROLES if role != "operator" and may_publish(role, view_live_subject(key))}
        assert allowed == {"projector"}, f"{view_live_subject(key)} may be published by {sorted(allowed)}"


@pytest.mark.parametrize("role", [role for role in ROLES if role != "operator"])
def test_no_login_acks_a_consumer_but_its_own_and_no_reader_outside_the_house_makes_one(role):
    rights = permissions(PARTITIONS)[role].publish
    for right in rights:
        if right.startswith("$JS.ACK."):
            stream, durable = right.split(".")[2:4]
            assert f"$JS.API.CONSUMER.DURABLE.CREATE.{stream}.{durable}" in rights, f"{role} acks {right}"
            assert right == f"$JS.ACK.{stream}.{durable}.>"
    if role in ("platform", "spectator"):
        assert not [right for right in rights if right.startswith("$JS.API.CONSUMER.") or right.startswith("$JS.FC")]


def test_every_stream_and_bucket_has_a_limit_and_the_account_caps_the_rest():
    from zioncheck.services.bus.access import Credential, accounts_block
    for config in stream_configs(partitions=PARTITIONS):
        assert config.max_bytes and config.max_bytes > 0, f"{config.name} has no byte limit"
        if config.allow_msg_schedules:   # the commands and the removals: schedules need discard old
            assert config.deny_delete and config.discard.value == "old", config.name
            continue
        assert config.discard.value == "new", config.name
    assert {config.name for config in stream_configs(partitions=PARTITIONS) if config.max_bytes} >= {
        f"ZC_COMMANDS_{p}" for p in range(PARTITIONS)}
    for bucket in BUCKETS:
        assert bucket_configs()[bucket].max_bytes > 0
    assert archive_config().max_bytes > 0
    assert "jetstream: {max_file: " in accounts_block([Credential("t", "p", "table")], PARTITIONS)


@pytest.mark.parametrize("gib", ["1", "16", "1000"])
def test_every_limit_together_fits_the_accounts_cap_and_the_servers_store(monkeypatch, gib):
    """The server reserves each stream's byte limit of the account's storage as the stream is made: every
    limit, the commands streams' included, must fit the account's max_file and the server's max_file_store."""
    import re

    from zioncheck.services.bus.access import Credential, accounts_block
    from zioncheck.services.bus.embedded import file_store_bytes
    from zioncheck.services.bus.topology import StoreLimits
    monkeypatch.setenv("ZIONCHECK_STORE_GIB", gib)
    limits = [c.max_bytes for c in stream_configs(partitions=PARTITIONS)]
    limits += [bucket_configs()[bucket].max_bytes for bucket in BUCKETS] + [archive_config().max_bytes]
    account = int(re.search(r"max_file: (\d+)", accounts_block([Credential("t", "p", "table")], PARTITIONS))[1])
    assert sum(limits) <= account <= file_store_bytes()
    assert sum(limits) > 0.99 * StoreLimits.configured().total_bytes, "the shares leave no part of the store unused"


def _headers(game: str, stream: str, target: str) -> dict[str, str]:
    return {name: value.format(game=game, stream=stream, target=target) for name, value in SERVER_HEADERS.items()}


async def _states(js, partitions: int) -> dict[str, tuple[int, int, int]]:
    names = [commands_stream(p) for p in range(partitions)] + [log_stream(p) for p in range(partitions)]
    names += [FEED, SCORES] + [kv_stream(bucket) for bucket in BUCKETS]
    states = {}
    for name in names:
        state = (await js.stream_info(name)).state
        states[name] = (state.messages, state.first_seq, state.last_seq)
    return states


async def test_no_header_through_any_client_login_changes_a_stream_or_a_game(services, client, login):
    """Every header the server interprets, on every subject a stream stores and on the intake's, through
    every login that is not a house writer: the streams hold what they held, but for the commands the
    intake stored as plain commands, and the game plays on."""
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    where = await layout(client.js)
    p = where.of(game)
    await asyncio.sleep(0.5)   # the projector's and scoring's writes of the deal are done
    before = await _states(client.js, where.partitions)
    taken = []
    for user in CLIENTS:
        attacker = await login(user)
        for stream, subjects in stored_subjects().items():
            for subject in subjects:
                subject = subject.replace(".0.", f".{p}.").replace(".g.", f".{game}.").replace(".g", f".{game}")
                target = stored_command_subject(p, game, "timer")
                await attacker.nc.publish(subject, b'{"type": "draw_stock", "seat": 1}',
                                          headers=_headers(game, stream, target))
        await attacker.nc.flush()
        if user != "spectator":   # a spectator may not even ask the intake
            headers = _headers(game, commands_stream(p), stored_command_subject(p, game, "dealer"))
            # A traced message whose trace goes where its sender may not publish is not delivered at all.
            headers = {name: value for name, value in headers.items() if not name.startswith("Nats-Trace")}
            reply = decode_reply((await attacker.nc.request(intake_subject(game), encode(DrawStock(seat=1)),
                                                            timeout=5, headers=headers)).data)
            assert isinstance(reply, Taken), reply
            taken.append(reply.seq)
        else:
            with pytest.raises(NatsTimeout):
                await attacker.nc.request(intake_subject(game), encode(DrawStock(seat=1)), timeout=REFUSED)
    await asyncio.sleep(1.5)   # what a schedule, a TTL or a batch would have done, it has done by now
    for seq in taken:          # stored as plain commands: no header of the sender's reached the stream
        stored = await client.js.get_msg(commands_stream(p), seq=seq)
        assert not stored.headers, stored.headers
    await follower.wait_until(lambda f: max(b.cause for b in f.batches) >= max(taken), timeout=10)
    after = await _states(client.js, where.partitions)
    grown = {name for name in after if after[name] != before[name]}
    assert grown <= {commands_stream(p), log_stream(p), kv_stream(VIEWS), FEED}, grown
    messages, first, last = after[commands_stream(p)]
    assert (messages - before[commands_stream(p)][0], first) == (len(taken), before[commands_stream(p)][1])
    assert after[log_stream(p)][1] == before[log_stream(p)][1]   # nothing removed from the log
    # The stolen moves were seat 1's out of turn: refused, so the game waits for seat 0, untouched.
    assert follower.state.turn == 0 and not follower.state.drawn
    [drawn] = await follower.outcome(await client.send(game, DrawStock(seat=0)))
    assert drawn.card == "5S"


@pytest.mark.parametrize("user", ["platform", "spectator"])
async def test_a_reader_outside_the_house_cannot_make_a_consumer_or_choose_a_delivery_subject(
        services, client, login, user):
    attacker = await login(user)
    game = (await stacked_game(client, 2, HANDS, STOCK)).game
    asks = []
    for stream in (FEED, kv_stream(VIEWS), SCORES, kv_stream(STANDINGS)):
        for api in (f"CONSUMER.CREATE.{stream}", f"CONSUMER.CREATE.{stream}.evil",
                    f"CONSUMER.CREATE.{stream}.evil.zc.feed.{game}", f"CONSUMER.DURABLE.CREATE.{stream}.evil"):
            config = {"stream_name": stream, "config": {"deliver_subject": f"zc.rejected.{game}"}}
            asks.append(attacker.nc.request(f"$JS.API.{api}", encode_json(config), timeout=REFUSED))
    answers = await asyncio.gather(*asks, return_exceptions=True)   # all at once: one wait
    assert all(isinstance(answer, NatsTimeout) for answer in answers), answers


def encode_json(value) -> bytes:
    import json
    return json.dumps(value).encode()


async def test_no_login_acks_another_services_consumer(services, login):
    for user in ("bots", "gateway", "table", "scoring", "projector", "intake", "platform"):
        attacker = await login(user)
        ack = f"$JS.ACK.{log_stream(0)}.zc-dealer.1.1.1.1.0"
        await attacker.nc.publish(ack, b"+ACK")
        assert await attacker.refused(ack), user


async def test_readers_follow_views_and_the_feed_on_what_the_server_republishes(services, client, login):
    platform, spectator = await login("platform"), await login("spectator")
    heard: dict[str, list[str]] = {"platform": [], "spectator": []}

    def hear(who):
        async def on(msg) -> None:
            heard[who].append(msg.subject)
        return on
    for subject in (view_live_subject(view_keys("*")), public_feed_subject("*")):   # the default tenant's games
        await platform.nc.subscribe(subject, cb=hear("platform"))
    for subject in (view_live_subject(public_view_key("*")), public_feed_subject("*")):
        await spectator.nc.subscribe(subject, cb=hear("spectator"))
    await spectator.nc.subscribe(view_live_subject(seat_view_key("*", 0)), cb=hear("spectator"))
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    await follower.outcome(await client.send(game, DrawStock(seat=0)))
    for _ in range(100):
        if view_live_subject(seat_view_key(game, 0)) in heard["platform"] and {
                public_feed_subject(game), view_live_subject(public_view_key(game))} <= set(heard["spectator"]):
            break
        await asyncio.sleep(0.05)
    assert view_live_subject(public_view_key(game)) in heard["platform"]
    assert view_live_subject(seat_view_key(game, 0)) in heard["platform"]
    assert public_feed_subject(game) in heard["spectator"], spectator.errors
    assert view_live_subject(public_view_key(game)) in heard["spectator"], spectator.errors
    assert not [s for s in heard["spectator"] if ".seat." in s], "a spectator heard a seat's view"
    assert await spectator.refused(view_live_subject(seat_view_key("*", 0)))
    assert not platform.errors, platform.errors


async def test_a_senders_key_is_kept_scoped_to_its_game_and_collides_with_no_house_id(services, client, nats_server):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    platform = await GameClient.connect(nats_server.access, "platform")
    try:
        first = await platform.send(follower.game, DrawStock(seat=0), msg_id="draw-1")
        again = await platform.send(follower.game, DrawStock(seat=0), msg_id="draw-1")
        assert again == first, "a send again with its key is stored once"
        [drawn] = await follower.outcome(first)
        assert drawn.card == "5S"
        other = await stacked_game(client, 2, HANDS, STOCK)
        where = await layout(client.js)
        mine = await platform.send(other.game, DrawStock(seat=0), msg_id="draw-1")   # the same key, another game
        stored = await client.js.get_msg(where.commands_stream(other.game), seq=mine)
        assert other.game in stored.subject and stored.headers["Nats-Msg-Id"] == f"in:{other.game}:draw-1"
        # The dealer's ids are deal:<game>:<hand>; a sender's key of that shape is its own, not the dealer's.
        squat = await platform.send(other.game, DrawStock(seat=1), msg_id=f"deal:{other.game}:2")
        stored = await client.js.get_msg(where.commands_stream(other.game), seq=squat)
        assert stored.headers["Nats-Msg-Id"] == f"in:{other.game}:deal:{other.game}:2"
        reply = decode_reply((await platform.nc.request(intake_subject(other.game), encode(DrawStock(seat=0)),
                                                        timeout=5, headers={KEY_HEADER: "x" * 65})).data)
        assert isinstance(reply, Refused) and reply.reason == "bad_key"
    finally:
        await platform.close()


def test_the_header_list_names_the_schedule_and_batch_headers_the_services_use():
    from zioncheck.services.bus.topology import schedule_headers
    used = set(schedule_headers(0, "g", datetime.datetime.now(datetime.UTC).isoformat()))
    assert used <= set(SERVER_HEADERS)


def test_no_stream_captures_an_inbox():
    """The intake answers only a reply subject in an inbox: none may be one a stream stores."""
    for stream, subjects in stored_subjects().items():
        assert not [s for s in subjects if s.startswith(INBOXES)], stream


@pytest.mark.parametrize("user", ["platform", "gateway", "bots"])
async def test_a_reply_subject_of_a_senders_choosing_never_reaches_a_stream(services, client, login, user):
    """A request's reply subject is the sender's to set, and the intake's refusal or the stream's ack
    would be published on it: aimed at a game's log or commands, it is answered nowhere. (A tenant's
    request comes through its account's import: its reply lands in its own account whatever it names, and
    a command it sends is its own, stored as any other: tests/security/test_accounts.py. Here it sends
    what the intake refuses.)"""
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    where = await layout(client.js)
    p = where.of(game)
    await views_stored(client, game)
    before = await _states(client.js, where.partitions)
    attacker = await login(user)
    for reply in (f"zc.log.{p}.{game}.move", stored_command_subject(p, game, "play"), f"zc.feed.platform.{game}",
                  f"$KV.zc_views.{public_view_key(game)}", f"zc.rejected.platform.{game}"):
        sent = (encode(DrawStock(seat=0)),) if user not in TENANT_ROLES else ()
        for data in (*sent, b"not a command"):   # stored and acked; refused
            await attacker.nc.publish(intake_subject(game), data, reply=reply)
    await attacker.nc.flush()
    await asyncio.sleep(1.0)
    assert await _states(client.js, where.partitions) == before
    [drawn] = await follower.outcome(await client.send(game, DrawStock(seat=0)))
    assert drawn.card == "5S"


# Who may purge which stream: the table takes a game over out of the register of games in play; the archiver
# takes an archived game out of the hot streams, its mark in the register and its seeds too (and owns its bucket
# and removals). Nobody else but the operator.
PURGERS = {"table": {OPEN}, "archiver": {*(commands_stream(p) for p in range(PARTITIONS)),
                                         *(log_stream(p) for p in range(PARTITIONS)), FEED, SCORES, kv_stream(VIEWS),
                                         kv_stream(STANDINGS), OPEN, kv_stream(SEEDS), archive_stream(), REMOVALS}}


@pytest.mark.parametrize("role", [role for role in ROLES if role != "operator"])
def test_only_the_table_and_the_archiver_may_purge_and_each_only_its_own_streams(role):
    rights = permissions(PARTITIONS)[role].publish
    purges = {right.removeprefix("$JS.API.STREAM.PURGE.") for right in rights if ".STREAM.PURGE." in right}
    assert purges == PURGERS.get(role, set()), role
    assert not [right for right in rights if "*" in right.split(".STREAM.PURGE.")[-1] and ".STREAM.PURGE." in right]


def test_no_client_reads_or_writes_the_archive_bucket_the_history_index_or_the_removals():
    for role in CLIENTS:
        rights = permissions(PARTITIONS)[role].publish
        for stream in (archive_stream(), REMOVALS):
            assert not [right for right in rights if f".{stream}" in right], (role, stream)
        for subject in (f"$O.{ARCHIVE_BUCKET}.C.x", f"$O.{ARCHIVE_BUCKET}.M.x", "zc.history.platform.g",
                        "zc.history.platform.g.removed", "zc.removal.g", "zc.remove.g"):
            assert not may_publish(role, subject), (role, subject)


PURGE_LOGINS = [role for role in ROLES if role not in ("operator", "archiver")]


@pytest.mark.parametrize("user", PURGE_LOGINS)
async def test_no_login_but_the_archivers_purges_a_games_subjects_anywhere(services, client, login, user):
    """Every stream a finished game leaves, and the archiver's own, asked to purge one game's subject (and
    everything) by each other login: no answer, nothing gone (the table's purge of the register aside)."""
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    where = await layout(client.js)
    await views_stored(client, game)   # the projector's and scoring's writes of the deal are done
    before = await _states(client.js, where.partitions)
    attacker = await login(user)
    streams = [*where.commands_streams(), *where.log_streams(), FEED, SCORES, kv_stream(VIEWS), kv_stream(STANDINGS),
               archive_stream(), REMOVALS, HISTORY]
    asks = [attacker.nc.request(f"$JS.API.STREAM.PURGE.{stream}", body, timeout=REFUSED)
            for stream in streams for body in (encode_json({"filter": f"zc.*.*.{game}.*"}), b"{}")]
    answers = await asyncio.gather(*asks, return_exceptions=True)   # all at once: one wait
    assert all(isinstance(answer, NatsTimeout) for answer in answers), answers
    assert await _states(client.js, where.partitions) == before
    [drawn] = await follower.outcome(await client.send(game, DrawStock(seat=0)))
    assert drawn.card == "5S", "the game plays on"


@pytest.mark.parametrize("user", CLIENTS)
async def test_no_client_login_reads_an_archive_or_writes_one_an_index_entry_or_a_removal(services, login, user):
    attacker = await login(user)
    stream = archive_stream()
    asks = [attacker.nc.request(f"$JS.API.{api}", b"{}", timeout=REFUSED)
            for api in (f"STREAM.INFO.{stream}", f"STREAM.MSG.GET.{stream}", f"DIRECT.GET.{stream}",
                        f"DIRECT.GET.{stream}.$O.{ARCHIVE_BUCKET}.M.x", f"CONSUMER.CREATE.{stream}",
                        f"STREAM.INFO.{REMOVALS}", f"DIRECT.GET.{REMOVALS}")]
    answers = await asyncio.gather(*asks, return_exceptions=True)
    assert all(isinstance(answer, NatsTimeout) for answer in answers), answers
    for subject in (f"$O.{ARCHIVE_BUCKET}.M.x", f"$O.{ARCHIVE_BUCKET}.C.x", "zc.history.platform.x",
                    "zc.history.platform.x.removed", "zc.removal.x", "zc.remove.x"):
        await attacker.nc.publish(subject, b"{}")
        assert await attacker.refused(subject), (user, subject)
