"""The recorded log the benchmarks share, and the baseline every benchmark measures beside itself.

The log is a few whole 4-seat greedy games, played once per run with a fixed seed,
kept both as JSON lines (as a log file holds them) and as decoded entries. The
baseline is msgspec decoding those lines into `Entry` structs: C code that none of
this project's changes touch, so a ratio to it says how fast our code is whatever
else the machine is doing.
"""
from functools import cache

import msgspec

from bench import Row, best_rates
from zioncheck.application.simulation import play_game
from zioncheck.contracts.log import Entry, write_jsonl

GAMES, SEED = 8, "bench-log"
_decode_rates: list[float] = []  # every measurement of the baseline in this run


@cache
def lines() -> tuple[bytes, ...]:
    """Every game's log, one JSON line per event."""
    logs = [play_game(["greedy"] * 4, SEED, f"{SEED}-{i}").log for i in range(GAMES)]
    return tuple(line for log in logs for line in write_jsonl(log).splitlines())


@cache
def entries() -> tuple[tuple[Entry, ...], ...]:
    """The same log decoded, game by game."""
    decode = msgspec.json.Decoder(Entry).decode
    games: list[list[Entry]] = []
    for line in lines():
        entry = decode(line)
        if entry.seq == 1:
            games.append([])
        games[-1].append(entry)
    return tuple(map(tuple, games))


def decoding():
    """The baseline's work and its size in events, for `best_rates`: decode every line into an `Entry`."""
    decode, log = msgspec.json.Decoder(Entry).decode, lines()
    return (lambda: [decode(line) for line in log]), len(log)


def noted(rate: float) -> float:
    """Keeps a measurement of the baseline for the table's baseline row; returns it."""
    _decode_rates.append(rate)
    return rate


def baseline(rounds: int = 5) -> Row:
    """The baseline as last measured in this run (beside fold, in the default run); measured now if it was not."""
    if not _decode_rates:
        noted(best_rates({"decode": decoding()}, rounds)["decode"])
    return Row("decode", _decode_rates[-1], "events/s", f"msgspec JSON -> Entry, same {GAMES}-game log",
               versus="baseline")
