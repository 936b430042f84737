"""What the server's timers cost the game services: `python -m bench timers`.

The service benchmark's games (bench/service.py), taken in turns with the table setting each
game's deadlines (R19, as it always does) and with that step left out, so that the machine's
drift weighs on both alike. A deadline is one more synced append (a message schedule on
zc.timer.<p>.<game> in the commands stream), sent together with a batch when the deadline comes
earlier than the schedule pending: with turns quicker than turn_seconds, about one a turn_seconds.
"""
from bench import Row, service

TARGET_SHARE = 0.90   # the rate with deadlines, of the rate without: a deadline costs at most a tenth

# The table as `zioncheck serve` runs it, its deadlines left out: a measurement's baseline only.
WITHOUT_DEADLINES = ["-c", "import sys\n"
                           "from zioncheck.services.table.service import TableService\n"
                           "async def unscheduled(self, logged, due, at): return None\n"
                           "TableService._schedule = unscheduled\n"
                           "from zioncheck.cli.main import main\n"
                           "sys.exit(main(sys.argv[3:]))"]   # after `-c CODE`: -m zioncheck.cli.main serve ...


def timer_cost(rounds: int = 3) -> tuple[dict, dict]:
    """The best run without deadlines and the best with them, taken in turns."""
    runs: dict[bool, list[dict]] = {False: [], True: []}
    for _ in range(rounds):
        for deadlines in (False, True):
            service.PROFILE[:] = [] if deadlines else WITHOUT_DEADLINES
            try:
                runs[deadlines].append(service.main(ceilings=False))
            finally:
                service.PROFILE[:] = []
    best = {deadlines: max(found, key=lambda r: r["rate"]) for deadlines, found in runs.items()}
    return best[False], best[True]


def run() -> list[Row]:
    without, with_ = timer_cost()
    load = f"{service.GAMES} concurrent 4-bot games over NATS, sync always; best of 3, in turns"
    return [Row("service, no turn deadlines", without["rate"], "commands/s", load,
                versus=f"p99 {without['p99_ms']:.1f} ms"),
            Row("service, with turn deadlines", with_["rate"], "commands/s", load, TARGET_SHARE * without["rate"],
                f"{with_['rate'] / without['rate']:.0%} of the rate without (target >= {TARGET_SHARE:.0%}); "
                f"p99 {with_['p99_ms']:.1f} ms")]


if __name__ == "__main__":
    for row in run():
        print(row)
