"""The gateway's list of games (`GET /games`) as the games stored grow. `python -m bench listing`

Stores FEW games, lists the newest LIMIT as the gateway does (`Reads.summaries`), then stores
more until there are MANY and lists again: each game as the projector leaves it (its public view
and four seats' views in KV zc_views) with one batch in its log. The same rounds time
`stored_games`, the scan of every game's log subject that `zioncheck games` makes (and that the
list made before), as the baseline that grows with the games.
"""
import asyncio
import tempfile
import time
from pathlib import Path

from bench import Row
from zioncheck.contracts.log import Batch, encode
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.bus.log_store import stored_games
from zioncheck.services.bus.topology import VIEWS, kv_subject, layout, public_view_key, seat_view_key
from zioncheck.services.gateway.reads import Reads
from zioncheck.services.wiring import prepare_topology

FEW, MANY, LIMIT, SEATS = 1_000, 20_000, 100, 4
ROUNDS = 5
TARGET_GROWTH = 1.5   # the list at MANY games takes at most this many times its time at FEW
VIEW = b'{"seq": 1, "players": 4, "hand": 1, "turn": 0, "totals": [0, 0, 0, 0], "public": true}'   # listed to anyone


async def store(js, first: int, last: int) -> None:
    """Games first..last-1: a log batch each, then their views, as the table and the projector write them."""
    where = await layout(js)
    for i in range(first, last):
        game = f"listed-{i:06d}"
        await js.publish_async(where.log_subject(game, "hand"), encode(Batch(cause=1, events=[])))
        for key in (public_view_key(game), *(seat_view_key(game, seat) for seat in range(SEATS))):
            await js.publish_async(kv_subject(VIEWS, key), VIEW)
    await js.publish_async_completed()


async def best_ms(work, rounds: int = ROUNDS) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        await work()
        best = min(best, time.perf_counter() - started)
    return 1000 * best


async def measure(server: NatsServer) -> dict[int, tuple[float, float]]:
    """{games stored: (ms to list the newest LIMIT, ms to scan every game)}"""
    nc = await connect(server.access, "operator")
    js = nc.jetstream(publish_async_max_pending=4096)
    reads = Reads(js, await js.key_value(VIEWS))
    found, stored = {}, 0
    for games in (FEW, MANY):
        await store(js, stored, games)
        stored = games
        assert len(await reads.summaries(LIMIT)) == LIMIT
        found[games] = (await best_ms(lambda: reads.summaries(LIMIT)), await best_ms(lambda: stored_games(js)))
    await nc.close()
    return found


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        server = NatsServer(Path(folder) / "jetstream", sync_always=False)
        try:
            asyncio.run(prepare_topology(server.access))
            found = asyncio.run(measure(server))
        finally:
            server.stop()
    (few, few_scan), (many, many_scan) = found[FEW], found[MANY]
    return [Row(f"GET /games?limit={LIMIT}, {FEW:,} games stored", few, "ms", "Reads.summaries, best of 5",
                versus=f"a scan of every game's log subject: {few_scan:.1f} ms"),
            Row(f"GET /games?limit={LIMIT}, {MANY:,} games stored", many, "ms", "the same, with 20 times the games",
                TARGET_GROWTH * few, f"{many / few:.2f} times the time at {FEW:,} (target <= {TARGET_GROWTH}); "
                                     f"the scan {many_scan:.1f} ms, {many_scan / few_scan:.1f} times", at_most=True)]
