"""`zioncheck simulate`: whole bot games in process, with a results table."""
import os
import sys
import time
from collections import defaultdict

from zioncheck.application.simulation import GameStalled, play_game
from zioncheck.bots import NAMES
from zioncheck.cli.progress import Progress
from zioncheck.contracts.log import write_jsonl


def add(sub) -> None:
    p = sub.add_parser("simulate", help="play whole bot games in process and tabulate the results",
                       description="Play K whole six-hand games between bots, in process, and print wins and "
                                   "average points per seat and per bot, and games per second.")
    p.add_argument("--players", type=int, default=4, help="seats at the table, 2..20 (default 4)")
    p.add_argument("--games", type=int, default=10, help="how many games (default 10)")
    p.add_argument("--seed", default="0", help="master seed: the same seed gives byte-identical logs (default 0)")
    p.add_argument("--bots", default="greedy", help=f"bot per seat, comma-separated, repeated to fill the seats; "
                                                    f"one of {', '.join(NAMES)} (default greedy)")
    p.add_argument("--log", metavar="DIR", help="write each game's event log to DIR/GAME_ID.jsonl")
    p.set_defaults(func=main)


def seat_bots(spec: str, players: int) -> list[str]:
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = sorted(set(names) - set(NAMES))
    if not names or unknown:
        raise ValueError(f"unknown bot {unknown[0] if unknown else spec!r}: choose from {', '.join(NAMES)}")
    return [names[i % len(names)] for i in range(players)]


def main(args) -> int:
    try:
        if not 2 <= args.players <= 20:
            raise ValueError(f"--players must be 2..20, not {args.players}")
        if args.games < 1:
            raise ValueError(f"--games must be at least 1, not {args.games}")
        bots = seat_bots(args.bots, args.players)
        if args.log:
            os.makedirs(args.log, exist_ok=True)
    except (ValueError, OSError) as error:
        print(f"zioncheck simulate: {error}", file=sys.stderr)
        return 2
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
