"""A message a house reader cannot decode, or did not expect, on a house subject: an empty one, bytes that
are not JSON, JSON of another shape. Only the house's own logins write there (test_attacks, test_sealed),
so each is written here with the operator's login, as an attacker who got through would. Whatever it is,
no game freezes, no table's heal stops, `replay` and `verify` still tell the game: the message is said in
one log line, counted (zc_junk_skipped_total, by reader and what it read), and stepped over, or written
over where the reader is the subject's own writer.
"""
import asyncio
import base64
import random
import subprocess
import sys

import msgspec
import pytest
from nats.js.errors import NotFoundError

from archived import KEY, PUBLIC
from gateway_helpers import GOING_OUT, LAST_HANDS, LAST_STOCK, views_written
from over_nats import new_game, stacked_game
from zioncheck.application.archive import make_record, new_signing_key, pack, unpack, unreadable, verify
from zioncheck.application.replay import state_hash
from zioncheck.bots import make_bot
from zioncheck.contracts.archive import IndexEntry, StoredBatch, StoredCommand
from zioncheck.contracts.commands import Deal, Discard, DrawStock, Limits, StartGame
from zioncheck.contracts.events import HandDealt, TurnTimedOut
from zioncheck.contracts.feed import decode_feed_batch
from zioncheck.contracts.log import Batch, encode
from zioncheck.contracts.views import decode_public_view
from zioncheck.domain import GameState, decide, fold
from zioncheck.domain.dealing import first_dealer_of
from zioncheck.domain.fairness import commitment, well_formed
from zioncheck.domain.timers import LIMIT_BOUNDS
from zioncheck.services.archive_store import BucketStore
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus.access import public_key
from zioncheck.services.bus.log_store import schedule_pending
from zioncheck.services.bus.topology import (
    ARCHIVE_BUCKET,
    DEFAULT_TENANT,
    FEED,
    SEEDS,
    STANDINGS,
    VIEWS,
    commands_stream,
    feed_subject,
    history_subject,
    layout,
    log_stream,
    public_view_key,
    schedule_subject,
    seat_view_key,
    seed_key,
    standings_key,
)
from zioncheck.services.dealer.service import STAND_IN
from zioncheck.services.gateway.live import Hubs, Spectator, ViewWatch
from zioncheck.services.gateway.reads import NoView, Reads
from zioncheck.services.observability import DROPPED, JUNK, SEEDS_REVEALED

pytestmark = pytest.mark.security

# (a) an empty message, (b) bytes that are not JSON, (c) JSON of another shape than the subject's
JUNK_MESSAGES = (b"", b"\x00\xff not json at all", b'{"cause": "soon", "events": {"hand": 1}}')
HANDS = [["AS", "2S", "9D"], ["3S", "4S", "9C"]]
STOCK = ["5S", "6S", "7S"]


def counted(reader: str, what: str) -> float:
    return JUNK.labels(reader, what)._value.get()


async def eventually(check, timeout: float = 10.0, every: float = 0.05):
    """Until `check()` holds (a coroutine function or a plain one); returns its last value."""
    async with asyncio.timeout(timeout):
        while True:
            value = check()
            value = await value if asyncio.iscoroutine(value) else value
            if value:
                return value
            await asyncio.sleep(every)


async def present(read):
    """What `read()` finds, None while it finds nothing (a key or message not written yet)."""
    try:
        return await read()
    except NotFoundError:
        return None


def zioncheck(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zioncheck.cli.main", *args], capture_output=True, text=True,
                          timeout=60)


async def write_junk_in_log(client, game: str, kinds=("move", "hand", "move")) -> list[int]:
    where = await layout(client.js)
    return [(await client.js.publish(where.log_subject(game, kind), junk)).seq
            for kind, junk in zip(kinds, JUNK_MESSAGES, strict=True)]


# --- a game's log ---------------------------------------------------------------------------------------

