"""Group commit: the table's appends of many games sharing synced writes. `python -m bench commit`

The services (intake, table, dealer, scoring) play concurrent greedy 4-bot games over NATS with every
append synced, as in bench/service.py, once with each append alone (ZIONCHECK_GROUP_COMMIT=0) and once
grouped into atomic batches (services/bus/publish.py, publish_grouped), taking turns. Reported: the
machine's fsyncs a command at 120 games (bench/syncs.py, Linux perf) and p99 from a command's send to
its batch in the log at 60 games.
"""
import os

from bench import Row, service
from zioncheck.services.bus.publish import GROUP_LEAST

TARGET_FSYNCS, TARGET_P99_MS = 1.3, 50.0   # at 120 and at 60 games


def _run(games: int, grouped: bool) -> dict:
    os.environ["ZIONCHECK_GROUP_COMMIT"] = str(GROUP_LEAST) if grouped else "0"
    try:
        return service.main(games=games, ceilings=False, count_syncs=True)
    finally:
        del os.environ["ZIONCHECK_GROUP_COMMIT"]


def run() -> list[Row]:
    rows = []
    for games in (120, 60):
        alone, grouped = _run(games, False), _run(games, True)
        load = f"{games} concurrent 4-bot games over NATS, sync always"
        said = (f"each append alone: {alone['rate']:,.0f} commands/s, {alone['fsyncs']:.2f} fsyncs a command, "
                f"p99 {alone['p99_ms']:.1f} ms")
        rows += [Row(f"commit: fsyncs a command, {games} games", grouped["fsyncs"], "fsyncs", load,
                     TARGET_FSYNCS if games == 120 else None, said, at_most=True),
                 Row(f"commit: p99 to the log, {games} games", grouped["p99_ms"], "ms",
                     f"{load}; {grouped['rate']:,.0f} commands/s grouped", TARGET_P99_MS if games == 60 else None,
                     f"p50 {grouped['p50_ms']:.1f} ms", at_most=True)]
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
