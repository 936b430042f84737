"""The whole path of the services against the peers a Python developer would pick instead, side by side
in one run. `python -m bench peer`

The peers: the `eventsourcing` library (the `bench` extra: `make bench` installs it), one aggregate
per game and one aggregate event per command (the command's events, as the table's log holds one
batch per command), the aggregate kept in memory between commands, each writer playing greedy 4-seat
games one after another through this project's rules for PEER_SECONDS:
- on SQLite in WAL mode with synchronous=FULL, one writer (SQLite takes one at a time);
- on PostgreSQL with fsync and synchronous_commit on, with 1, 4 and 8 writers, each a process of
  its own; the best of them is the PostgreSQL peer. The bench starts the server itself from the
  machine's binaries, in a temporary folder, and stops and removes it at the end (bench/postgres.py);
  it fails, saying why, when the server cannot start.
The whole path: the services with the projector writing views and feed (bench/service.py), 20 and
120 concurrent greedy games over NATS with every append synced, each command timed from its send to
its batch in the log and to the first view of its seat that covers the batch.

Each side's CPU a command comes from /proc: a peer's, its writers' processes and PostgreSQL's
postmaster with every backend; the whole path's, every service process, nats-server and the
bots' process. The sides take turns, TURNS rounds (the second backwards), and each figure is its
side's best round by commands/s. The targets: the whole path at least 1.5 times the best peer at
120 games and as fast at 20; at 120 games at most 0.5 ms of CPU a command, a p99 to the view of
at most 100 ms, and at most a quarter of that CPU the projector's (its process). Beside them, the
game services alone (no projector, no views) at 120 games, in the same turns: the floor the whole
path stands on, set against the CPU a command the machine's cores leave at the target rate. Then
one finished game of about 1,500 events is rebuilt both ways, taking turns, best of ROUNDS: read,
decode and fold (the SQLite peer's repository.get; the project's log_store.load from the log).

The services run on the embedded default number of partitions; BENCH_PARTITIONS=P sets another.
"""
import asyncio
import itertools
import multiprocessing
import os
import sqlite3
import sys
import tempfile
import time
from functools import cache
from pathlib import Path
from queue import Empty

from bench import Row, load, service
from bench.postgres import PostgresServer
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

SEED, ROUNDS = "bench-peer", 7      # ROUNDS: of the rebuild
TURNS = 2                           # rounds of the whole comparison, each side once a round
PEER_SECONDS = 10.0                 # how long each peer run plays
WRITERS = (1, 4, 8)                 # the PostgreSQL peer's concurrent writers, each a process
GAMES = (20, 120)                   # the services' concurrent games
PARTITIONS = int(os.environ["BENCH_PARTITIONS"]) if os.environ.get("BENCH_PARTITIONS") else None
TARGET_POSTGRES_RATIO = {20: 1.5, 120: 2.0}        # the whole path over the PostgreSQL peer
TARGET_SQLITE_RATIO = {120: 0.75}                  # and over the SQLite peer
TARGET_MESSAGES = {120: 12}                        # through nats-server a command, in and out
TARGET_CPU_RATIO = {120: 1.25}                     # the whole path's CPU a command over the game services' alone
TARGET_PROJECTOR_SHARE = {20: 15, 120: 15}         # percent of the whole path's CPU
TARGET_VIEW_RATIO = {20: 1.5, 120: 1.5}            # p99 to the seat's view over p99 to the log
TARGET_REBUILD_RATIO = 4.0

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


def sqlite_env(db: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db)}


def peer_app(env: dict[str, str]):
    """The peer's application on the store `env` names (sqlite_env, PostgresServer.env)."""
    _, PeerGames = peer_classes()
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        synced_sqlite()
    return PeerGames(env=env)


class WindowOver(Exception):
    """A writer's window ended: the command in hand is not saved."""


class Window:
    """The seconds a writer plays; the commands it saved within them."""

    def __init__(self, seconds: float):
        self.end, self.commands = time.perf_counter() + seconds, 0


class PeerTable(InProcessTable):
    """The simulator's table, each command's events saved as one event of the game's aggregate."""

    def __init__(self, app, game_id: str, dealer: Dealer, window: Window | None = None):
        super().__init__(dealer=dealer)
        PeerGame, _ = peer_classes()
        self.app, self.aggregate, self.window = app, PeerGame(game_id), window
        self.commands = 0

    def record(self, events: list[AnyEvent], cause: int) -> list[AnyEvent]:
        if self.window is not None and time.perf_counter() >= self.window.end:
            raise WindowOver
        self.aggregate.played(encode(Batch(cause=cause, events=events)).decode())
        self.app.save(self.aggregate)
        self.commands += 1
        if self.window is not None:
            self.window.commands += 1
        self.state = self.aggregate.state
        return events


