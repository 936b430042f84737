"""`zioncheck simulate`: whole bot games in process, with a results table."""
import os
import time
from collections import defaultdict

from zioncheck.application.simulation import GameStalled, play_game
from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed, add_seats, seat_bots
from zioncheck.cli.progress import Progress
from zioncheck.contracts.log import write_jsonl


def add(sub) -> None:
    p = sub.add_parser("simulate", help="play whole bot games in process and tabulate the results",
                       description="Play K whole six-hand games between bots, in process, and print wins and "
                                   "average points per seat and per bot, and games per second.")
    add_seats(p)
    p.add_argument("--games", type=int, default=10, help="how many games (default 10)")
    p.add_argument("--seed", default="0", help="master seed: the same seed gives byte-identical logs (default 0)")
    p.add_argument("--log", metavar="DIR", help="write each game's event log to DIR/GAME_ID.jsonl")
    p.set_defaults(func=main)


def main(args) -> int:
    bots = seat_bots(args.bots, args.players)
    if args.games < 1:
        raise CommandFailed(words.GAMES_TOO_FEW.format(games=args.games))
    if args.log:
        try:
            os.makedirs(args.log, exist_ok=True)
        except OSError as error:
            raise CommandFailed(str(error)) from None
    wins, points = [0.0] * args.players, [0] * args.players
    progress = Progress(args.games, "games")
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
        print(f"\n{len(stalled)} game(s) abandoned: the bots went round in circles ({', '.join(stalled[:5])})")
    print(f"\n{played} games in {elapsed:.2f}s: {played / elapsed:.1f} games/s")
    return 0


def results_table(bots: list[str], wins: list[float], points: list[int], games: int) -> str:
    lines = [f"{'seat':>4}  {'bot':<8} {'wins':>7} {'win %':>6} {'avg points':>11}"]
    for seat, bot in enumerate(bots):
        lines.append(f"{seat:>4}  {bot:<8} {wins[seat]:>7.1f} {100 * wins[seat] / games:>5.1f}% "
                     f"{points[seat] / games:>11.1f}")
    by_bot: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for seat, bot in enumerate(bots):
        by_bot[bot][0] += wins[seat]
        by_bot[bot][1] += points[seat]
        by_bot[bot][2] += 1
    lines.append("")
    lines.append(f"{'bot':<8} {'seats':>5} {'wins':>7} {'win %':>6} {'avg points/seat':>16}")
    for bot, (w, p, seats) in by_bot.items():
        lines.append(f"{bot:<8} {seats:>5} {w:>7.1f} {100 * w / games:>5.1f}% {p / seats / games:>16.1f}")
    return "\n".join(lines)
