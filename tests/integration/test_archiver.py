"""The archiver (services/archiver): a finished game's signed archive, its index entry, and its removal from
the hot streams once its retention has run; on a real server with the shipped permissions.

The games end quickly: four bot seats, from the sixth hand (the last), dealt by the dealer service, so each
hand has its seed. The archiver runs in this process, or as `zioncheck serve archiver` killed with SIGKILL.
"""
import asyncio
import datetime
import os
import signal
import subprocess
import sys

import msgspec
import pytest
from nats.js.api import StreamConfig

from over_nats import new_game, stacked_game, stored_commands, stored_messages, views_stored
from zioncheck.application.archive import pack, unpack, verify
from zioncheck.application.replay import state_hash
from zioncheck.client import Follower, GameClient
from zioncheck.contracts.archive import IndexEntry, Removal
from zioncheck.contracts.commands import DrawStock, StartGame
from zioncheck.services.archive_store import BucketStore, FolderStore
from zioncheck.services.archiver.service import FAULT_AT, FAULTS
from zioncheck.services.bus.access import public_key, signing_key
from zioncheck.services.bus.log_store import subject_counts
from zioncheck.services.bus.topology import (
    ARCHIVE_BUCKET,
    DEFAULT_TENANT,
    FEED,
    HISTORY,
    HISTORY_SUBJECTS,
    OPEN,
    REMOVALS,
    REMOVED_SUBJECTS,
    SCORES,
    SEEDS,
    STANDINGS,
    VIEWS,
    StoreLimits,
    archive_stream,
    commands_stream,
    feed_subject,
    game_key,
    history_subject,
    kv_stream,
    kv_subject,
    layout,
    log_stream,
    log_subject,
    open_subject,
    removal_headers,
    removal_subject,
    remove_subject,
    schedule_subject,
    score_subject,
    seed_key,
    standings_key,
    stored_command_subject,
    stream_configs,
    tenant_of,
    view_keys,
)
from zioncheck.services.observability import ARCHIVE_FAILURES, LEFT_HOT
from zioncheck.services.wiring import SERVICES, Services, Settings

pytestmark = pytest.mark.integration

HOUSE = [name for name in SERVICES if name != "archiver"]
HANDS = [["AS", "2S", "9D"], ["3S", "4S", "9C"]]
STOCK = ["5S", "6S", "7S"]


async def finished_game(client: GameClient, players: int = 4, tenant: str = DEFAULT_TENANT) -> Follower:
    """A bot game of one hand, the last, played to its end by the bots service."""
    game = game_key(tenant, new_game())
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=tenant_of(game)[1], players=players, first_hand=6,
                                      seats=["greedy"] * players))
    await follower.wait_until(lambda f: f.state.game_over, timeout=120)
    return follower


async def entry_of(client: GameClient, game: str, timeout: float = 60.0) -> IndexEntry:
    """The game's entry in the history index, as soon as the archiver writes it."""
    sub = await client.js.subscribe(history_subject(*tenant_of(game)), ordered_consumer=True)
    try:
        msg = await sub.next_msg(timeout=timeout)
    finally:
        await sub.unsubscribe()
    return msgspec.json.decode(msg.data, type=IndexEntry)


async def hot(client: GameClient, game: str) -> dict[str, int]:
    """How many messages of the game each hot stream holds."""
    p = (await layout(client.js)).of(game)
    where = {"commands": (commands_stream(p), stored_command_subject(p, game)),
             "deadline": (commands_stream(p), schedule_subject(p, game)),
             "log": (log_stream(p), log_subject(p, game)), "feed": (FEED, feed_subject(game)),
             "scores": (SCORES, score_subject(game)), "views": (kv_stream(VIEWS), kv_subject(VIEWS, view_keys(game))),
             "standings": (kv_stream(STANDINGS), kv_subject(STANDINGS, standings_key(game))),
             "in play": (OPEN, open_subject(game)), "seeds": (kv_stream(SEEDS), kv_subject(SEEDS, seed_key(game, "*"))),
             "removal": (REMOVALS, removal_subject(game)), "removal due": (REMOVALS, remove_subject(game))}
    return {name: sum((await subject_counts(client.js, stream, subject)).values())
            for name, (stream, subject) in where.items()}


