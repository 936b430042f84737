"""Every historic game, at scale: `python -m bench history [--games N]` (N = 10,000 unless given).

In one run, on a real server (the embedded one, in a temporary folder):

1. N finished games are made in process (four greedy seats, one hand each: hand 6, about 400
   commands, so the store holds N whole games in minutes) and written into the hot streams as the table and the
   intake store them: each command on its partition's commands stream, each batch on its game's log
   subject, the batches' causes the commands' real sequences.
2. The archiver archives every one of them as it does a game that ends (`ArchiverService.archive`:
   read the game's commands and log, fold, pack and sign, write to the bucket zc_archive, read back,
   verify, index): games archived a second, and bytes a game hot (its commands and log, as the store
   counts them) against archived.
3. A random archived game is fetched from the bucket through the index, verified and replayed (ms).
4. Two history queries over the N games' index (ms): one tenant's games a seat won, a page of 50;
   and one no game matches, which reads every entry.
5. Retention: the archiver removes every archived game from the hot streams; the hot store's bytes
   before and after.

A whole six-hand game, with its feed and views, takes more hot bytes than these (docs/scaling.md);
its archive keeps the same proportion.
"""
import asyncio
import logging
import random
import sys
import tempfile
import time
from pathlib import Path

import structlog

from bench import Row
from zioncheck.application.archive import entries_of_record, unpack, verify
from zioncheck.application.archive_samples import MARCH_2026, RecordingTable
from zioncheck.application.history import Query
from zioncheck.application.replay import fold_log, state_hash
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import game_rng, play_hand
from zioncheck.bots import make_bot
from zioncheck.contracts.archive import Removal
from zioncheck.contracts.commands import Limits, StartGame
from zioncheck.services.archive_store import BucketStore
from zioncheck.services.archiver.service import ArchiverService
from zioncheck.services.bus.access import connect, public_key, signing_key
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.bus.topology import layout, stored_command_subject
from zioncheck.services.history import archived, list_page
from zioncheck.services.wiring import prepare_topology

GAMES = 10_000
AT_ONCE = 8                    # games the archiver works on together
TARGET_RATIO = 1 / 8           # archived bytes a game, of its hot bytes (at most)
TARGET_RATE = 5.6              # games archived a second: what 10,000 concurrent 30-minute games end at
TARGET_READ_MS = 1_000         # a random game's replay and verify, and a query over every game's entry


def one_hand(game: str, first_command: int, started_at: int) -> RecordingTable:
    """A game of one hand between four greedy bots, its commands numbered from `first_command`."""
    rng = game_rng("history-bench", game)
    bots = [make_bot("greedy", rng) for _ in range(4)]
    dealer = Dealer(seeded("history-bench", game))
    table = RecordingTable(dealer, started_at, first_command=first_command)
    table.handle(StartGame(game_id=game, players=4, seats=["greedy"] * 4, first_hand=6,
                           limits=Limits(claim_seconds=0, pause_seconds=0)))
    while not table.state.game_over:
        table.handle(dealer.deal(table.state))
        play_hand(table, bots, rng)
        table.handle(dealer.reveal(table.state.hand))
    return table


async def store_hot(js, games: int) -> list[str]:
    """N games written into the hot streams; their keys."""
    where = await layout(js)
    next_command = dict.fromkeys(range(where.partitions), 1)
    keys = []
    for i in range(games):
        key = f"hist-{i:06d}"
        p = where.of(key)
        table = one_hand(key, next_command[p], MARCH_2026 + i * 60_000_000_000)
        next_command[p] += len(table.commands)
        for command in table.commands:
            await js.publish_async(stored_command_subject(p, key, command.origin), command.data)
        for batch in table.batches:
            await js.publish_async(where.log_subject(key, batch.kind), batch.data)
        keys.append(key)
        if i % 500 == 499:
            await js.publish_async_completed()
            print(f"  {i + 1:,} games stored hot", file=sys.stderr)
    await js.publish_async_completed()
    return keys


async def hot_bytes(js) -> int:
    where = await layout(js)
    streams = [*where.log_streams(), *where.commands_streams()]
    return sum([(await js.stream_info(name)).state.bytes for name in streams])


