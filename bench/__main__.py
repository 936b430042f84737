"""`python -m bench [NAME ...]`: run the named benchmarks (by default those in DEFAULT), print one table."""
import argparse
import importlib
import math
import os
import platform
import sys
import time

from bench import Row, corpus

# A benchmark is a module whose run() returns rows; listing it here adds it, and `make bench` runs it.
BENCHMARKS = {
    "games": "bench.games",
    "fold": "bench.fold",
    "service": "bench.service",
    "fanout": "bench.fanout",
    "poison": "bench.poison",
    "cpu": "bench.cpu",
    "load": "bench.load",
    "peer": "bench.peer",
    "partitions": "bench.partitions",
    "timers": "bench.timers",
    "listing": "bench.listing",
    "chaos": "bench.chaos",
    "hold": "bench.claim_hold",
    "bots": "bench.bots",
    "positions": "bench.positions",
    "told": "bench.told",
    "history": "bench.history",
    "commit": "bench.commit",
}
DEFAULT = tuple(BENCHMARKS)   # `make bench`: every one


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Run the named benchmarks and print one table of their figures; each benchmark ends with one "
                    "line: its figure, its target, PASS or FAIL. Exits 1 when any FAILs (a target missed, or a "
                    "benchmark that could not run).")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run, of {', '.join(BENCHMARKS)} (default: every one)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        print(f"python -m bench: no benchmark {unknown[0]!r} (choose from {', '.join(BENCHMARKS)})", file=sys.stderr)
        return 2
    started, rows, last, verdicts = time.perf_counter(), [], [], []
    for name in dict.fromkeys(args.names or DEFAULT):
        try:
            module = importlib.import_module(BENCHMARKS[name])
            found = module.run()
            last += getattr(module, "LAST", [])  # a benchmark's closing line, printed after the table
        except Exception as error:  # one broken benchmark must not hide the others' figures
            found, said = [], f"{name}: could not run ({type(error).__name__}: {error}): FAIL"
        else:
            said = verdict(name, found)
        rows += found
        verdicts.append(said)
        print(said, file=sys.stderr, flush=True)   # as each ends: a long run shows its progress
    rows.append(corpus.baseline())
    print(table(rows, time.perf_counter() - started))
    for line in last + verdicts:
        print(line)
    return 1 if any(line.endswith("FAIL") for line in verdicts) else 0


def verdict(name: str, rows: list[Row]) -> str:
    """A benchmark's one closing line: its first target missed, else its first target met, each with its
    figure; FAIL for a benchmark that measured no number (NaN), or that has no target to be held to."""
    unmeasured = [row for row in rows if math.isnan(row.rate) or math.isinf(row.rate)]
    if unmeasured:
        return f"{name}: {unmeasured[0].name} measured no number ({unmeasured[0].rate}): FAIL"
    targeted = [row for row in rows if row.target is not None]
    if not targeted:
        return f"{name}: no figure with a target: FAIL"
    missed = [row for row in targeted if _mark(row) != "PASS"]
    row = (missed or targeted)[0]
    met = f"{len(targeted) - len(missed)} of {len(targeted)} targets met"
    figure = row.name.removeprefix(f"{name}: ")   # a row that names its benchmark already
    return (f"{name}: {figure} {_number(row.rate)} {row.unit}, target {'<=' if row.at_most else '>='} "
            f"{_number(row.target)} {row.unit} ({met}): {'FAIL' if missed else 'PASS'}")


def table(rows: list[Row], seconds: float) -> str:
    head = (f"Zioncheck bench: Python {platform.python_version()}, {os.cpu_count()} CPUs. "
            "Each rate is the best of a few rounds;\n"
            "'vs baseline' compares it with msgspec decoding the same log (last row), measured in the same rounds.\n")
    cells = [("bench", "measured", "target", "mark", "vs baseline", "workload")]
    for row in rows:
        bound = "<=" if row.at_most else ">="
        target = f"{bound} {_number(row.target)} {row.unit}" if row.target is not None else ""
        cells.append((row.name, f"{_number(row.rate)} {row.unit}", target, _mark(row), row.versus, row.workload))
    widths = [max(len(line[i]) for line in cells) for i in range(len(cells[0]) - 1)]
    # the last cell is not padded: it has no width, so zip stops before it
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=False)) + "  " + line[-1]
             for line in cells]
    return "\n".join([head, *lines, f"\n{len(rows)} figures in {seconds:.1f}s"])


def _mark(row: Row) -> str:
    if row.target is None:
        return ""
    met = row.rate <= row.target if row.at_most else row.rate >= row.target
    return "PASS" if met else ("ABOVE" if row.at_most else "BELOW")


def _number(value: float) -> str:
    if value >= 100 or value == int(value):
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}".rstrip("0").rstrip(".")   # a ratio of 0.46 is not one of 0.5, nor a target of 1.25 one of 1.2


if __name__ == "__main__":
    sys.exit(main())
