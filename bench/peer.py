"""The services against the peer a Python developer would pick instead, in one run. `python -m bench peer`

The peer: the `eventsourcing` library (the `bench` extra: `make bench` installs it) on SQLite in
WAL mode with synchronous=FULL, one aggregate per game and one aggregate event per command (the
command's events, as the table's log holds one batch per command), the aggregate kept in
memory between commands. It plays GAMES whole greedy 4-seat games through this project's rules.
The services play the same number of concurrent greedy games over NATS with every append synced
(bench/service.py, as `zioncheck serve` runs them). Then one finished game of about 1,500 events
is rebuilt both ways, taking turns, best of ROUNDS: read, decode and fold (the peer's
repository.get; the project's log_store.load from the log).

The services run on the embedded default number of partitions; BENCH_PARTITIONS=P sets another.
"""
import asyncio
import os
import sqlite3
import tempfile
import time
from functools import cache
from pathlib import Path

from bench import Row, load, service
from zioncheck.application import simulation
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import make_bot
from zioncheck.contracts.commands import StartGame
from zioncheck.contracts.events import AnyEvent
from zioncheck.contracts.log import Batch, decode_batch, encode
from zioncheck.domain import GameState, fold
from zioncheck.services.bus import log_store
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.wiring import prepare_topology

GAMES, SEED, ROUNDS = 20, "bench-peer", 7
PARTITIONS = int(os.environ["BENCH_PARTITIONS"]) if os.environ.get("BENCH_PARTITIONS") else None
TARGET_RATE_RATIO, TARGET_REBUILD_RATIO = 1.5, 4.0   # issue 10, item 8

try:
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event
    from eventsourcing.sqlite import SQLiteConnectionPool
except ImportError:  # the bench extra is not installed
    Application = None


@cache
def peer_classes():
    """The peer's aggregate and application (defined only where the library is installed)."""
    if Application is None:
        raise RuntimeError("the peer needs the eventsourcing library: run `make bench`, "
                           "or `pip install -e '.[bench]'`")

    class PeerGame(Aggregate):
        """One game: its state, folded from one event per command."""

        @event("Opened")
        def __init__(self, game_id: str):
            self.game_id = game_id
            self.state = GameState()

        @event("Played")
        def played(self, batch: str) -> None:
            self.state = fold(self.state, decode_batch(batch.encode()).events)

    class PeerGames(Application):
        pass

    return PeerGame, PeerGames


def synced_sqlite() -> None:
    """Every connection the library opens syncs each commit to disk (WAL mode is the library's own)."""
    if getattr(SQLiteConnectionPool, "synced", False):
        return
    create = SQLiteConnectionPool._create_connection

    def create_synced(pool):
        connection = create(pool)
        connection._sqlite_conn.execute("PRAGMA synchronous=FULL")
        assert connection._sqlite_conn.execute("PRAGMA synchronous").fetchone()[0] == 2   # FULL
        return connection

    SQLiteConnectionPool._create_connection = create_synced
    SQLiteConnectionPool.synced = True


def peer_app(db: Path):
    _, PeerGames = peer_classes()
    synced_sqlite()
    return PeerGames(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db)})


class PeerTable(InProcessTable):
    """The simulator's table, each command's events saved as one event of the game's aggregate."""

    def __init__(self, app, game_id: str, dealer: Dealer):
        super().__init__(dealer=dealer)
        PeerGame, _ = peer_classes()
        self.app, self.aggregate = app, PeerGame(game_id)
        self.commands = 0

    def record(self, events: list[AnyEvent], cause: int) -> list[AnyEvent]:
        self.aggregate.played(encode(Batch(cause=cause, events=events)).decode())
        self.app.save(self.aggregate)
        self.commands += 1
        self.state = self.aggregate.state
        return events


