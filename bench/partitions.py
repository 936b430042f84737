"""`python -m bench partitions`: the service bench for P = 1, 2 and 4 partitions, with one and with two
table instances, every append synced to disk; each run against the bare chain of a command's two synced
appends over the same partitioning, measured on the same server right after it. Prints last
`partitions: P=4 gives X.XX times the commands/s of P=1` (one table instance each)."""
from bench import Row
from bench.service import GAMES, SECONDS, main

PARTITIONS, TABLES, ROUNDS = (1, 2, 4), (1, 2), 2
TARGET_SPEEDUP, TARGET_OF_CHAIN, TARGET_P99_MS = 2.0, 0.85, 50
LAST: list[str] = []   # printed after the table


def run() -> list[Row]:
    """Every configuration once a round, in turns, so the machine's drift weighs on each alike; each
    keeps its best round (with the bare chain measured on the same server right after it)."""
    rows, rates = [], {}
    for _ in range(ROUNDS):
        for partitions in PARTITIONS:
            for tables in TABLES:
                r = main(partitions=partitions, tables=tables, ceilings=False, chain=True)
                if r["rate"] > rates.get((partitions, tables), {"rate": 0})["rate"]:
                    rates[(partitions, tables)] = r
    for partitions in PARTITIONS:
        for tables in TABLES:
            r = rates[(partitions, tables)]
            of_chain = r["rate"] / r["chain"]
            rows += [Row(f"P={partitions}, {tables} table(s)", r["rate"], "commands/s",
                         f"{GAMES} concurrent 4-bot games, {SECONDS:g} s, sync always; best of {ROUNDS}",
                         TARGET_OF_CHAIN * r["chain"],
                         f"bare chain {r['chain']:,.0f}/s: {of_chain:.0%} of it (target >= {TARGET_OF_CHAIN:.0%})"),
                     Row(f"  p99 (P={partitions}, {tables} table(s))", r["p99_ms"], "ms",
                         "publish to its batch in the log", TARGET_P99_MS, f"p50 {r['p50_ms']:.1f} ms", at_most=True)]
    top = max(rates.values(), key=lambda r: r["rate"])
    speedup = rates[(4, 1)]["rate"] / rates[(1, 1)]["rate"]
    rows.append(Row("P=4 over P=1 (1 table)", speedup, "x", "commands/s of the two runs above", TARGET_SPEEDUP,
                    f"p99 at the top rate {top['p99_ms']:.1f} ms"))
    LAST[:] = [f"partitions: P=4 gives {speedup:.2f} times the commands/s of P=1"]
    return rows