def record_of(counts: dict[str, int]) -> dict[str, int]:
    """What of a game's hot messages is its record: its commands, its deadline and its log."""
    return {name: counts[name] for name in ("commands", "deadline", "log")}


def whole(counts: dict[str, int]) -> bool:
    """Whether a game's hot streams hold its record and what is folded from it."""
    return all(counts[name] for name in ("commands", "log", "feed", "views", "standings"))


NOTHING = dict.fromkeys(("commands", "deadline", "log", "feed", "scores", "views", "standings", "in play", "seeds",
                         "removal", "removal due"), 0)


async def removed(client: GameClient, game: str, timeout: float = 60.0) -> None:
    """Wait until the game has left every hot stream (nothing tells of a removal but the streams themselves)."""
    async with asyncio.timeout(timeout):
        while await hot(client, game) != NOTHING:
            await asyncio.sleep(0.1)


async def archives(client: GameClient) -> tuple[int, int]:
    """How many objects the archive bucket holds, and how many objects' chunks (an object written again over an
    old one leaves no chunks of the old)."""
    stream = archive_stream()
    return (len(await subject_counts(client.js, stream, f"$O.{ARCHIVE_BUCKET}.M.>")),
            len(await subject_counts(client.js, stream, f"$O.{ARCHIVE_BUCKET}.C.>")))


async def test_a_game_played_to_its_end_is_archived_byte_for_byte_signed_verified_and_indexed(nats_server, client):
    running = await Services().start(SERVICES, nats_server.access)
    try:
        follower = await finished_game(client)
        game = follower.game
        entry = await entry_of(client, game)
        data = await BucketStore(client.js).get(entry.where)
        assert data is not None and entry.where == f"{game}.zca" and entry.size == len(data)
        assert verify(data, public_key(nats_server.credentials)) == [], "it verifies with the public key alone"
        record = unpack(data).record
        assert entry.manifest == record.manifest
        assert record.manifest.outcome == "finished" and record.manifest.winners == list(follower.state.winners)
        assert record.manifest.state_hash == state_hash(follower.state)
        p = (await layout(client.js)).of(game)
        logged = await stored_messages(client, log_stream(p), log_subject(p, game))
        assert [(b.seq, b.data) for b in record.batches] == [(m.seq, m.data) for m in logged]
        assert [(c.data, c.origin) for c in record.commands] == await stored_commands(client, game)
        assert [seed.hand for seed in record.seeds] == [6], "R7: the hand's seed beside its commitment"
        assert (await client.final_standings(game)) is not None
        kv = await client.js.key_value(STANDINGS)
        assert record.standings == (await kv.get(standings_key(game))).value, "the standings scoring published"
        assert pack(record, signing_key(nats_server.credentials)) == data, "packed again, the same bytes"
        assert await subject_counts(client.js, HISTORY, history_subject(DEFAULT_TENANT, game)) == {
            history_subject(DEFAULT_TENANT, game): 1}
        assert await archives(client) == (1, 1)
    finally:
        await running.stop()


async def test_a_tenants_game_is_archived_under_its_key_and_indexed_under_its_tenant(nats_server, client):
    running = await Services().start(SERVICES, nats_server.access)
    try:
        game = (await finished_game(client, tenant="acme")).game
        entry = await entry_of(client, game)
        assert (entry.manifest.tenant, entry.manifest.key, entry.where) == ("acme", game, f"{game}.zca")
        assert game.startswith("acme=") and entry.manifest.game == tenant_of(game)[1]
        assert verify(await BucketStore(client.js).get(entry.where), public_key(nats_server.credentials)) == []
    finally:
        await running.stop()


