"""Loading a game from the log over NATS: read, decode and fold, as a table does on a restart
or a takeover, and as replay and export read a log. `python -m bench load`

One finished greedy game of about 1,500 events is read back with `log_store.load` (batched
direct gets), beside two other ways measured in the same rounds: a push ordered consumer
read one message at a time (what `load` did before) and an ephemeral pull consumer fetching
in big batches. Then a table's cold start: every game of LIVE games, each halfway through,
loaded at once with `log_store.load`.
"""
import asyncio
import tempfile
import time
from itertools import groupby
from pathlib import Path

from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from bench import Row
from zioncheck.application.simulation import play_game
from zioncheck.contracts.log import Batch, decode_batch, encode
from zioncheck.domain import GameState, fold
from zioncheck.services.bus import log_store
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.bus.topology import layout
from zioncheck.services.wiring import prepare_topology

SEED, GAME = "bench-load", "g3"          # 1,500 events in 1,206 batches
LIVE, LOADING_AT_ONCE = 1000, 64
TARGET_MS, TARGET_READY_S = 10.0, 10.0   # issue 10: 10 ms a game; a takeover ready in seconds
ROUNDS = 7


def game_batches() -> list[Batch]:
    log = play_game(["greedy"] * 4, SEED, GAME).log
    return [Batch(cause=cause, events=[e.event for e in entries]) for cause, entries in groupby(log, lambda e: e.cause)]


async def write(js: JetStreamContext, game: str, batches: list[Batch]) -> None:
    """A game's log as the table writes it (hand boundaries under `hand`)."""
    for batch in batches:
        await js.publish_async((await layout(js)).log_subject(game, log_store._kind(batch)), encode(batch))


async def load_ordered_push(js: JetStreamContext, game: str) -> GameState:
    """What `log_store.load` did before: a push ordered consumer, one message at a time."""
    stream, subject = await log_store.where(js, game)
    last = await js.get_msg(stream, subject=subject)
    state, seq = GameState(), 0
    sub = await js.subscribe(subject, stream=stream, ordered_consumer=True, deliver_policy=DeliverPolicy.ALL)
    try:
        while seq < last.seq:
            msg = await sub.next_msg(timeout=10)
            seq = msg.metadata.sequence.stream
            state = fold(state, decode_batch(msg.data).events)
    finally:
        await sub.unsubscribe()
    return state


async def load_pull(js: JetStreamContext, game: str, batch: int = 1000) -> GameState:
    """An ephemeral pull consumer on the game's subjects, fetching `batch` messages a request."""
    stream, subject = await log_store.where(js, game)
    total = sum((await log_store.subject_counts(js, stream, subject)).values())
    sub = await js.pull_subscribe(subject, stream=stream, config=ConsumerConfig(
        ack_policy=AckPolicy.NONE, deliver_policy=DeliverPolicy.ALL, mem_storage=True, inactive_threshold=5.0))
    state, read = GameState(), 0
    try:
        while read < total:
            for msg in await sub.fetch(min(batch, total - read), timeout=10):
                state = fold(state, decode_batch(msg.data).events)
                read += 1
    finally:
        await sub.unsubscribe()
    return state


async def measure() -> dict:
    batches = game_batches()
    events = sum(len(b.events) for b in batches)
    with tempfile.TemporaryDirectory() as store:
        server = NatsServer(Path(store) / "jetstream", sync_always=False)
        try:
            await prepare_topology(server.access)
            nc = await connect(server.access, "operator")
            js = nc.jetstream(publish_async_max_pending=4096)
            await write(js, "whole", batches)
            await js.publish_async_completed()
            expected = fold(GameState(), [e for b in batches for e in b.events])
            ways = {"batched direct gets": lambda: _state(log_store.load(js, "whole")),
                    "ordered push consumer": lambda: load_ordered_push(js, "whole"),
                    "pull consumer, 1,000 a fetch": lambda: load_pull(js, "whole")}
            best = dict.fromkeys(ways, float("inf"))
            for _ in range(ROUNDS):
                for name, way in ways.items():
                    started = time.perf_counter()
                    state = await way()
                    best[name] = min(best[name], time.perf_counter() - started)
                    assert state == expected, f"{name} folded another state"
            started = time.perf_counter()
            fold(GameState(), [e for b in batches for e in b.events])
            folding = time.perf_counter() - started
            # A table's cold start: LIVE games, each halfway through, loaded at once (LOADING_AT_ONCE in flight).
            half = batches[: len(batches) // 2]
            for i in range(LIVE):
                await write(js, f"live-{i}", half)
            await js.publish_async_completed()
            gate = asyncio.Semaphore(LOADING_AT_ONCE)

            async def take(game: str) -> int:
                async with gate:
                    return (await log_store.load(js, game)).batches

            started = time.perf_counter()
            loaded = await asyncio.gather(*(take(f"live-{i}") for i in range(LIVE)))
            ready = time.perf_counter() - started
            assert loaded == [len(half)] * LIVE
            await nc.close()
        finally:
            server.stop()
    return {"events": events, "batches": len(batches), "best": best, "fold": folding, "ready": ready,
            "live_batches": LIVE * len(half), "live_events": sum(len(b.events) for b in half)}


async def _state(loading) -> GameState:
    return (await loading).state


def run() -> list[Row]:
    r = asyncio.run(measure())
    best, ms = r["best"], {name: 1000 * seconds for name, seconds in r["best"].items()}
    load = (f"one finished game: {r['events']:,} events in {r['batches']:,} batches; read, decode, fold; "
            f"best of {ROUNDS}")
    others = [name for name in best if name != "batched direct gets"]
    return [
        Row("load a game (log_store.load)", ms["batched direct gets"], "ms", load, TARGET_MS,
            "; ".join(f"{name} {ms[name]:.1f} ms" for name in others) + f"; fold alone {1000 * r['fold']:.1f} ms",
            at_most=True),
        Row("table ready for live games", r["ready"], "s",
            f"{LIVE:,} games halfway ({r['live_events']} events each, {r['live_batches']:,} batches in all), "
            f"{LOADING_AT_ONCE} loading at once", TARGET_READY_S, f"{LIVE / r['ready']:,.0f} games/s", at_most=True),
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
