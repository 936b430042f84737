"""A season of archived games as four tables (application/season.py): what `zioncheck export --parquet` writes,
checked against the records themselves, counted a second way."""
from collections import Counter

import msgspec
import pytest

from zioncheck.application.archive_samples import sample_record, sample_season
from zioncheck.application.season import TABLES, Season
from zioncheck.contracts.archive import StoredBatch
from zioncheck.contracts.commands import Rules
from zioncheck.contracts.events import (
    DiscardClaimed,
    DiscardTaken,
    HandDealt,
    HandEnded,
    StockDrawn,
    StockExhausted,
    TurnTimedOut,
)
from zioncheck.contracts.log import decode_batch

RECORDS = sample_season(6, seed="tables", abandon_every=3)


@pytest.fixture(scope="module")
def tables() -> dict[str, dict[str, list]]:
    season = Season()
    for record in RECORDS:
        season.add(record)
    return season.take()


def rows(tables, table: str) -> list[dict]:
    columns = tables[table]
    return [dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)]


def events_by_hand(record, kinds) -> Counter:
    """How many events of `kinds` each hand of a record holds, counted straight off its batches."""
    counted, hand = Counter(), 0
    for stored in record.batches:
        for event in decode_batch(stored.data).events:
            if isinstance(event, HandDealt):
                hand = event.hand
            elif isinstance(event, kinds):
                counted[hand] += 1
    return counted


def test_every_table_has_the_columns_its_schema_names(tables):
    assert {name: list(columns) for name, columns in tables.items()} == {
        name: [column.name for column in columns] for name, columns in TABLES.items()}


def test_a_game_is_one_row_that_says_what_its_manifest_says(tables):
    games = rows(tables, "games")
    assert [g["game"] for g in games] == [r.manifest.game for r in RECORDS]
    for game, record in zip(games, RECORDS, strict=True):
        m = record.manifest
        assert (game["outcome"], game["winners"], game["totals"], game["hands"]) == (m.outcome, m.winners, m.totals,
                                                                                     m.hands)
        assert game["seats"] == m.seats and game["started_at"] == m.started_at == record.batches[0].at
    assert [g["outcome"] for g in games].count("abandoned") == 2


def test_a_hands_turns_are_the_draws_that_began_them(tables):
    """Each turn begins with one draw (from the stock, from the pile, or finding the stock empty): counted off the
    records, they are each finished hand's turns."""
    for record in RECORDS:
        draws = events_by_hand(record, (StockDrawn, DiscardTaken, StockExhausted))
        hands = [h for h in rows(tables, "hands") if h["game"] == record.manifest.game and h["finished"]]
        assert hands and {h["hand"]: h["turns"] for h in hands} == {n: draws[n] for n in range(1, len(hands) + 1)}


def test_each_move_row_is_a_seats_move_in_its_hand_and_turn(tables):
    moves = rows(tables, "moves")
    assert {m["kind"] for m in moves} >= {"stock_drawn", "discard_taken", "discarded", "went_down", "discard_claimed",
                                          "claim_won"}
    hands = {(h["game"], h["hand"]): h for h in rows(tables, "hands")}
    for move in moves:
        hand = hands[(move["game"], move["hand"])]
        assert 1 <= move["turn"] <= hand["turns"]
        assert hand["started_at"] <= move["at"] <= hand["ended_at"]
    claims = [m for m in moves if m["kind"] == "discard_claimed"]
    assert claims and all(m["out_of_turn"] for m in claims), "a claim is made out of turn (R11a)"
    for record in RECORDS:
        counted = events_by_hand(record, DiscardClaimed)
        assert Counter(m["hand"] for m in claims if m["game"] == record.manifest.game) == counted


def test_a_move_names_the_command_and_the_batch_it_came_in(tables):
    record = RECORDS[0]
    stored = {b.seq: b for b in record.batches}
    commands = {c.seq for c in record.commands}
    for move in (m for m in rows(tables, "moves") if m["game"] == record.manifest.game):
        assert move["command"] in commands and decode_batch(stored[move["batch"]].data).cause == move["command"]
        assert move["at"] == stored[move["batch"]].at


