"""`zioncheck simulate`: whole bot games in process, with a results table."""
import os
import time
from collections import defaultdict

from zioncheck.application.simulation import GameStalled, play_game, wilson
from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed, add_seats, seat_bots, whole
from zioncheck.cli.progress import Progress
from zioncheck.contracts.log import write_jsonl


def add(sub) -> None:
    p = sub.add_parser("simulate", help=words.SIMULATE_HELP, description=words.SIMULATE_DESCRIPTION)
    add_seats(p)
    p.add_argument("--games", type=whole, default=10, metavar=words.METAVAR_N, help=words.GAMES_COUNT_HELP)
    p.add_argument("--seed", default="0", metavar=words.METAVAR_SEED, help=words.MASTER_SEED_HELP)
    p.add_argument("--log", metavar=words.METAVAR_DIR, help=words.LOG_FOLDER_HELP.format(
        dir=words.METAVAR_DIR, game=words.METAVAR_GAME))
    p.set_defaults(func=main)


def main(args) -> int:
    bots = seat_bots(args.bots, args.players)
    if args.games < 1:
        raise CommandFailed(words.GAMES_TOO_FEW.format(games=args.games))
    if args.log:
        try:
            os.makedirs(args.log, exist_ok=True)
        except OSError as error:
            raise CommandFailed(words.CANNOT_MAKE_FOLDER.format(folder=args.log,
                                                                reason=words.os_reason(error))) from None
    wins, points = [0.0] * args.players, [0] * args.players
    progress = Progress(args.games, words.PROGRESS_GAMES)
    started = time.perf_counter()
    stalled = []
    for i in range(args.games):
        game_id = f"sim-{args.seed}-{i:05d}"
        try:
            table = play_game(bots, args.seed, game_id)
        except GameStalled:
            stalled.append(game_id)
            progress.step()
            continue
        for seat in table.state.winners:
            wins[seat] += 1 / len(table.state.winners)
        points = [p + t for p, t in zip(points, table.state.totals, strict=True)]
        if args.log:
            with open(os.path.join(args.log, f"{game_id}.jsonl"), "wb") as f:
                f.write(write_jsonl(table.log))
        progress.step()
    progress.close()
    elapsed = time.perf_counter() - started
    played = args.games - len(stalled)
    if played:
        print(results_table(bots, wins, points, played))
    if stalled:
        print("\n" + words.say("cli.GAMES_STALLED", count=len(stalled), games=", ".join(stalled[:5])))
    print("\n" + words.say("cli.GAMES_PER_SECOND", count=played, seconds=f"{elapsed:.2f}",
                           rate=f"{played / elapsed:.1f}"))
    return 0


def results_table(bots: list[str], wins: list[float], points: list[int], games: int) -> str:
    """Wins, win rate with its 95% interval and average points, by seat and then by bot, each column as wide as
    its heading; then a line that says how the rate and its interval are counted."""
    seat, bot, won, rate, interval, average = (words.COLUMN_SEAT, words.COLUMN_BOT, words.COLUMN_WINS,
                                               words.COLUMN_WIN_RATE, words.COLUMN_INTERVAL, words.COLUMN_AVERAGE)
    w = [max(4, len(seat)), max(8, len(bot)), max(7, len(won)), max(6, len(rate)), max(13, len(interval)),
         max(11, len(average))]
    lines = [f"{seat:>{w[0]}}  {bot:<{w[1]}} {won:>{w[2]}} {rate:>{w[3]}} {interval:>{w[4]}} {average:>{w[5]}}"]
    for s, name in enumerate(bots):
        lines.append(f"{s:>{w[0]}}  {name:<{w[1]}} {wins[s]:>{w[2]}.1f} {100 * wins[s] / games:>{w[3] - 1}.1f}% "
                     f"{_interval(wins[s], games):>{w[4]}} {points[s] / games:>{w[5]}.1f}")
    by_bot: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for s, name in enumerate(bots):
        by_bot[name][0] += wins[s]
        by_bot[name][1] += points[s]
        by_bot[name][2] += 1
    seats, per_seat = words.COLUMN_SEATS, words.COLUMN_AVERAGE_PER_SEAT
    v = [w[1], max(5, len(seats)), w[2], w[3], w[4], max(16, len(per_seat))]
    lines.append("")
    lines.append(f"{bot:<{v[0]}} {seats:>{v[1]}} {won:>{v[2]}} {rate:>{v[3]}} {interval:>{v[4]}} {per_seat:>{v[5]}}")
    for name, (won_by, points_of, seated) in by_bot.items():
        lines.append(f"{name:<{v[0]}} {seated:>{v[1]}} {won_by:>{v[2]}.1f} {100 * won_by / games:>{v[3] - 1}.1f}% "
                     f"{_interval(won_by, games):>{v[4]}} {points_of / seated / games:>{v[5]}.1f}")
    lines.append("")
    lines.append(words.WIN_RATE_NOTE)
    return "\n".join(lines)


def _interval(wins: float, games: int) -> str:
    """A win rate's 95% interval (Wilson), in percent: `38.2–51.0%`."""
    low, high = wilson(wins, games)
    return f"{100 * low:.1f}\u2013{100 * high:.1f}%"
