"""Which archived games a person asks for: the history index's entries in, a page of them out.

`zioncheck history` lists and `zioncheck export --parquet` selects archived games from the index
(stream ZC_HISTORY, one `contracts.archive.IndexEntry` a game, in the order the archiver wrote them)
without opening a single archive. Reading the index is services/history.py's; choosing from it is
here, with no I/O: `matches` says whether one game is asked for, `page` cuts a page of them.

A page is named by the index's sequence: `after` lists the games archived after the entry with that
sequence, and a page that stops short of the last match says where the next one starts (`Page.next`).
"""
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from zioncheck.contracts.archive import IndexEntry, Manifest, Outcome, rules_of

DEFAULT_PAGE = 50
MAX_PAGE = 1_000       # games a page lists at most


@dataclass(frozen=True)
class Query:
    """Games asked for. Each field left at its default asks nothing of a game.

    `start` and `end` bound when a game started, in nanoseconds since 1970 (UTC): from `start` (included)
    to `end` (left out). A seat is asked for by number (the game seats it) or by name (`person` or a
    bot's name sits at the game); `won_by` likewise, of a winner. An abandoned game has no winner.
    `rules` names the game played (R24): `zioncheck`, `contract` or `liverpool`."""
    tenant: str | None = None
    start: int | None = None
    end: int | None = None
    seat: int | str | None = None
    outcome: Outcome | None = None
    won_by: int | str | None = None
    after: int = 0                 # list the games the index holds after this sequence (a page token)
    limit: int = DEFAULT_PAGE
    rules: str | None = None


@dataclass(frozen=True)
class Page:
    """The games of one page, oldest archived first, each with its index sequence; `next` is the
    `after` of the next page, None when no game past this page matches."""
    games: list[tuple[int, IndexEntry]]
    next: int | None = None


def matches(query: Query, manifest: Manifest) -> bool:
    """Whether a game is one `query` asks for."""
    if query.tenant is not None and manifest.tenant != query.tenant:
        return False
    if query.start is not None and manifest.started_at < query.start:
        return False
    if query.end is not None and manifest.started_at >= query.end:
        return False
    if query.outcome is not None and manifest.outcome != query.outcome:
        return False
    if query.rules is not None and rules_of(manifest) != query.rules:
        return False
    if query.seat is not None and not _seated(manifest, query.seat, range(manifest.players)):
        return False
    if query.won_by is not None:
        winners = manifest.winners if manifest.outcome == "finished" else []
        if not _seated(manifest, query.won_by, winners):
            return False
    return True


def _seated(manifest: Manifest, seat: int | str, among: Iterable[int]) -> bool:
    """Whether seat number `seat`, or a seat whose sitter is called `seat`, is among `among`."""
    if isinstance(seat, int):
        return seat in among
    return any(s < len(manifest.seats) and manifest.seats[s] == seat for s in among)


def page(query: Query, found: Iterable[tuple[int, IndexEntry]]) -> Page:
    """The page `query` asks for of the index entries `found` (with their sequences, in index order):
    at most `query.limit` games after `query.after` that match it."""
    games: list[tuple[int, IndexEntry]] = []
    for seq, entry in found:
        if seq <= query.after or not matches(query, entry.manifest):
            continue
        if len(games) == query.limit:
            return Page(games, next=games[-1][0])
        games.append((seq, entry))
    return Page(games)


NS = 1_000_000_000


def moment(text: str, *, end: bool = False) -> int | None:
    """A date or a time a person gives (`2026-03-01`, `2026-03-01T18:30`, `2026-03-01 18:30:05Z`; UTC
    unless it names its offset) as nanoseconds since 1970, or None if it is neither. A date given as
    the `end` of a range reaches to that day's end; a time, to that moment, included."""
    text = text.strip()
    try:
        day = date.fromisoformat(text)
    except ValueError:
        day = None
    if day is not None:
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        return _ns(start + timedelta(days=1)) if end else _ns(start)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return _ns(when) + (1 if end else 0)


def _ns(when: datetime) -> int:
    since = when - datetime(1970, 1, 1, tzinfo=UTC)
    return (since.days * 86_400 + since.seconds) * NS + since.microseconds * 1000


def utc(ns: int) -> datetime:
    """Nanoseconds since 1970 as a time in UTC (to the microsecond)."""
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=ns // 1000)
