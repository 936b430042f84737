"""`zioncheck games` and `zioncheck export`: what JetStream holds, and a game's log as JSON lines; or,
with --parquet, a season of archived games as Parquet tables (cli/season_export.py)."""
import sys

from zioncheck.cli import season_export, words
from zioncheck.cli.history_cmd import add_query
from zioncheck.cli.log_reader import list_games, read_game_log, tell_skipped
from zioncheck.cli.options import CommandFailed, add_bus, whole
from zioncheck.contracts.log import NotABatch, write_jsonl


def add(sub) -> None:
    p = sub.add_parser("games", help=words.GAMES_HELP, description=words.GAMES_DESCRIPTION)
    add_bus(p, words.NATS_URL_STORE)
    p.set_defaults(func=games)
    p = sub.add_parser("export", help=words.EXPORT_HELP, description=words.EXPORT_DESCRIPTION)
    p.add_argument("game", nargs="?", metavar=words.METAVAR_GAME, help=words.EXPORT_GAME_HELP)
    p.add_argument("-o", "--output", metavar=words.METAVAR_FILE, help=words.OUTPUT_HELP)
    season = p.add_argument_group(words.EXPORT_SEASON_TITLE, words.EXPORT_SEASON_DESCRIPTION)
    season.add_argument("--parquet", metavar=words.METAVAR_DIR, help=words.EXPORT_PARQUET_HELP)
    season.add_argument("--archive", metavar=words.METAVAR_DIR, help=words.EXPORT_ARCHIVE_HELP)
    add_query(season)
    season.add_argument("--limit", type=whole, metavar=words.METAVAR_N, help=words.EXPORT_LIMIT_HELP)
    add_bus(p, words.NATS_URL_STORE)
    p.set_defaults(func=export)


def games(args) -> int:
    found = list_games(args.nats_url, args.credentials)
    if not found:
        print(words.NO_GAMES)
        return 0
    rows = [(words.COLUMN_GAME, words.COLUMN_BATCHES, words.COLUMN_HANDS, words.COLUMN_STATE)]
    for game, count, standings, stalled in found:
        if standings is None:
            rows.append((game, str(count), "-", words.GAME_STALLED if stalled else words.GAME_NOT_SCORED))
            continue
        winners = ", ".join(map(str, standings.winners))
        state = (words.GAME_ABANDONED.format(hands=len(standings.hands), winners=winners) if standings.abandoned
                 else words.GAME_OVER.format(winners=winners) if standings.over
                 else words.GAME_STALLED if stalled else words.GAME_IN_PLAY)
        rows.append((game, str(count), str(len(standings.hands)),
                     words.GAME_TOTALS.format(state=state, totals=", ".join(map(str, standings.totals)))))
    first, second, third = (max(len(row[i]) for row in rows) for i in range(3))
    for game, count, hands, state in rows:
        print(f"{game:<{max(first, 32)}} {count:>{second}}  {hands:>{third}}  {state}")
    return 0


SEASON_OPTIONS = ("tenant", "since", "until", "seat", "outcome", "won_by", "rules", "limit")


def export(args) -> int:
    if args.parquet is not None:
        if args.game is not None or args.output is not None:
            raise CommandFailed(words.EXPORT_ONE_OR_SEASON)
        return season_export.main(args)
    if args.game is None:
        raise CommandFailed(words.EXPORT_WHAT)
    if given := [name for name in SEASON_OPTIONS if getattr(args, name) is not None]:
        option = "--" + {"since": "from", "until": "to"}.get(given[0], given[0]).replace("_", "-")
        raise CommandFailed(words.ONLY_WITH_PARQUET.format(option=option))
    skipped: list[NotABatch] = []
    entries = read_game_log(args.game, args.nats_url, args.credentials, args.archive, skipped)
    if told := tell_skipped(skipped):
        print(told, file=sys.stderr)
    data = write_jsonl(entries)
    if args.output:
        try:
            with open(args.output, "wb") as f:
                f.write(data)
        except OSError as error:
            raise CommandFailed(words.CANNOT_WRITE.format(file=args.output, reason=words.os_reason(error))) from None
        print(words.say("cli.WROTE_EVENTS", count=len(entries), file=args.output), file=sys.stderr)
    else:
        sys.stdout.buffer.write(data)
    return 0