async def test_after_its_retention_a_finished_game_leaves_the_hot_streams_and_a_live_game_stays(nats_server, client):
    running = await Services().start(SERVICES, nats_server.access, settings=Settings(retention=1))
    try:
        live = await stacked_game(client, 2, HANDS, STOCK)
        follower = await finished_game(client)
        game = follower.game
        assert (await hot(client, game))["log"] > 0
        live_before = await hot(client, live.game)
        entry = await entry_of(client, game)
        await removed(client, game)
        assert await BucketStore(client.js).get(entry.where), "the archive stays"
        assert await entry_of(client, game) == entry, "and its index entry"
        live_after = await hot(client, live.game)
        assert record_of(live_after) == record_of(live_before) and whole(live_after), "a game in play is not touched"
        gone = ARCHIVE_FAILURES.labels("gone")._value.get()
        assert await running.by_name["archiver"].archive(game) is None, "its end again: nothing left to do"
        assert ARCHIVE_FAILURES.labels("gone")._value.get() == gone
        replayed = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "zioncheck.cli.main", "replay", game, *nats_server.cli_args,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await replayed.communicate()
        assert replayed.returncode == 0, err
        assert state_hash(follower.state) in out.decode(), "replayed from its archive, the same game"
        [drawn] = await live.outcome(await client.send(live.game, DrawStock(seat=0)))
        assert drawn.card == "5S", "and it plays on"
    finally:
        await running.stop()


async def test_a_removal_falling_due_for_a_game_in_play_removes_nothing(nats_server, client):
    """Only the archiver sets removals, each after its game's index entry; should one ever fall due for a game in
    play (here the operator's), the archiver finds the game not over in its log and leaves it whole."""
    running = await Services().start(SERVICES, nats_server.access)
    try:
        live = await stacked_game(client, 2, HANDS, STOCK)
        game = live.game
        await views_stored(client, game)
        before = await hot(client, game)
        refused = ARCHIVE_FAILURES.labels("not_removed")._value.get()
        removal = Removal(key=game, where=f"{game}.zca", commands_to=10**9, log_to=10**9)
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        await client.js.publish(removal_subject(game), msgspec.json.encode(removal), headers=removal_headers(game, now))
        async with asyncio.timeout(30):
            while ARCHIVE_FAILURES.labels("not_removed")._value.get() == refused:
                await asyncio.sleep(0.05)
        after = await hot(client, game)
        assert record_of(after) == record_of(before) and whole(after)
        [drawn] = await live.outcome(await client.send(game, DrawStock(seat=0)))
        assert drawn.card == "5S"
    finally:
        await running.stop()


async def test_with_a_folder_each_archive_is_a_whole_file_and_the_game_is_removed_after_it(nats_server, client,
                                                                                           tmp_path):
    folder = tmp_path / "archives"
    running = await Services().start(SERVICES, nats_server.access, settings=Settings(archive=folder, retention=1))
    try:
        game = (await finished_game(client)).game
        entry = await entry_of(client, game)
        assert sorted(path.name for path in folder.iterdir()) == [f"{game}.zca"], "no part of a write is left"
        data = (folder / entry.where).read_bytes()
        assert await FolderStore(folder).get(entry.where) == data and entry.size == len(data)
        assert verify(data, public_key(nats_server.credentials)) == []
        await removed(client, game)
        assert await archives(client) == (0, 0), "nothing in the bucket"
    finally:
        await running.stop()


async def test_an_archive_damaged_in_the_store_is_written_again_the_same_and_the_index_keeps_its_entry(
        nats_server, client):
    running = await Services().start(SERVICES, nats_server.access)
    try:
        follower = await finished_game(client)
        game = follower.game
        entry = await entry_of(client, game)
        store = BucketStore(client.js)
        written = await store.get(entry.where)
        await store.put(entry.where, written[:100])   # the operator's login; the bucket is the archiver's alone
        done, again = await running.by_name["archiver"].archive(game)
        assert again and done.where == entry.where, "the index entry found is the game's own"
        assert await store.get(entry.where) == written, "written again, the same bytes"
        assert await archives(client) == (1, 1)
        assert await subject_counts(client.js, HISTORY, history_subject(DEFAULT_TENANT, game)) == {
            history_subject(DEFAULT_TENANT, game): 1}
    finally:
        await running.stop()