async def test_junk_in_a_games_log_is_stepped_over_and_the_game_goes_on_and_replays(nats_server, services, client):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    table, projector = counted("table", "log"), counted("projector", "log")
    seqs = await write_junk_in_log(client, game)

    [drawn] = await follower.outcome(await client.send(game, DrawStock(seat=0)))
    assert drawn.card == "5S", "the table stepped over what it could not read and decided the next move"
    assert counted("table", "log") == table + 3, "each message said once, and counted"
    [discarded] = await follower.outcome(await client.send(game, Discard(seat=0, card="9D")))
    assert discarded.card == "9D"
    await views_written(client, follower)   # the projector went on past them too
    assert counted("projector", "log") >= projector + 1

    replayed = await asyncio.to_thread(zioncheck, "replay", game, *nats_server.cli_args)
    assert replayed.returncode == 0, replayed.stderr
    assert f"state hash {state_hash(follower.state)}" in replayed.stdout
    assert "3 messages of the log are no batch and are skipped" in replayed.stdout
    assert ", ".join(map(str, seqs)) in replayed.stdout
    exported = await asyncio.to_thread(zioncheck, "export", game, *nats_server.cli_args)
    assert exported.returncode == 0 and "3 messages of the log are no batch" in exported.stderr
    assert all(line.startswith(b"{") for line in exported.stdout.encode().splitlines()), "the export is JSON lines"


async def test_a_table_that_loads_a_log_ending_in_junk_resumes_and_its_heal_goes_on(services, client):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    await write_junk_in_log(client, game, kinds=("hand", "hand", "hand"))   # the last hand message is junk
    p = (await layout(client.js)).of(game)
    await eventually(lambda: schedule_pending(client.js, p, game))
    await client.js.purge_stream(commands_stream(p), subject=schedule_subject(p, game))   # a deadline to heal
    table = services.by_name["table"]
    table.games.clear()   # as after a restart: the game is loaded from its log again
    before = counted("table", "log")

    assert game in await table.heal(), "the heal read the game past its junk, found it in play, set its deadline"
    assert game not in table.over, "a game whose last hand message is junk is not taken for over"
    [drawn] = await follower.outcome(await client.send(game, DrawStock(seat=0)))
    assert drawn.card == "5S"
    assert counted("table", "log") == before + 3


async def test_a_log_message_of_another_shape_is_dropped_at_once_like_one_that_is_not_json(services, client):
    """JSON that is no batch is as undecodable as bytes that are not JSON (test_attacks): never retried."""
    dropped = DROPPED.labels("log")._value.get()
    await client.js.publish((await layout(client.js)).log_subject(new_game(), "hand"), JUNK_MESSAGES[2])
    await eventually(lambda: DROPPED.labels("log")._value.get() >= dropped + 3)   # dealer, scoring, projector
    await asyncio.sleep(1.5)   # a nak would bring it back within a second
    assert DROPPED.labels("log")._value.get() == dropped + 3


# --- a game's deadline ----------------------------------------------------------------------------------

async def test_junk_on_a_games_timer_subject_is_no_schedule_and_the_heal_sets_its_deadline_again(
        services, client):
    """The server drops a schedule once another message is stored on its subject: junk there took the game's
    deadline away, and, looking like a schedule to a count of subjects, hid that from the heal."""
    game = new_game()
    follower = await client.follow(game)
    seconds = int(LIMIT_BOUNDS["turn_seconds"][0])
    await client.send(game, StartGame(game_id=game, players=2, dealer=1, stacked=True, seats=["person", "person"],
                                      limits=Limits(turn_seconds=seconds)))
    await client.send(game, Deal(hand=1, hands=HANDS, stock=STOCK), as_dealer=True)
    await follower.wait_until(lambda f: f.state.hand == 1)
    p = (await layout(client.js)).of(game)
    await eventually(lambda: schedule_pending(client.js, p, game))
    for junk in JUNK_MESSAGES:
        await client.js.publish(schedule_subject(p, game), junk)
    assert not await schedule_pending(client.js, p, game), "junk is no schedule"
    before = counted("table", "timer")

    assert game in await services.by_name["table"].heal()
    assert counted("table", "timer") == before + 1
    assert await schedule_pending(client.js, p, game)
    await follower.wait_until(lambda f: any(isinstance(e, TurnTimedOut) for b in f.batches for e in b.events),
                              timeout=seconds + 10)


# --- the dealer's seeds ----------------------------------------------------------------------------------