def play_peer_game(app, game_id: str, window: Window | None = None) -> PeerTable:
    """simulation.play_game, through the peer."""
    rng = simulation.game_rng(SEED, game_id)
    bots = [make_bot("greedy", rng) for _ in range(4)]
    dealer = Dealer(seeded(SEED, game_id))
    table = PeerTable(app, game_id, dealer, window)
    table.handle(StartGame(game_id=game_id, players=len(bots)))
    while not table.state.game_over:
        table.handle(dealer.deal(table.state))
        simulation.play_hand(table, bots, rng)
        table.handle(dealer.reveal(table.state.hand))
    return table


def peer_writer(env: dict[str, str], writer: int, seconds: float, go, told) -> None:
    """One writer of the peer, a process of its own: once `go` is set, greedy 4-seat games one after
    another until its window ends. Tells ("ready",), then ("done", commands saved within the window,
    its own CPU seconds over it), or ("failed", why)."""
    try:
        app = peer_app(env | {"CREATE_TABLE": "no"})   # peer_run made them
        told.put(("ready",))
        go.wait()
        cpu = service.cpu_seconds(os.getpid())
        window = Window(seconds)
        try:
            for game in itertools.count():
                play_peer_game(app, f"{SEED}-{writer}-{game}", window)
        except WindowOver:
            pass
        told.put(("done", window.commands, service.cpu_seconds(os.getpid()) - cpu))
        app.close()
    except Exception as error:
        told.put(("failed", f"writer {writer}: {type(error).__name__}: {error}"))


def peer_run(env: dict[str, str], writers: int, postgres: PostgresServer | None = None,
             seconds: float = PEER_SECONDS) -> dict:
    """`writers` processes playing through the peer at once for `seconds`: commands/s, and the CPU a
    command of the writers and of PostgreSQL (its postmaster and every backend), from /proc."""
    peer_app(env).close()   # the tables made once, before the writers race to make them
    spawn = multiprocessing.get_context("spawn")
    go, told = spawn.Event(), spawn.Queue()
    processes = [spawn.Process(target=peer_writer, args=(env, w, seconds, go, told)) for w in range(writers)]
    for process in processes:
        process.start()
    try:
        _heard(told, processes, "ready", patience=120)
        go.set()
        before = postgres.cpu_seconds() if postgres else 0.0
        found = _heard(told, processes, "done", patience=seconds + 120)
        database = (postgres.cpu_seconds() - before) if postgres else 0.0
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
                process.join()
    commands = max(sum(c for _, c, _ in found), 1)
    python = sum(cpu for _, _, cpu in found)
    return {"writers": writers, "commands": commands, "rate": commands / seconds,
            "cpu_us": 1e6 * (python + database) / commands, "database_cpu_us": 1e6 * database / commands}


def _heard(told, processes: list, word: str, patience: float) -> list[tuple]:
    """What each writer tells, `word` from every one; raises, saying why, when one failed or ended
    without a word, or when `patience` seconds pass first."""
    found: list[tuple] = []
    deadline = time.monotonic() + patience
    while len(found) < len(processes):
        try:
            message = told.get(timeout=1.0)
        except Empty:
            if ended := [p for p in processes if p.exitcode not in (None, 0)]:
                raise RuntimeError(f"a writer of the peer ended with exit code {ended[0].exitcode}") from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"the peer's writers did not tell {word!r} within {patience:.0f} s") from None
            continue
        if message[0] == "failed":
            raise RuntimeError(f"a writer of the peer failed: {message[1]}")
        found.append(message)
    return found


def sqlite_run(folder: Path, turn: int) -> dict:
    db = folder / f"peer-{turn}.sqlite"
    run = peer_run(sqlite_env(db), 1)
    journal = sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0]
    assert journal == "wal", journal
    return run


def peer_stored(folder: Path, batches: list[Batch]):
    """The finished game saved through the peer: (its aggregate's id, its state)."""
    PeerGame, _ = peer_classes()
    app = peer_app(sqlite_env(folder / "rebuild.sqlite"))
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
            fresh = peer_app(sqlite_env(folder / "rebuild.sqlite"))
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