async def test_a_store_made_before_archives_archives_its_games_and_keeps_them_whole_and_hot(nats_server, client):
    """A log stream made denying purges keeps that seal for ever (the server never lifts it): its games are
    archived and indexed, and stay whole in the hot streams, which the start and the counters say."""
    where = await layout(client.js)
    before = StoreLimits.configured().total_bytes // 2 // where.partitions   # the log's half of the store, then
    for config in stream_configs(partitions=where.partitions):
        if config.name.startswith("ZC_LOG_"):
            await client.js.add_stream(StreamConfig.from_response(
                config.as_dict() | {"deny_purge": True, "max_bytes": before}))
    sealed = LEFT_HOT.labels("stream_denies_purges")._value.get()
    running = await Services().start(SERVICES, nats_server.access, settings=Settings(retention=0))
    try:
        assert any("ZC_LOG_0 was made denying purges" in line for line in running.topology_changes)
        log_config = (await client.js.stream_info(log_stream(0))).config
        assert log_config.deny_purge, "the seal stays: the server never lifts it"
        assert log_config.max_bytes == StoreLimits.configured().bytes_of("log", where.partitions) < before, \
            "its limit lowered to make room for the archive"
        assert (await client.js.stream_info(archive_stream())).config.max_bytes > 0
        follower = await finished_game(client)
        game = follower.game
        entry = await entry_of(client, game)
        async with asyncio.timeout(30):
            while LEFT_HOT.labels("stream_denies_purges")._value.get() == sealed:
                await asyncio.sleep(0.05)
        left = await hot(client, game)
        assert left["log"] == len(follower.batches) and left["commands"] > 0, "the game is whole"
        assert entry.manifest.batches == len(follower.batches)
    finally:
        await running.stop()


async def serve_archiver(nats_server, tmp_path, fault: str = ""):
    """`zioncheck serve archiver --retention 1` in a process of its own, once it says it serves; `fault`, the
    step at which it kills itself."""
    env = os.environ | {"ZIONCHECK_HOME": str(tmp_path)}
    env.pop(FAULT_AT, None)
    if fault:
        env[FAULT_AT] = fault
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "zioncheck.cli.main", "serve", "archiver", "--retention", "1", *nats_server.cli_args,
        "--log-level", "warning", stdout=asyncio.subprocess.PIPE, stderr=open(tmp_path / "archiver.log", "ab"),
        env=env)
    async with asyncio.timeout(30):
        assert (await process.stdout.readline()).startswith(b"serving ")
    return process


