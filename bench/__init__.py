"""Benchmarks: `python -m bench [NAME ...]` (or `make bench`) measures and prints one table.

Each benchmark is a module with `run() -> list[Row]`, listed in `bench.__main__`.
The machine is noisy, so every figure is the best of a few rounds, and each is also
given against a baseline (`bench.corpus`) measured in the same rounds, taking turns
with it, so that a busy moment slows both alike.
"""
import time
from collections.abc import Callable
from typing import NamedTuple


class Row(NamedTuple):
    """One line of the table: a rate, its target if it has one, and how it compares to the baseline."""
    name: str
    rate: float
    unit: str
    workload: str
    target: float | None = None
    versus: str = ""
    at_most: bool = False   # the target is a ceiling (a latency), not a floor


def best_rates(works: dict[str, tuple[Callable[[], object], int]], rounds: int) -> dict[str, float]:
    """Units per second of each (work, units), the best of `rounds`; in each round every work runs once."""
    best = dict.fromkeys(works, float("inf"))
    for _ in range(rounds):
        for name, (work, _) in works.items():
            started = time.perf_counter()
            work()
            best[name] = min(best[name], time.perf_counter() - started)
    return {name: units / best[name] for name, (_, units) in works.items()}
