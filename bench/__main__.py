"""`python -m bench [NAME ...]`: run the named benchmarks (by default those in DEFAULT), print one table."""
import argparse
import importlib
import os
import platform
import sys
import time

from bench import Row, corpus

# A benchmark is a module whose run() returns rows; listing it here adds it. A slow one
# (say, the services over NATS) can stay out of DEFAULT and be run by name.
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
    "history": "bench.history",
}
DEFAULT = ("games", "fold", "service", "fanout", "poison", "bots")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench",
                                     description="Run the named benchmarks and print one table of their figures.")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run, of {', '.join(BENCHMARKS)} (default: {' '.join(DEFAULT)})")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        print(f"python -m bench: no benchmark {unknown[0]!r} (choose from {', '.join(BENCHMARKS)})", file=sys.stderr)
        return 2
    started, failed, rows, last = time.perf_counter(), False, [], []
    for name in dict.fromkeys(args.names or DEFAULT):
        try:
            module = importlib.import_module(BENCHMARKS[name])
            rows += module.run()
            last += getattr(module, "LAST", [])  # a benchmark's closing line, printed after the table
        except Exception as error:  # one broken benchmark must not hide the others' figures
            print(f"python -m bench: {name} failed: {type(error).__name__}: {error}", file=sys.stderr)
            failed = True
    rows.append(corpus.baseline())
    print(table(rows, time.perf_counter() - started))
    for line in last:
        print(line)
    return 1 if failed else 0


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
    return f"{value:.1f}" if value >= 1 else f"{value:.2f}"   # a ratio of 0.46 is not one of 0.5


if __name__ == "__main__":
    sys.exit(main())