async def test_junk_in_place_of_a_hands_seed_before_its_deal_gives_way_to_a_fresh_seed_it_is_dealt_from(
        services, client):
    seeds = await client.js.key_value(SEEDS)
    before = counted("dealer", "seeds")
    for junk in JUNK_MESSAGES:
        game = new_game()
        await seeds.put(seed_key(game, 1), junk)   # the next hand's seed, chosen by someone else
        follower = await client.follow(game)
        await client.send(game, StartGame(game_id=game, players=2, seats=["person", "person"]))
        await follower.wait_until(lambda f: f.state.hand == 1)
        [dealt] = [e for b in follower.batches for e in b.events if isinstance(e, HandDealt)]
        seed = (await seeds.get(seed_key(game, 1))).value.decode()
        assert well_formed(seed) and seed.encode() != junk
        assert dealt.commitment == commitment(seed), "dealt from the fresh seed, never from the junk"
    assert counted("dealer", "seeds") == before + 3


async def test_junk_over_a_dealt_hands_seed_is_never_revealed_and_a_stand_in_serves_its_reshuffles(
        services, client):
    """A hand committed to a seed that is lost cannot be checked; it can still be played to its end."""
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=2, seats=["person", "person"]))
    await follower.wait_until(lambda f: f.state.hand == 1)
    seeds = await client.js.key_value(SEEDS)
    dealer = services.by_name["dealer"]
    before, revealed = counted("dealer", "seeds"), SEEDS_REVEALED._value.get()
    await seeds.put(seed_key(game, 1), JUNK_MESSAGES[2])

    kept = await dealer.kept(game, 1, create=False)   # what a reshuffle of the hand follows from
    assert kept.stand_in and well_formed(kept.seed)
    assert (await seeds.get(seed_key(game, 1))).value == (STAND_IN + kept.seed).encode()
    assert await dealer.seed(game, 1, create=False) == kept.seed, "every reshuffle of the hand, the same"
    await dealer._reveal(game, 1)
    assert SEEDS_REVEALED._value.get() == revealed, "a stand-in is never revealed as the hand's seed"
    assert counted("dealer", "seeds") == before + 1


# --- views and the feed -------------------------------------------------------------------------------

async def test_junk_in_place_of_a_view_is_no_view_to_a_reader_and_is_written_over_at_the_next_move(
        services, client):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    await views_written(client, follower)
    kv = await client.js.key_value(VIEWS)
    seen: list[int] = []
    watch = await ViewWatch(kv, public_view_key(game), lambda frame, seq: seen.append(seq)).start()
    reads = Reads(client.js, kv, tenants=(DEFAULT_TENANT,))
    before = counted("projector", "views")
    try:
        moves = [DrawStock(seat=0), Discard(seat=0, card="9D"), DrawStock(seat=1)]
        for junk, move in zip(JUNK_MESSAGES, moves, strict=True):
            await kv.put(public_view_key(game), junk)
            await kv.put(seat_view_key(game, 0), junk)
            with pytest.raises(NoView):
                await reads.view(game, public_view_key(game))
            await follower.outcome(await client.send(game, move))

            async def written_over(junk: bytes = junk) -> bool:
                values = [(await kv.get(key)).value for key in (public_view_key(game), seat_view_key(game, 0))]
                return all(value and value != junk for value in values)
            await eventually(written_over)
            view = decode_public_view((await kv.get(public_view_key(game))).value)
            assert view.seq == len(follower.batches)
            assert msgspec.json.decode(await reads.view(game, public_view_key(game)))["seq"] == view.seq
        assert counted("projector", "views") >= before + 3   # a public view and a seat's each time, said once each
        await eventually(lambda: seen and seen[-1] == len(follower.batches))   # the watch went on past the junk
    finally:
        await watch.stop()