async def measure(server: NatsServer, games: int) -> dict[str, float]:
    nc = await connect(server.access, "operator")
    js = nc.jetstream(publish_async_max_pending=4096)
    found: dict[str, float] = {}
    try:
        keys = await store_hot(js, games)
        found["hot_before"] = await hot_bytes(js)
        archiver = ArchiverService(js, BucketStore(js), signing_key(server.credentials),
                                   public_key(server.credentials), retention=24 * 3600)
        started, done, size = time.perf_counter(), {}, 0
        for first in range(0, len(keys), AT_ONCE):
            chunk = keys[first:first + AT_ONCE]
            for key, result in zip(chunk, await asyncio.gather(*(archiver.archive(key, patient=False)
                                                                    for key in chunk)), strict=True):
                assert result is not None, f"{key} was not archived"
                done[key] = result[0]
                size += result[0].size
            if len(done) % 1000 < AT_ONCE:
                print(f"  {len(done):,} games archived", file=sys.stderr)
        found["rate"] = len(done) / (time.perf_counter() - started)
        found["archived_a_game"] = size / len(done)
        found["hot_a_game"] = found["hot_before"] / len(done)
        key = random.Random(7).choice(keys)
        started = time.perf_counter()
        data = await archived(js, key)
        assert data is not None and verify(data, public_key(server.credentials)) == []
        record = unpack(data).record
        assert state_hash(fold_log(entries_of_record(record))) == record.manifest.state_hash
        found["read_ms"] = 1000 * (time.perf_counter() - started)
        started = time.perf_counter()
        page = await list_page(js, Query(tenant="platform", won_by=1, limit=50))
        found["query_ms"] = 1000 * (time.perf_counter() - started)
        found["query_found"] = len(page.games)
        started = time.perf_counter()
        none = await list_page(js, Query(tenant="platform", outcome="abandoned", limit=50))
        found["scan_ms"] = 1000 * (time.perf_counter() - started)
        assert not none.games, "no game here was abandoned"
        for key, one in done.items():
            await archiver.remove(key, Removal(key=key, where=one.where, commands_to=one.record.commands[-1].seq,
                                               log_to=one.record.batches[-1].seq))
        found["hot_after"] = await hot_bytes(js)
    finally:
        await nc.close()
    return found


def run(games: int = GAMES) -> list[Row]:
    # One line a game archived and removed would drown the table: the archiver's warnings and errors only.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    with tempfile.TemporaryDirectory() as folder:
        server = NatsServer(Path(folder) / "jetstream", sync_always=False)
        try:
            asyncio.run(prepare_topology(server.access))
            found = asyncio.run(measure(server, games))
        finally:
            server.stop()
    ratio = found["archived_a_game"] / found["hot_a_game"]
    return [
        Row("games archived", found["rate"], "games/s", f"{games:,} one-hand games: read, fold, pack, sign, write, "
            "read back, verify, index", TARGET_RATE),
        Row("archive of a game", 100 * ratio, "% of hot", f"{found['archived_a_game'] / 1024:.1f} KiB archived, "
            f"{found['hot_a_game'] / 1024:.1f} KiB hot (its commands and log)", 100 * TARGET_RATIO, at_most=True,
            versus=f"1/{1 / ratio:.1f}"),
        Row("replay a random archived game", found["read_ms"], "ms", "fetched through the index, verified, folded",
            TARGET_READ_MS, at_most=True),
        Row("history query", found["query_ms"], "ms", f"one tenant's games seat 1 won, over {games:,} entries "
            f"({int(found['query_found'])} found, a page of 50)", TARGET_READ_MS, at_most=True),
        Row("history query, every entry read", found["scan_ms"], "ms", f"one tenant's abandoned games: none of "
            f"{games:,}, so every entry is read", TARGET_READ_MS, at_most=True),
        Row("hot store after retention", found["hot_after"] / 2 ** 20, "MiB",
            f"from {found['hot_before'] / 2 ** 20:,.1f} MiB: every archived game removed", 0.01 * found["hot_before"]
            / 2 ** 20, at_most=True),
    ]


def main(argv: list[str]) -> None:
    games = int(argv[argv.index("--games") + 1]) if "--games" in argv else GAMES
    from bench.__main__ import table
    started = time.perf_counter()
    print(table(run(games), time.perf_counter() - started))


if __name__ == "__main__":
    main(sys.argv[1:])