def whole_path(games: int, partitions: int | None) -> dict:
    """The services with the projector writing views and feed, `games` concurrent games, each command
    timed to its batch in the log and to its seat's view; the CPU a command of every process."""
    run = service.main(games=games, projector=True, views=True, ceilings=False, partitions=partitions)
    run["cpu_us"] = 1000 * service.cpu_ms(run)
    return run


def game_services(games: int, partitions: int | None) -> dict:
    """The same games through the game services alone: no projector, no views or feed."""
    run = service.main(games=games, ceilings=False, partitions=partitions)
    run["cpu_us"] = 1000 * service.cpu_ms(run)
    return run


def run(partitions: int | None = PARTITIONS) -> list[Row]:
    peer_classes()   # says at once when the library is missing
    runs: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as folder, PostgresServer() as postgres:
        sides = {"sqlite": lambda turn: sqlite_run(Path(folder), turn),
                 **{f"postgres {w}": lambda _, w=w: peer_run(postgres.env, w, postgres) for w in WRITERS},
                 **{f"services {g}": lambda _, g=g: whole_path(g, partitions) for g in GAMES},
                 "game services": lambda _: game_services(max(GAMES), partitions)}
        # peers and services alternate, and the second round runs backwards: the machine's drift
        # weighs on every side alike
        order = ["sqlite", f"services {GAMES[0]}", *(f"postgres {w}" for w in WRITERS[:-1]),
                 f"services {GAMES[1]}", f"postgres {WRITERS[-1]}", "game services"]
        for turn in range(TURNS):
            for side in order if turn % 2 == 0 else order[::-1]:
                found = sides[side](turn)
                runs.setdefault(side, []).append(found)
                print(f"peer: round {turn + 1}, {side}: {found['rate']:,.0f} commands/s, "
                      f"{found['cpu_us']:,.0f} us CPU a command"
                      + (f", p99 to the log {found['p99_ms']:,.1f} ms, to the view {found['view_p99_ms']:,.1f} ms"
                         if "view_p99_ms" in found else ""), file=sys.stderr, flush=True)
        batches = load.game_batches()
        peer_seconds, our_seconds = asyncio.run(rebuilds(Path(folder), batches))
    best = {side: max(found, key=lambda r: r["rate"]) for side, found in runs.items()}
    postgres_best = max((best[f"postgres {w}"] for w in WRITERS), key=lambda r: r["rate"])
    rows = peer_rows(best, postgres_best)
    for games in GAMES:
        rows += whole_path_rows(games, best[f"services {games}"], best["game services"], postgres_best,
                                best["sqlite"], partitions)
    rows.append(floor_row(best["game services"]))
    events = sum(len(b.events) for b in batches)
    rebuild_ratio = peer_seconds / our_seconds
    return rows + [
        Row("peer: rebuild a game, eventsourcing", 1000 * peer_seconds, "ms",
            f"one finished game, {events:,} events in {len(batches):,} aggregate events: read, decode, fold"),
        Row("peer: rebuild a game, log_store.load", 1000 * our_seconds, "ms",
            f"the same game from the log over NATS, {len(batches):,} batches: read, decode, fold",
            1000 * peer_seconds / TARGET_REBUILD_RATIO,
            f"{rebuild_ratio:.1f} times faster than the peer (target >= {TARGET_REBUILD_RATIO})", at_most=True),
    ]


def peer_rows(best: dict[str, dict], postgres_best: dict) -> list[Row]:
    rounds = f"best of {TURNS} rounds in turns with the services"
    sqlite = best["sqlite"]
    rows = [Row("peer: eventsourcing + SQLite, 1 writer", sqlite["rate"], "commands/s",
                f"greedy 4-seat games one after another for {PEER_SECONDS:.0f} s, one aggregate event a command; "
                f"WAL, synchronous=FULL; {rounds}"),
            Row("  CPU a command, SQLite", sqlite["cpu_us"], "us", "the writer's process (SQLite runs in it)")]
    for writers in WRITERS:
        found = best[f"postgres {writers}"]
        chosen = "the best PostgreSQL run" if found is postgres_best else ""
        rows += [Row(f"peer: eventsourcing + PostgreSQL, {writers} writer{'s' * (writers > 1)}", found["rate"],
                     "commands/s", f"{writers} process{'es' * (writers > 1)}, each playing games one after another for "
                     f"{PEER_SECONDS:.0f} s; fsync, synchronous_commit on; {rounds}", versus=chosen),
                 Row(f"  CPU a command, PostgreSQL, {writers} writer{'s' * (writers > 1)}", found["cpu_us"], "us",
                     "the writers' processes and PostgreSQL's postmaster and backends",
                     versus=f"PostgreSQL's {found['database_cpu_us']:,.0f} us of it")]
    return rows


