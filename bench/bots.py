"""The strong bot against the greedy one: how often it wins, and how long it takes to decide.

400 four-seat games, the strong bot against three greedy bots, its seat going round the table; and 400 two-seat
games, strong against greedy, taking turns to sit first. A four-seat game is the strong bot's when it has the
lowest total (R17); a total tied on the lowest counts as its win too, the game's winners sharing it. Every
decision of every bot is timed (each `move` and each `out_of_turn`), and the strong bot's p99 is held to 100 ms;
the greedy bot's p99 in the same games is its baseline. The figures of docs/bots.md are this bench's:

    python -m bench bots
"""
import time

from bench import Row
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import game_rng, play_hand, wilson
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import Bot, make_bot
from zioncheck.bots.shortfall import clear_memory
from zioncheck.contracts.commands import StartGame

FOUR_SEATS, TWO_SEATS, SEED = 400, 400, "bots"
FOUR_TARGET, TWO_TARGET = 0.45, 0.65   # the strong bot's share of games
P99_TARGET = 0.100                      # seconds a decision may take, at p99
LAST: list[str] = []   # printed after the table


class Timed:
    """A bot whose every decision is timed into `times`."""

    def __init__(self, bot: Bot, times: list[float]):
        self.bot, self.times, self.name = bot, times, bot.name

    def move(self, state, seat):
        started = time.perf_counter()
        command = self.bot.move(state, seat)
        self.times.append(time.perf_counter() - started)
        return command

    def out_of_turn(self, state, seat):
        started = time.perf_counter()
        commands = self.bot.out_of_turn(state, seat)
        self.times.append(time.perf_counter() - started)
        return commands


def play(names: list[str], game_id: str, times: dict[str, list[float]]) -> tuple[int, ...]:
    """One game as `zioncheck simulate` plays it (application/simulation.py), each bot timed; its winners."""
    rng = game_rng(SEED, game_id)
    bots = [Timed(make_bot(name, rng), times.setdefault(name, [])) for name in names]
    dealer = Dealer(seeded(SEED, game_id))
    table = InProcessTable(dealer=dealer)
    table.handle(StartGame(game_id=game_id, players=len(bots)))
    while not table.state.game_over:
        table.handle(dealer.deal(table.state))
        play_hand(table, bots, rng)   # type: ignore[arg-type]  # a Timed bot is a Bot
        table.handle(dealer.reveal(table.state.hand))
    return table.state.winners


def share(players: int, games: int, times: dict[str, list[float]]) -> int:
    """Games of `players` seats, one strong bot and the rest greedy, whose lowest total the strong bot has
    (alone or tied)."""
    won = 0
    for i in range(games):
        seat = i % players   # the strong bot sits in every seat in turn
        names = ["greedy"] * players
        names[seat] = "strong"
        won += seat in play(names, f"{SEED}-{players}-{i:05d}", times)
    return won


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def run(four: int = FOUR_SEATS, two: int = TWO_SEATS) -> list[Row]:
    clear_memory()   # the strong bot starts with nothing remembered, as a fresh process does
    times: dict[str, list[float]] = {}
    four_won, two_won = share(4, four, times), share(2, two, times)
    slow, greedy_slow = p99(times["strong"]), p99(times["greedy"])
    rows = [
        _rate_row("strong bot has the lowest total, 4 seats vs 3 greedy", four_won, four, FOUR_TARGET,
                  "a greedy bot in its seat: 25.0% (one seat of four)"),
        _rate_row("strong bot wins, 2 seats vs greedy", two_won, two, TWO_TARGET,
                  "a greedy bot in its seat: 50.0% (one seat of two)"),
        Row("strong bot decision p99", 1000 * slow, "ms", f"{len(times['strong']):,} decisions in those games",
            1000 * P99_TARGET, f"greedy bot p99 {1000 * greedy_slow:.2f} ms in the same games", at_most=True),
    ]
    met = four_won / four >= FOUR_TARGET and two_won / two >= TWO_TARGET and slow <= P99_TARGET
    LAST[:] = [f"bots: strong has the lowest total in {_rate(four_won, four)} of {four} four-seat games "
               f"(target >= {FOUR_TARGET:.0%}), wins {_rate(two_won, two)} of {two} two-seat games "
               f"(target >= {TWO_TARGET:.0%}), decides in {1000 * slow:.1f} ms at p99 (target <= "
               f"{1000 * P99_TARGET:.0f} ms): {'PASS' if met else 'FAIL'}"]
    return rows


def _rate_row(name: str, won: int, games: int, target: float, versus: str) -> Row:
    return Row(name, 100 * won / games, "%", f"{games} games, 95% interval {_interval(won, games)}", 100 * target,
               versus)


def _rate(won: int, games: int) -> str:
    return f"{100 * won / games:.1f}% ({_interval(won, games)})"


def _interval(won: int, games: int) -> str:
    low, high = wilson(won, games)
    return f"{100 * low:.1f}-{100 * high:.1f}%"


if __name__ == "__main__":
    for row in run():
        print(row)
    print(*LAST)