async def test_junk_last_in_a_games_feed_is_passed_over_and_the_feed_goes_on(services, client):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    game = follower.game
    await views_written(client, follower)
    for junk in reversed(JUNK_MESSAGES):   # the last, empty: the feed's last message is no feed batch
        await client.js.publish(feed_subject(game), junk)
    watched = counted("gateway", "feed")
    hubs = Hubs(client.js, await client.js.key_value(VIEWS))
    try:   # a spectator joining now gets the game's view and moves, the junk passed over
        hub = await asyncio.wait_for(hubs.join(game, Spectator(backlog=100)), timeout=5)
        assert hub.view and [seq for seq, _ in hub.feed] == list(range(1, len(hub.feed) + 1))
    finally:
        await hubs.close()
    assert counted("gateway", "feed") == watched + 3
    projector = services.by_name["projector"]
    projector.games.clear()   # as after a restart: it reads where the game's feed stands
    before = counted("projector", "feed")

    await follower.outcome(await client.send(game, DrawStock(seat=0)))
    await views_written(client, follower)
    async def fed() -> bool:
        last = await present(lambda: client.js.get_msg(FEED, subject=feed_subject(game)))
        return last is not None and last.data is not None and last.data.startswith(b"{")
    await eventually(fed)
    last = await client.js.get_msg(FEED, subject=feed_subject(game))
    assert decode_feed_batch(last.data).seq == len(follower.batches), "the move's feed batch, after the junk"
    assert counted("projector", "feed") == before + 1
    page = await Reads(client.js, await client.js.key_value(VIEWS), tenants=(DEFAULT_TENANT,)).feed(game)
    assert [batch.seq for batch in page.batches][-1] == len(follower.batches), "a reader of the feed skips it"


# --- standings ------------------------------------------------------------------------------------------

async def test_junk_in_place_of_standings_is_written_over_when_the_hand_ends(nats_server, services, client):
    follower = await stacked_game(client, 2, LAST_HANDS, LAST_STOCK, hand=6)
    game = follower.game
    kv = await client.js.key_value(STANDINGS)
    await eventually(lambda: present(lambda: kv.get(standings_key(game))))
    for junk in JUNK_MESSAGES:
        await kv.put(standings_key(game), junk)
    listed = await asyncio.to_thread(zioncheck, "games", *nats_server.cli_args)
    assert listed.returncode == 0 and game in listed.stdout, "`games` lists it, not scored for now"
    services.by_name["scoring"].published.clear()   # as after a restart: it reads what the bucket holds
    before = counted("scoring", "standings")

    for move in GOING_OUT:
        await follower.outcome(await client.send(game, move))
    standings = await client.final_standings(game)
    assert standings is not None and standings.over and standings.totals == list(follower.state.totals)
    assert counted("scoring", "standings") == before + 1


# --- the archive ------------------------------------------------------------------------------------------

async def entry_of(client, game: str, timeout: float = 30.0) -> IndexEntry:
    sub = await client.js.subscribe(history_subject(DEFAULT_TENANT, game), ordered_consumer=True)
    try:
        msg = await sub.next_msg(timeout=timeout)
    finally:
        await sub.unsubscribe()
    return msgspec.json.decode(msg.data, type=IndexEntry)


async def test_a_game_whose_log_holds_junk_is_archived_as_stored_and_verifies_intact_and_replays(
        nats_server, services, client, tmp_path):
    game = new_game()
    follower = await client.follow(game)   # a hand the dealer deals, its seed revealed: intact means intact
    await client.send(game, StartGame(game_id=game, players=2, dealer=1, first_hand=6, seats=["person", "person"]))
    await follower.wait_until(lambda f: f.state.hand == 6)
    seqs = await write_junk_in_log(client, game)
    bots, rng = [make_bot("greedy", random.Random(seat)) for seat in range(2)], random.Random(3)
    await play_seats(client, follower, dict(enumerate(bots)), rng)
    await follower.wait_until(lambda f: f.state.game_over and all(f.state.seeds))
    entry = await entry_of(client, game)
    data = await BucketStore(client.js).get(entry.where)
    assert verify(data, public_key(nats_server.credentials)) == [], "signed with the junk in it: intact"
    record = unpack(data).record
    assert [u.seq for u in unreadable(record)] == seqs, "kept where the log held it"
    assert record.manifest.state_hash == state_hash(follower.state), "and folded without it, as the game was"

    verified = await asyncio.to_thread(zioncheck, "verify", game, *nats_server.cli_args)
    assert verified.returncode == 0 and "intact" in verified.stdout
    assert "3 messages of the log are no batch and are skipped" in verified.stdout
    archive = tmp_path / f"{game}.zca"
    archive.write_bytes(data)
    replayed = await asyncio.to_thread(zioncheck, "replay", str(archive))
    assert replayed.returncode == 0 and f"state hash {state_hash(follower.state)}" in replayed.stdout