def play_peer_game(app, game_id: str) -> PeerTable:
    """simulation.play_game, through the peer."""
    rng = simulation.game_rng(SEED, game_id)
    bots = [make_bot("greedy", rng) for _ in range(4)]
    dealer = Dealer(seeded(SEED, game_id))
    table = PeerTable(app, game_id, dealer)
    table.handle(StartGame(game_id=game_id, players=len(bots)))
    while not table.state.game_over:
        table.handle(dealer.deal(table.state))
        simulation.play_hand(table, bots, rng)
        table.handle(dealer.reveal(table.state.hand))
    return table


def peer_rate(folder: Path) -> dict:
    app = peer_app(folder / "peer.sqlite")
    mode = sqlite3.connect(folder / "peer.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    started = time.perf_counter()
    commands = sum(play_peer_game(app, f"{SEED}-{i}").commands for i in range(GAMES))
    return {"rate": commands / (time.perf_counter() - started), "commands": commands, "journal": mode}


def peer_stored(folder: Path, batches: list[Batch]):
    """The finished game saved through the peer: (its aggregate's id, its state)."""
    PeerGame, _ = peer_classes()
    app = peer_app(folder / "rebuild.sqlite")
    game = PeerGame("rebuilt")
    for batch in batches:
        game.played(encode(batch).decode())
    app.save(game)
    return game.id, game.state


async def rebuilds(folder: Path, batches: list[Batch]) -> tuple[float, float]:
    """Best seconds to rebuild one finished game (rows or messages read, decoded, folded) from the peer's
    SQLite (nothing cached) and with log_store.load from the log over NATS, taking turns."""
    aggregate, expected = peer_stored(folder, batches)
    server = NatsServer(folder / "jetstream", sync_always=True)
    try:
        await prepare_topology(server.access)
        nc = await connect(server.access, "operator")
        js = nc.jetstream()
        await load.write(js, "rebuilt", batches)
        await js.publish_async_completed()
        peer_best = ours_best = float("inf")
        for _ in range(ROUNDS):
            fresh = peer_app(folder / "rebuild.sqlite")
            started = time.perf_counter()
            state = fresh.repository.get(aggregate).state
            peer_best = min(peer_best, time.perf_counter() - started)
            assert state == expected
            started = time.perf_counter()
            state = (await log_store.load(js, "rebuilt")).state
            ours_best = min(ours_best, time.perf_counter() - started)
            assert state == expected
        await nc.close()
    finally:
        server.stop()
    return peer_best, ours_best


def run(partitions: int | None = PARTITIONS) -> list[Row]:
    peer_classes()   # says at once when the library is missing
    with tempfile.TemporaryDirectory() as folder:
        peer = peer_rate(Path(folder))
        assert peer["journal"] == "wal", peer["journal"]
        ours = service.main(games=GAMES, sync_always=True, ceilings=False, partitions=partitions)
        batches = load.game_batches()
        peer_seconds, our_seconds = asyncio.run(rebuilds(Path(folder), batches))
    events = sum(len(b.events) for b in batches)
    rate_ratio, rebuild_ratio = ours["rate"] / peer["rate"], peer_seconds / our_seconds
    streams = f"{partitions} partition(s)" if partitions else "the embedded default partitions"
    return [
        Row("peer: eventsourcing + SQLite", peer["rate"], "commands/s",
            f"{GAMES} greedy 4-seat games one after another, {peer['commands']:,} commands; WAL, synchronous=FULL"),
        Row("peer: the services", ours["rate"], "commands/s",
            f"{GAMES} concurrent greedy 4-seat games over NATS, sync always, {streams}",
            TARGET_RATE_RATIO * peer["rate"], f"{rate_ratio:.2f} times the peer (target >= {TARGET_RATE_RATIO})"),
        Row("peer: rebuild a game, eventsourcing", 1000 * peer_seconds, "ms",
            f"one finished game, {events:,} events in {len(batches):,} aggregate events: read, decode, fold"),
        Row("peer: rebuild a game, log_store.load", 1000 * our_seconds, "ms",
            f"the same game from the log over NATS, {len(batches):,} batches: read, decode, fold",
            1000 * peer_seconds / TARGET_REBUILD_RATIO,
            f"{rebuild_ratio:.1f} times faster than the peer (target >= {TARGET_REBUILD_RATIO})", at_most=True),
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
