"""docs/history.md says what the Parquet tables hold and answers questions with DuckDB: the tables it describes are
the ones `zioncheck export --parquet` writes, column for column, and each query it shows, read out of the page
itself, answers over an export of bot games what the games themselves say, counted another way."""
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from zioncheck.application.archive_samples import sample_season
from zioncheck.application.season import TABLES, Season
from zioncheck.cli.parquet import ParquetTables
from zioncheck.contracts.archive import GameRecord
from zioncheck.contracts.events import ClaimWon, DiscardTaken, HandDealt, HandEnded, StockDrawn, StockExhausted
from zioncheck.contracts.log import decode_batch

PAGE = Path(__file__).parent.parent / "docs" / "history.md"
RECORDS = sample_season(36, seed="doc", abandon_every=9)
QUESTIONS = ("Win rate by seat", "How long a hand lasts", "How often a claim wins", "Points a hand by player")


def section(text: str, heading: str) -> str:
    """The part of the page under `heading` (a `## ` heading), to the next one of its level."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def queries() -> dict[str, str]:
    """Each question's SQL, by the heading it stands under."""
    found = {}
    for part in section(PAGE.read_text(), "Questions answered with DuckDB").split("\n### ")[1:]:
        title = part.splitlines()[0].strip()
        [sql] = re.findall(r"```sql\n(.*?)```", part, re.S)
        found[title] = sql
    return found


def documented_columns(table: str) -> list[tuple[str, str]]:
    """The (column, type) rows of the page's table describing `table`."""
    part = section(PAGE.read_text(), "The tables").split(f"\n### `{table}`\n")[1].split("\n### ")[0]
    return re.findall(r"^\| `(\w+)` \| ([\w<>]+) \|", part, re.M)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """The games exported as `zioncheck export --parquet` writes them, a few games to a row group."""
    folder = tmp_path_factory.mktemp("season")
    tables, season = ParquetTables(folder), Season()
    for record in RECORDS:
        season.add(record)
        if season.games == 10:
            tables.write(season.take())
    tables.write(season.take())
    tables.finish()
    return folder


def ask(folder: Path, title: str) -> list[dict]:
    connection = duckdb.connect()
    connection.execute(f"SET file_search_path = '{folder}'")
    result = connection.sql(queries()[title])
    return [dict(zip(result.columns, row, strict=True)) for row in result.fetchall()]


@dataclass
class Hand:
    """A finished hand as its batches tell it."""
    number: int
    players: int
    draws: int = 0
    winner: int | None = None
    claimants: set[int] = field(default_factory=set)
    scores: list[int] = field(default_factory=list)


def finished_hands(record: GameRecord) -> list[Hand]:
    hands, hand = [], None
    for stored in record.batches:
        for event in decode_batch(stored.data).events:
            if isinstance(event, HandDealt):
                hand = Hand(event.hand, record.manifest.players)
            elif isinstance(event, (StockDrawn, DiscardTaken, StockExhausted)):
                hand.draws += 1
            elif isinstance(event, ClaimWon):
                hand.claimants.add(event.seat)
            elif isinstance(event, HandEnded):
                hand.winner, hand.scores = event.winner, event.scores
                hands.append(hand)
    return hands


def test_the_page_answers_each_question_it_names():
    assert tuple(queries()) == QUESTIONS


@pytest.mark.parametrize("table", TABLES)
def test_the_page_describes_each_table_column_for_column(table, exported):
    assert documented_columns(table) == [(column.name, column.kind) for column in TABLES[table]]
    assert pq.read_schema(exported / f"{table}.parquet").names == [column.name for column in TABLES[table]]


def test_win_rates_by_seat_add_up_to_one_at_each_size_of_table_and_are_the_games_own(exported):
    answered = ask(exported, "Win rate by seat")
    finished = [r.manifest for r in RECORDS if r.manifest.outcome == "finished"]
    shares: dict[tuple[int, int], float] = defaultdict(float)
    for m in finished:
        for seat in m.winners:
            shares[(m.players, seat)] += 1 / len(m.winners)
    for players in {m.players for m in finished}:
        mine = [row for row in answered if row["players"] == players]
        games = sum(m.players == players for m in finished)
        assert [row["seat"] for row in mine] == list(range(players))
        assert all(row["games"] == games for row in mine)
        assert sum(row["win_rate"] for row in mine) == pytest.approx(1, abs=0.001 * players)
        expected = [shares[(players, seat)] / games for seat in range(players)]
        assert [row["win_rate"] for row in mine] == pytest.approx(expected, abs=0.0005)


def test_hand_lengths_are_positive_and_the_draws_that_began_each_turn(exported):
    answered = {row["hand"]: row for row in ask(exported, "How long a hand lasts")}
    by_number: dict[int, list[int]] = defaultdict(list)
    for record in RECORDS:
        for hand in finished_hands(record):
            by_number[hand.number].append(hand.draws)
    assert sorted(answered) == list(range(1, 7))
    for number, draws in by_number.items():
        row = answered[number]
        assert row["hands"] == len(draws) and 0 < row["fewest"] == min(draws) and row["most"] == max(draws)
        assert row["average_turns"] == pytest.approx(sum(draws) / len(draws), abs=0.05)


def test_how_often_a_claim_wins_is_counted_from_the_seats_that_took_a_claimed_card(exported):
    [row] = ask(exported, "How often a claim wins")
    hands = [hand for record in RECORDS for hand in finished_hands(record)]
    claimants = [(hand, seat) for hand in hands for seat in hand.claimants]
    went_out = sum(hand.winner == seat for hand, seat in claimants)
    assert row["claimants"] == len(claimants) > 0
    assert row["went_out"] == went_out
    assert 0 <= row["claimant_rate"] <= 1 and row["claimant_rate"] == pytest.approx(went_out / len(claimants), abs=5e-4)
    seat_hands = sum(hand.players for hand in hands)
    assert row["every_seat"] == pytest.approx(sum(hand.winner is not None for hand in hands) / seat_hands, abs=5e-4)


def test_points_a_hand_by_player_count_every_seat_of_every_finished_hand(exported):
    answered = {row["player"]: row for row in ask(exported, "Points a hand by player")}
    seat_hands: Counter[str] = Counter()
    points: Counter[str] = Counter()
    for record in RECORDS:
        for hand in finished_hands(record):
            for seat, score in enumerate(hand.scores):
                seat_hands[record.manifest.seats[seat]] += 1
                points[record.manifest.seats[seat]] += score
    assert {player: row["seat_hands"] for player, row in answered.items()} == dict(seat_hands)
    for player, row in answered.items():
        assert row["average_points"] == pytest.approx(points[player] / seat_hands[player], abs=0.05)
        assert row["average_points"] >= 0
    assert [row["average_points"] for row in answered.values()] == sorted(row["average_points"]
                                                                         for row in answered.values())
