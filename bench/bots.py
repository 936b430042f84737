"""The bots against each other: how often the strong bot beats the greedy one and sees hands to their end, how
often the expert bot beats the strong one, and how long each takes to decide.

- 400 four-seat games of each preset (Zioncheck, Contract rummy, Liverpool rummy, R24), the strong bot against
  three greedy bots, its seat going round the table: how many of their last hands someone went out of (R15; the
  others end with no winner, R16, R16a), held to 90%; and of Zioncheck's, how often the strong bot has the lowest
  total (R17; a total tied on the lowest counts as its win too), held to 45%.
- 400 two-seat Zioncheck games, strong against greedy, taking turns to sit first: its wins, held to 65%.
- 400 two-seat games of each preset, the expert bot against the strong one, in pairs that play one deal with the
  seats swapped: how often the expert has the lowest total, held to 55%. The expert searches (a few hundred hands
  played out a move): these games are most of the bench's time, which each row says.

Every decision of every bot is timed in CPU time (each `move` and each `out_of_turn`, time.process_time, so that
what else runs on the machine does not count): the strong bot's p99 is held to 100 ms, the expert's to 1 s; the
greedy bot's in the same games is the baseline. The games are played on WORKERS processes at once, each game in
one process, and their seeds are fixed, so each run plays the same games. The figures of docs/bots.md are this
bench's:

    python -m bench bots
"""
import random
import sys
import time
from multiprocessing import Pool

from bench import Row
from zioncheck.application.simulation import hand_results, play_game, wilson
from zioncheck.bots import Bot, make_bot
from zioncheck.bots.shortfall import clear_memory
from zioncheck.contracts.commands import Rules

FOUR_SEATS, TWO_SEATS, EXPERT_GAMES, SEED = 400, 400, 400, "bots"
PRESETS = ("zioncheck", "contract", "liverpool")
FOUR_TARGET, TWO_TARGET = 0.45, 0.65   # the strong bot's share of games against greedy bots
FINISHED_TARGET = 0.90                 # last hands someone goes out of
EXPERT_TARGET = 0.55                   # the expert's share of games against the strong bot
P99_TARGET, EXPERT_P99_TARGET = 0.100, 1.0   # CPU seconds a decision may take, at p99
WORKERS = 2
PROGRESS = 200   # games between two progress lines
LAST: list[str] = []   # printed after the table


class Timed:
    """A bot whose every decision's CPU time is put in `times`."""

    def __init__(self, bot: Bot, times: list[float]):
        self.bot, self.times, self.name = bot, times, bot.name

    def move(self, state, seat):
        started = time.process_time()
        command = self.bot.move(state, seat)
        self.times.append(time.process_time() - started)
        return command

    def out_of_turn(self, state, seat):
        started = time.process_time()
        commands = self.bot.out_of_turn(state, seat)
        self.times.append(time.process_time() - started)
        return commands


Game = tuple[tuple[str, ...], str, str]   # the bots by seat, the game's id, its preset


def play(game: Game) -> tuple[tuple[str, ...], tuple[int, ...], bool, dict[str, list[float]], float]:
    """One game as `zioncheck simulate` plays it (application/simulation.py), each bot timed: its bots, its
    winners, whether its last hand had one, each bot's decision times, and the game's CPU seconds."""
    started = time.process_time()
    names, game_id, preset = game
    times: dict[str, list[float]] = {}

    def timed(name: str, rng: random.Random) -> Timed:
        return Timed(make_bot(name, rng), times.setdefault(name, []))

    table = play_game(list(names), SEED, game_id, Rules(preset=preset), timed)  # type: ignore[arg-type]  # a Timed bot is a Bot
    ended = hand_results(table.log)[-1].winner is not None
    return names, table.state.winners, ended, times, time.process_time() - started


def against(bot: str, others: str, players: int, games: int, preset: str, tag: str) -> list[Game]:
    """Games of `players` seats, `bot` in one and `others` in the rest, its seat going round the table."""
    found = []
    for i in range(games):
        names = [others] * players
        names[i % players] = bot
        found.append((tuple(names), f"{SEED}-{tag}-{i:05d}", preset))
    return found


