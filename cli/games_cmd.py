"""`zioncheck games` and `zioncheck export`: what JetStream holds, and a game's log as JSON lines."""
import sys

from zioncheck.cli import words
from zioncheck.cli.log_reader import list_games, read_game_log
from zioncheck.cli.options import add_bus
from zioncheck.contracts.log import write_jsonl


def add(sub) -> None:
    p = sub.add_parser("games", help="list the games stored in JetStream",
                       description="List every game whose log JetStream holds, with its size and standings.")
    add_bus(p, "the embedded one's store")
    p.set_defaults(func=games)
    p = sub.add_parser("export", help="write a stored game's log as JSON lines",
                       description="Write a stored game's event log as JSON lines, one event per line, "
                                   "which `zioncheck replay FILE.jsonl` accepts.")
    p.add_argument("game", help="the game id")
    p.add_argument("-o", "--output", help="the file to write (default: stdout)")
    add_bus(p, "the embedded one's store")
    p.set_defaults(func=export)


def games(args) -> int:
    found = list_games(args.nats_url, args.credentials)
    if not found:
        print("no games stored")
        return 0
    print(f"{'game':<32} {'batches':>7}  {'hands':>5}  state")
    for game, count, standings, stalled in found:
        if standings is None:
            print(f"{game:<32} {count:>7}  {'-':>5}  {words.GAME_STALLED if stalled else words.GAME_NOT_SCORED}")
            continue
        winners = ", ".join(map(str, standings.winners))
        state = (words.GAME_ABANDONED.format(hands=len(standings.hands), winners=winners) if standings.abandoned
                 else words.GAME_OVER.format(winners=winners) if standings.over
                 else words.GAME_STALLED if stalled else words.GAME_IN_PLAY)
        print(f"{game:<32} {count:>7}  {len(standings.hands):>5}  {state}; totals {standings.totals}")
    return 0


def export(args) -> int:
    try:
        entries = read_game_log(args.game, args.nats_url, args.credentials)
    except ValueError as error:
        print(f"zioncheck export: {error}", file=sys.stderr)
        return 2
    data = write_jsonl(entries)
    if args.output:
        with open(args.output, "wb") as f:
            f.write(data)
        print(f"wrote {len(entries)} events to {args.output}", file=sys.stderr)
    else:
        sys.stdout.buffer.write(data)
    return 0