def test_scores_are_one_row_a_seat_a_hand_and_run_to_the_games_totals(tables):
    scores = rows(tables, "scores")
    for record in RECORDS:
        m = record.manifest
        mine = [s for s in scores if s["game"] == m.game]
        assert len(mine) == m.hands * m.players
        last = [s["total"] for s in sorted(mine, key=lambda s: (s["hand"], s["seat"])) if s["hand"] == m.hands]
        assert last == m.totals
        for seat in range(m.players):
            assert sum(s["score"] for s in mine if s["seat"] == seat) == m.totals[seat]
        assert all(s["score"] == 0 for s in mine if s["went_out"]), "who goes out scores 0 (R15)"


def test_the_hand_a_game_was_abandoned_in_is_a_hand_not_finished_and_not_scored(tables):
    abandoned = next(r for r in RECORDS if r.manifest.outcome == "abandoned")
    hands = [h for h in rows(tables, "hands") if h["game"] == abandoned.manifest.game]
    assert [h["finished"] for h in hands] == [True, True, False]
    assert hands[-1]["winner"] is None and hands[-1]["scores"] is None
    assert not [s for s in rows(tables, "scores") if s["game"] == abandoned.manifest.game and s["hand"] == 3]
    timed_out = [m for m in rows(tables, "moves") if m["game"] == abandoned.manifest.game and m["timed_out"]]
    assert timed_out and {m["seat"] for m in timed_out} == {0}, "the bot that played the person's turns (R19)"
    assert sum(m["kind"] == "turn_timed_out" for m in timed_out) == sum(
        events_by_hand(abandoned, TurnTimedOut).values())


def test_a_game_whose_log_cannot_be_read_adds_no_row_anywhere():
    season = Season()
    record = sample_record("broken", seed="tables")
    last = record.batches[-1]
    broken = msgspec.structs.replace(record, batches=[*record.batches[:-1], StoredBatch(
        seq=last.seq, kind=last.kind, at=last.at, data=b'{"cause": 1, "events": [{"type": "no_such_event"}]}')])
    with pytest.raises(msgspec.ValidationError):
        season.add(broken)
    assert all(season.rows(table) == 0 for table in TABLES) and season.games == 0
    season.add(record)
    assert season.rows("games") == 1


def test_the_same_games_exported_twice_give_the_same_rows():
    again = Season()
    for record in sample_season(6, seed="tables", abandon_every=3):
        again.add(record)
    first = Season()
    for record in RECORDS:
        first.add(record)
    assert again.take() == first.take()


def test_every_hand_dealt_has_a_row_finished_when_the_hand_ended(tables):
    for record in RECORDS:
        events = [e for b in record.batches for e in decode_batch(b.data).events]
        hands = [h for h in rows(tables, "hands") if h["game"] == record.manifest.game]
        assert [h["hand"] for h in hands] == [e.hand for e in events if isinstance(e, HandDealt)]
        assert [h["hand"] for h in hands if h["finished"]] == [e.hand for e in events if isinstance(e, HandEnded)]


# --- R24: every row names the rules its game was played by ------------------------------------------------

def test_r24_every_row_names_its_games_rules_and_a_game_its_house_options():
    season = Season()
    season.add(RECORDS[0])
    season.add(sample_record("liverpool-1", bots=("greedy", "random", "greedy"), seed="tables",
                             rules=Rules(preset="liverpool", buys="nearest")))
    taken = season.take()
    for table in TABLES:
        assert set(taken[table]["rules"]) == {"zioncheck", "liverpool"}, table
    games = rows(taken, "games")
    assert [(g["rules"], g["house_options"]) for g in games] == [("zioncheck", None),
                                                                  ("liverpool", '{"buys":"nearest"}')]
    assert max(h["hand"] for h in rows(taken, "hands") if h["rules"] == "liverpool") == 7