def paired(bot: str, other: str, games: int, preset: str) -> list[Game]:
    """Two-seat games of `bot` against `other` in pairs: one deal (one game id) played with either in seat 0."""
    return [((bot, other) if i % 2 == 0 else (other, bot), f"{SEED}-{bot}-{preset}-{i // 2:05d}", preset)
            for i in range(games)]


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def run(four: int = FOUR_SEATS, two: int = TWO_SEATS, expert: int = EXPERT_GAMES) -> list[Row]:
    clear_memory()   # the strong bot starts with nothing remembered, as a fresh process does
    batches = {("four", preset): against("strong", "greedy", 4, four, preset, "4" if preset == "zioncheck"
                                         else f"4-{preset}") for preset in PRESETS}
    batches["two", "zioncheck"] = against("strong", "greedy", 2, two, "zioncheck", "2")
    batches.update({("expert", preset): paired("expert", "strong", expert, preset) for preset in PRESETS})
    games = [(key, game) for key, found in batches.items() for game in found]
    times: dict[str, list[float]] = {}
    won = dict.fromkeys(batches, 0)
    finished = dict.fromkeys(batches, 0)
    seconds = dict.fromkeys(batches, 0.0)
    started = time.monotonic()
    with Pool(WORKERS, initializer=clear_memory) as pool:
        for done, (key, (names, winners, ended, spent, cpu)) in enumerate(zip(
                (key for key, _ in games), pool.imap(play, [game for _, game in games]), strict=True), start=1):
            if done % PROGRESS == 0 or done == len(games):
                print(f"bots: {done:,} of {len(games):,} games played, {time.monotonic() - started:.0f} s "
                      f"({key[0]} {key[1]})", file=sys.stderr, flush=True)
            subject = "expert" if key[0] == "expert" else "strong"
            won[key] += any(names[seat] == subject for seat in winners)
            finished[key] += ended
            seconds[key] += cpu
            for name, found in spent.items():
                times.setdefault(name, []).extend(found)
    rows = [rate_row(f"last hands someone goes out of, {preset}, strong vs 3 greedy", finished["four", preset], four,
                     FINISHED_TARGET, f"{seconds['four', preset] / WORKERS / 60:.1f} min on {WORKERS} cores")
            for preset in PRESETS]
    rows += [
        rate_row("strong bot has the lowest total, 4 seats vs 3 greedy", won["four", "zioncheck"], four, FOUR_TARGET,
                 "a greedy bot in its seat: 25.0% (one seat of four)"),
        rate_row("strong bot wins, 2 seats vs greedy", won["two", "zioncheck"], two, TWO_TARGET,
                 "a greedy bot in its seat: 50.0% (one seat of two)"),
    ]
    rows += [rate_row(f"expert has the lowest total, {preset}, 2 seats vs strong", won["expert", preset], expert,
                      EXPERT_TARGET, f"{seconds['expert', preset] / WORKERS / 60:.1f} min "
                      f"on {WORKERS} cores") for preset in PRESETS]
    slow, expert_slow, greedy_slow = p99(times["strong"]), p99(times["expert"]), p99(times["greedy"])
    rows += [
        Row("strong bot decision p99, CPU", 1000 * slow, "ms", f"{len(times['strong']):,} decisions in those games",
            1000 * P99_TARGET, f"greedy bot p99 {1000 * greedy_slow:.2f} ms in the same games", at_most=True),
        Row("expert bot decision p99, CPU", 1000 * expert_slow, "ms",
            f"{len(times['expert']):,} decisions in those games", 1000 * EXPERT_P99_TARGET,
            f"max {1000 * max(times['expert']):.0f} ms", at_most=True),
    ]
    LAST[:] = [f"bots: {row.name}: {row.rate:.1f} {row.unit} ({row.workload}), target "
               f"{'<=' if row.at_most else '>='} {row.target:g} {row.unit}: "
               f"{'PASS' if (row.rate <= row.target if row.at_most else row.rate >= row.target) else 'FAIL'}"
               for row in rows if row.target is not None]
    return rows


def rate_row(name: str, won: int, games: int, target: float, versus: str) -> Row:
    return Row(name, 100 * won / games, "%", f"{games} games, 95% interval {_interval(won, games)}", 100 * target,
               versus)


def _interval(won: int, games: int) -> str:
    low, high = wilson(won, games)
    return f"{100 * low:.1f}-{100 * high:.1f}%"


if __name__ == "__main__":
    for row in run():
        print(row)
    print(*LAST)
