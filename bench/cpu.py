"""CPU per command: the services over NATS with the server's default sync, where the Python
path, not the disk, limits the rate. `python -m bench cpu`

Reports the table's CPU time per command, the whole chain's (table, dealer and scoring,
nats-server), and the commands/s against the bare chain of two synced appends measured on
the same server in the same run (bench/service.py, chain_ceiling).
"""
from bench import Row, service

TARGET_OF_CHAIN = 0.60   # the services' rate as a share of the bare chain, sync default
ROUNDS = 2


def run() -> list[Row]:
    runs = [service.main(sync_always=False) for _ in range(ROUNDS)]
    best = max(runs, key=lambda r: r["rate"] / r["chain"])
    per = {name: 1000 * best[f"{name}_cpu_ms"] for name in ("table", "others", "server", "bots")}
    chain = per["table"] + per["others"] + per["server"]
    share = best["rate"] / best["chain"]
    load = f"{service.GAMES} concurrent 4-bot games over NATS, sync default; best of {ROUNDS}"
    return [
        Row("cpu: table", per["table"], "us/command", load,
            versus=f"dealer+scoring {per['others']:,.0f} us, nats-server {per['server']:,.0f} us, "
                   f"bots {per['bots']:,.0f} us"),
        Row("cpu: whole chain", chain, "us/command", "table + dealer/scoring + nats-server, per command"),
        Row("cpu: service vs bare chain", 100 * share, "%", load, 100 * TARGET_OF_CHAIN,
            f"{best['rate']:,.0f} commands/s; bare two-append chain {best['chain']:,.0f}/s"),
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