def floor_row(found: dict) -> Row:
    """The game services alone: the floor the whole path stands on, its CPU a command the yardstick of
    what the views and the feed add."""
    return Row(f"  CPU a command, game services alone, {max(GAMES)} games", found["cpu_us"], "us",
               "table, dealer, scoring, intake, nats-server and the bots, no projector; in turns with the rest",
               versus=f"{found['rate']:,.0f} commands/s; {found['msgs_in'] + found['msgs_out']:.1f} messages through "
                      f"nats-server a command")


def whole_path_rows(games: int, found: dict, alone: dict, postgres: dict, sqlite: dict,
                    partitions: int | None) -> list[Row]:
    """The whole path at `games` games against its targets: its rate over each peer's, the messages through
    the server a command, its CPU over the game services' alone, the projector's share, and p99 to the view
    over p99 to the log. A row without a target is printed for its figure alone."""
    streams = f"{partitions} partition(s)" if partitions else "the embedded default partitions"
    parts = ", ".join(f"{name} {1000 * found[f'{part}_cpu_ms']:.0f}" for part, name in service.PARTS.items())
    messages = found["msgs_in"] + found["msgs_out"]
    postgres_ratio = TARGET_POSTGRES_RATIO.get(games)
    rows = [
        Row(f"peer: whole path, {games} games", found["rate"], "commands/s",
            f"{games} concurrent greedy 4-seat games over NATS, sync always, with the projector writing views and "
            f"feed, {streams}; best of {TURNS} rounds in turns with the peers",
            postgres_ratio * postgres["rate"] if postgres_ratio else None,
            f"{found['rate'] / postgres['rate']:.2f} times the PostgreSQL peer ({postgres['writers']} writers)"
            + (f", target >= {postgres_ratio}" if postgres_ratio else "")),
        Row(f"  over the SQLite peer, {games} games", found["rate"] / sqlite["rate"], "x",
            f"the whole path's commands/s over eventsourcing on SQLite's ({sqlite['rate']:,.0f})",
            TARGET_SQLITE_RATIO.get(games)),
        Row(f"  messages through nats-server a command, {games} games", messages, "msgs",
            "in and out of the server (its /varz) over the run, every connection", TARGET_MESSAGES.get(games),
            f"{found['msgs_in']:.1f} in, {found['msgs_out']:.1f} out; by connection, in and out: "
            + ", ".join(f"{name} {count:.1f}" for name, count in
                        sorted(found["msgs_by"].items(), key=lambda item: -item[1]) if count >= 0.05),
            at_most=True),
        Row(f"  CPU a command, whole path, {games} games", found["cpu_us"], "us",
            "every service process, nats-server and the bots' process", versus=parts),
    ]
    if games == max(GAMES):   # the game services alone run at this many games
        rows.append(Row(f"  whole path's CPU over the game services' alone, {games} games",
                        found["cpu_us"] / alone["cpu_us"], "x", "CPU a command, both in the same turns",
                        TARGET_CPU_RATIO.get(games), f"{found['cpu_us']:,.0f} us against {alone['cpu_us']:,.0f} us",
                        at_most=True))
    return rows + [
        Row(f"  the projector's share of that CPU, {games} games",
            100_000 * found["projector_cpu_ms"] / found["cpu_us"], "%",
            "the projector's process, of every process of the whole path",
            TARGET_PROJECTOR_SHARE.get(games), f"{1000 * found['projector_cpu_ms']:.0f} us a command", at_most=True),
        Row(f"  p99 to the seat's view over p99 to the log, {games} games", found["view_p99_ms"] / found["p99_ms"],
            "x", "a command's send to the first view of its seat covering its batch, and to its batch in the log",
            TARGET_VIEW_RATIO.get(games),
            f"{found['view_p99_ms']:,.1f} ms against {found['p99_ms']:,.1f} ms; view p50 "
            f"{found['view_p50_ms']:,.1f} ms; {found['view_commands']:,} commands; the projector wrote the window's "
            f"last views {found['view_catch_up']:.1f} s after it"
            + (f"; {found['view_missing']:,} views not within {service.VIEW_PATIENCE:.0f} s" if found["view_missing"]
               else ""), at_most=True),
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