async def test_junk_under_a_games_archive_name_is_written_over_and_the_game_is_archived(
        nats_server, services, client):
    follower = await stacked_game(client, 2, LAST_HANDS, LAST_STOCK, hand=6)
    game = follower.game
    name = base64.urlsafe_b64encode(f"{game}.zca".encode()).decode()
    for junk in JUNK_MESSAGES:
        await client.js.publish(f"$O.{ARCHIVE_BUCKET}.M.{name}", junk)
    before = counted("archiver", "archive")
    for move in GOING_OUT:
        await follower.outcome(await client.send(game, move))
    entry = await entry_of(client, game)
    found = verify(await BucketStore(client.js).get(entry.where), public_key(nats_server.credentials))
    assert {p.what for p in found} == {"seed_missing"}, "intact (a stacked deal has no seed to reveal)"
    assert counted("archiver", "archive") == before + 1


async def test_junk_under_a_games_history_entry_leaves_it_archived_unindexed_and_hot_not_retried_for_ever(
        services, client):
    """The index keeps one entry a game for ever, and no login may purge it: junk there stays. The game is
    archived in the store and stays hot; its end is acked, not delivered again and again; listings skip it."""
    follower = await stacked_game(client, 2, LAST_HANDS, LAST_STOCK, hand=6)
    game = follower.game
    await client.js.publish(history_subject(DEFAULT_TENANT, game), JUNK_MESSAGES[2])
    before, listed = counted("archiver", "history"), counted("records", "history")
    for move in GOING_OUT:
        await follower.outcome(await client.send(game, move))
    await eventually(lambda: counted("archiver", "history") == before + 1, timeout=30)
    assert await BucketStore(client.js).exists(f"{game}.zca"), "its archive is written"
    p = (await layout(client.js)).of(game)

    async def settled() -> bool:
        info = await client.js.consumer_info(log_stream(p), "zc-archiver")
        return info.num_ack_pending == 0 and info.num_pending == 0
    await eventually(settled, timeout=10)
    assert (await client.js.get_msg(log_stream(p), subject=(await layout(client.js)).log_subject(game))).seq
    page = await client.archived_games()
    assert game not in [e.manifest.game for e in page.games]
    assert counted("records", "history") == listed + 1


def test_verify_names_junk_in_an_archive_only_where_the_signature_does_not_vouch_for_it():
    """Signed by the house, a message of the log that is no batch is what the log held when the game was
    archived: the archive is intact, and its game folds without it. Under any other signature it is a
    finding, as anything in such a file is."""
    game = "g-junk"
    commands = [StartGame(game_id=game, players=2, dealer=first_dealer_of(1, 6, 2), first_hand=6, stacked=True),
                Deal(hand=6, hands=LAST_HANDS, stock=LAST_STOCK), *GOING_OUT]
    state, data = GameState(), []
    for command in commands:
        events = decide(state, command)
        state = fold(state, events)
        data.append(encode(Batch(cause=len(data) + 1, events=events)))
    data.insert(2, JUNK_MESSAGES[1])
    record = make_record(tenant=DEFAULT_TENANT, game=game, key=game, standings=b"",
                         batches=[StoredBatch(seq=n, kind="move", at=n, data=d) for n, d in enumerate(data, 1)],
                         commands=[StoredCommand(seq=n, origin="play", at=n, data=encode(c))
                                   for n, c in enumerate(commands, 1)])
    assert state.game_over and record.manifest.state_hash == state_hash(state)
    stacked = {"seed_missing"}   # a stacked deal has no seed to reveal
    assert {p.what for p in verify(pack(record, KEY), PUBLIC)} == stacked
    assert [u.seq for u in unreadable(unpack(pack(record, KEY)).record)] == [3]
    other, _ = new_signing_key()
    assert {p.what for p in verify(pack(record, other), PUBLIC)} == {"other_key", "batch_unreadable"}