async def stop(process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        await process.wait()


async def assert_archived_once_and_removed(client: GameClient, credentials, games: list[str]) -> None:
    """Each game: one index entry, one archive that verifies and is what its record packs to, nothing hot."""
    store = BucketStore(client.js)
    for game in games:
        entry = await entry_of(client, game)
        data = await store.get(entry.where)
        assert data is not None and len(data) == entry.size and entry.where == f"{game}.zca"
        assert verify(data, public_key(credentials)) == [], game
        assert pack(unpack(data).record, signing_key(credentials)) == data
        await removed(client, game)
    assert await archives(client) == (len(games), len(games)), "one archive a game, no other content of one"
    assert len(await subject_counts(client.js, HISTORY, HISTORY_SUBJECTS)) == len(games), "one index entry a game"
    assert len(await subject_counts(client.js, HISTORY, REMOVED_SUBJECTS)) == len(games), "one record a removal"
    async with asyncio.timeout(30):   # and every game's end and removal acked: nothing waits to come again
        while await unfinished(client):
            await asyncio.sleep(0.1)


async def unfinished(client: GameClient) -> int:
    """The deliveries the archiver's consumers still hold or have to give."""
    streams = [*(await layout(client.js)).log_streams(), REMOVALS]
    infos = [await client.js.consumer_info(stream, "zc-archiver") for stream in streams]
    return sum(info.num_pending + info.num_ack_pending for info in infos)


@pytest.mark.parametrize("fault", FAULTS)
async def test_an_archiver_killed_at_any_step_loses_no_game_and_the_next_goes_on_where_it_stopped(
        nats_server, client, tmp_path, fault):
    house = await Services().start(HOUSE, nats_server.access)
    archiver = await serve_archiver(nats_server, tmp_path, fault)
    try:
        game = (await finished_game(client)).game
        async with asyncio.timeout(60):
            assert await archiver.wait() == -signal.SIGKILL, f"killed itself at {fault}"
        archiver = await serve_archiver(nats_server, tmp_path)
        await assert_archived_once_and_removed(client, nats_server.credentials, [game])
    finally:
        await stop(archiver)
        await house.stop()


@pytest.mark.long   # many games through kills: `make test-long`
async def test_an_archiver_killed_again_and_again_while_many_games_end_loses_none_of_them(nats_server, client,
                                                                                           tmp_path):
    house = await Services().start(HOUSE, nats_server.access)
    archiver = await serve_archiver(nats_server, tmp_path)
    indexed = await client.js.subscribe("zc.history.>", ordered_consumer=True)
    try:
        games = await asyncio.gather(*(finished_game(client) for _ in range(8)))
        for _ in range(3):   # each kill comes as an entry is written, others half done
            await indexed.next_msg(timeout=60)
            archiver.send_signal(signal.SIGKILL)
            await archiver.wait()
            archiver = await serve_archiver(nats_server, tmp_path)
        await assert_archived_once_and_removed(client, nats_server.credentials, [f.game for f in games])
    finally:
        await indexed.unsubscribe()
        await stop(archiver)
        await house.stop()


def kept(headers: dict | None) -> dict:
    """A batch's headers but the append's guard (Nats-Expected-*), which the server checked when it stored the
    batch and a copy does not carry."""
    return {name: value for name, value in (headers or {}).items() if not name.startswith("Nats-Expected-")}


async def test_zioncheck_migrate_makes_a_sealed_log_again_and_its_archived_games_then_leave_the_hot_streams(
        nats_server, client):
    """The one way out of a seal the server never lifts: the stream made again, every message at its sequence
    with its headers, the services' consumers where they were; the archiver, reading the ends again, finds
    each game archived and removes it once its retention has run."""
    where = await layout(client.js)
    for config in stream_configs(partitions=where.partitions):
        if config.name.startswith("ZC_LOG_"):
            await client.js.add_stream(StreamConfig.from_response(config.as_dict() | {"deny_purge": True}))
    running = await Services().start(SERVICES, nats_server.access, settings=Settings(retention=0))
    try:
        game = (await finished_game(client)).game
        await entry_of(client, game)
    finally:
        await running.stop()
    stream = where.log_stream(game)
    before = [(m.seq, m.subject, m.data, kept(m.headers)) for m in await stored_messages(client, stream, ">")]
    floors = {c.name: c.ack_floor.stream_seq for c in await client.js.consumers_info(stream)}
    done = subprocess.run([sys.executable, "-m", "zioncheck.cli.main", "migrate", *nats_server.cli_args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{stream}: made again without denying purges: {len(before)} messages at their sequences" in done.stdout
    assert not (await client.js.stream_info(stream)).config.deny_purge
    after = [(m.seq, m.subject, m.data, kept(m.headers)) for m in await stored_messages(client, stream, ">")]
    assert after == before, "every message at its sequence, with its headers"
    again = {c.name: c.ack_floor.stream_seq for c in await client.js.consumers_info(stream)}
    assert again == floors | {"zc-archiver": 0}, "each consumer where it was; the archiver's from the start"
    running = await Services().start(SERVICES, nats_server.access, settings=Settings(retention=0))
    try:
        await removed(client, game)
    finally:
        await running.stop()
