"""`zioncheck history`: the archived games, from the history index, a page at a time, never opening an
archive; and the options that choose them, which `zioncheck export --parquet` shares."""
import argparse
import asyncio
import sys

from zioncheck.application.history import DEFAULT_PAGE, MAX_PAGE, Page, Query, moment, utc
from zioncheck.bots import NAMES
from zioncheck.cli import words
from zioncheck.cli.log_reader import READER
from zioncheck.cli.options import CommandFailed, add_bus, check_range, whole
from zioncheck.contracts.archive import IndexEntry, rules_of
from zioncheck.contracts.commands import PERSON, PRESETS
from zioncheck.domain.dealing import MAX_PLAYERS
from zioncheck.services.bus.access import Access, connect
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import valid_game_id
from zioncheck.services.history import NoIndex, list_page

OUTCOMES = ("finished", "abandoned")
SITTERS = (PERSON, *NAMES)   # who may sit in a seat, by name


def add(sub) -> None:
    p = sub.add_parser("history", help=words.HISTORY_HELP, description=words.HISTORY_DESCRIPTION)
    add_query(p)
    p.add_argument("--limit", type=whole, default=DEFAULT_PAGE, metavar=words.METAVAR_N,
                   help=words.HISTORY_LIMIT_HELP.format(default=DEFAULT_PAGE, most=MAX_PAGE))
    p.add_argument("--after", type=whole, default=0, metavar=words.METAVAR_N, help=words.HISTORY_AFTER_HELP)
    add_bus(p, words.NATS_URL_STORE)
    p.set_defaults(func=main)


def add_query(p) -> None:
    """The options that choose archived games: tenant, dates, seat, outcome, winner, the game's rules (R24)."""
    p.add_argument("--tenant", metavar=words.METAVAR_TENANT, help=words.HISTORY_TENANT_HELP)
    p.add_argument("--from", dest="since", type=_when, metavar=words.METAVAR_WHEN, help=words.HISTORY_FROM_HELP)
    p.add_argument("--to", dest="until", type=_when, metavar=words.METAVAR_WHEN, help=words.HISTORY_TO_HELP)
    sitters = ", ".join(SITTERS)
    p.add_argument("--seat", type=_seat, metavar=words.METAVAR_SEAT_OR_NAME,
                   help=words.HISTORY_SEAT_HELP.format(names=sitters))
    p.add_argument("--outcome", choices=OUTCOMES, help=words.HISTORY_OUTCOME_HELP)
    p.add_argument("--won-by", type=_seat, metavar=words.METAVAR_SEAT_OR_NAME,
                   help=words.HISTORY_WON_BY_HELP.format(names=sitters))
    p.add_argument("--rules", choices=PRESETS, help=words.HISTORY_RULES_HELP.format(names=", ".join(PRESETS)))


def _when(text: str) -> str:
    """A date or a time, checked as argparse reads it (the range's end is worked out in `query_of`)."""
    if moment(text) is None:
        raise argparse.ArgumentTypeError(words.NOT_A_TIME.format(value=text))
    return text


def _seat(text: str) -> int | str:
    """A seat number, or who sits there: a person or a bot by name."""
    if text.isdigit():
        return int(text)
    if text not in SITTERS:
        raise argparse.ArgumentTypeError(words.NOT_A_SEAT.format(value=text, names=", ".join(SITTERS)))
    return text


def query_of(args, limit: int = DEFAULT_PAGE, after: int = 0) -> Query:
    """The games the options ask for; CommandFailed, in one line, for options that cannot go together."""
    if args.tenant is not None and not valid_game_id(args.tenant):
        raise CommandFailed(words.NOT_A_TENANT.format(tenant=args.tenant))
    for option, seat in (("--seat", args.seat), ("--won-by", args.won_by)):
        if isinstance(seat, int):
            check_range(option, seat, 0, MAX_PLAYERS - 1)
    start = moment(args.since) if args.since else None
    end = moment(args.until, end=True) if args.until else None
    if start is not None and end is not None and start >= end:
        raise CommandFailed(words.FROM_AFTER_TO.format(start=args.since, end=args.until))
    if args.won_by is not None and args.outcome == "abandoned":
        raise CommandFailed(words.ABANDONED_HAS_NO_WINNER)
    return Query(tenant=args.tenant, start=start, end=end, seat=args.seat, outcome=args.outcome, won_by=args.won_by,
                 after=after, limit=limit, rules=args.rules)


def main(args) -> int:
    check_range("--limit", args.limit, 1, MAX_PAGE)
    query = query_of(args, args.limit, args.after)
    unreadable: list[int] = []
    with bus(args.nats_url, args.credentials) as access:
        try:
            found = asyncio.run(_page(access, query, unreadable))
        except NoIndex:
            print(words.NO_HISTORY)
            return 0
    if unreadable:
        print(words.say("cli.INDEX_UNREADABLE", count=len(unreadable), seqs=", ".join(map(str, unreadable[:10]))),
              file=sys.stderr)
    if not found.games:
        print(words.NO_GAME_MATCHES)
        return 0
    for line in table([entry for _, entry in found.games], [seq for seq, _ in found.games]):
        print(line)
    if found.next is not None:
        print(words.HISTORY_MORE.format(after=found.next), file=sys.stderr)
    return 0


async def _page(access: Access, query: Query, unreadable: list[int]) -> Page:
    nc = await connect(access, READER)
    try:
        return await list_page(nc.jetstream(), query, unreadable)
    finally:
        await nc.close()


def table(entries: list[IndexEntry], seqs: list[int]) -> list[str]:
    """One line a game, under a heading, each column as wide as its widest cell."""
    rows = [(words.COLUMN_NUMBER, words.COLUMN_STARTED, words.COLUMN_TENANT, words.COLUMN_GAME, words.COLUMN_RULES,
             words.COLUMN_SEATS, words.COLUMN_HANDS, words.COLUMN_OUTCOME, words.COLUMN_TOTALS)]
    for seq, entry in zip(seqs, entries, strict=True):
        m = entry.manifest
        outcome = (words.HISTORY_ABANDONED if m.outcome == "abandoned"
                   else words.HISTORY_WON_BY.format(seats=", ".join(map(str, m.winners))))
        rows.append((str(seq), f"{utc(m.started_at):%Y-%m-%d %H:%M}", m.tenant, m.game, rules_of(m),
                     " ".join(words.SEAT_PERSON if sitter == PERSON else sitter for sitter in m.seats),
                     str(m.hands), outcome, ", ".join(map(str, m.totals))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    right = {0, 6}   # numbers
    return ["  ".join(cell.rjust(width) if i in right else cell.ljust(width)
                      for i, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]
