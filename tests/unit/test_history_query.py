"""`zioncheck history` chooses archived games from the index alone (application/history.py): index entries in,
a page out, with no server and no archive opened."""
import msgspec
import pytest

from zioncheck.application.history import Query, matches, moment, page
from zioncheck.contracts.archive import IndexEntry, Manifest

MARCH_1 = moment("2026-03-01")
HOUR = 3_600 * 1_000_000_000


def entry(game: str, tenant: str = "platform", started: int = MARCH_1, seats=("greedy", "random"),
          outcome: str = "finished", winners=(0,)) -> IndexEntry:
    manifest = Manifest(tenant=tenant, game=game, key=game, seats=list(seats), players=len(seats), started_at=started,
                        ended_at=started + HOUR, hands=6 if outcome == "finished" else 2, outcome=outcome,
                        winners=list(winners) if outcome == "finished" else [], totals=[0] * len(seats),
                        commands=100, batches=100, events=300, state_hash="0" * 64)
    return IndexEntry(manifest=manifest, archived_at=started + 2 * HOUR, size=30_000, where=f"{game}.zca")


def games(query: Query, entries: list[IndexEntry]) -> list[str]:
    return [e.manifest.game for _, e in page(query, list(enumerate(entries, 1))).games]


SEASON = [entry("a", started=MARCH_1), entry("b", tenant="acme", started=MARCH_1 + 30 * HOUR),
          entry("c", seats=("person", "greedy", "greedy"), winners=(1, 2), started=MARCH_1 + 50 * HOUR),
          entry("d", seats=("person", "random"), outcome="abandoned", started=MARCH_1 + 80 * HOUR)]


def test_an_empty_query_lists_every_game_in_the_order_it_was_archived():
    assert games(Query(), SEASON) == ["a", "b", "c", "d"]


def test_a_tenant_sees_only_its_own_games():
    assert games(Query(tenant="acme"), SEASON) == ["b"]
    assert games(Query(tenant="nobody"), SEASON) == []


def test_a_date_range_takes_the_games_that_started_in_it_the_last_day_whole():
    march_2 = Query(start=moment("2026-03-02"), end=moment("2026-03-02", end=True))
    assert games(march_2, SEASON) == ["b"], "b started on 2 March at 06:00, c on 3 March at 02:00"
    assert games(Query(start=moment("2026-03-02T06:00")), SEASON) == ["b", "c", "d"], "a game that starts then is in"
    assert games(Query(end=moment("2026-03-02T06:00", end=True)), SEASON) == ["a", "b"], "--to a time includes it"


def test_a_seat_is_asked_for_by_its_number_or_by_who_sat_there():
    assert games(Query(seat=2), SEASON) == ["c"], "only c seats three"
    assert games(Query(seat="person"), SEASON) == ["c", "d"]
    assert games(Query(seat="random"), SEASON) == ["a", "b", "d"]


def test_the_outcome_and_the_winner_choose_games_a_shared_win_counting_for_each_winner():
    assert games(Query(outcome="abandoned"), SEASON) == ["d"]
    assert games(Query(outcome="finished"), SEASON) == ["a", "b", "c"]
    assert games(Query(won_by=0), SEASON) == ["a", "b"]
    assert games(Query(won_by=2), SEASON) == ["c"], "seats 1 and 2 shared c"
    assert games(Query(won_by="greedy"), SEASON) == ["a", "b", "c"]
    assert games(Query(won_by="person"), SEASON) == [], "the person of d left: an abandoned game has no winner"


def test_options_together_ask_for_games_that_match_them_all():
    assert games(Query(seat="person", outcome="finished", won_by="greedy"), SEASON) == ["c"]


def test_pages_follow_one_another_by_the_index_sequence_and_the_last_says_there_is_no_more():
    season = [entry(f"g{i}", seats=("greedy", "random") if i % 2 else ("random", "greedy")) for i in range(7)]
    found = list(enumerate(season, 100))   # the index's sequences need not start at 1
    first = page(Query(seat="greedy", won_by="greedy", limit=2), found)
    assert [e.manifest.game for _, e in first.games] == ["g1", "g3"] and first.next == 103
    second = page(Query(seat="greedy", won_by="greedy", limit=2, after=first.next), found)
    assert [e.manifest.game for _, e in second.games] == ["g5"] and second.next is None


def test_a_page_exactly_full_says_no_next_page_when_nothing_more_matches():
    found = list(enumerate(SEASON, 1))
    assert page(Query(limit=4), found).next is None
    assert page(Query(limit=3), found).next == 3


@pytest.mark.parametrize("text, expected", [
    ("2026-03-01", MARCH_1),
    ("2026-03-01T18:30", MARCH_1 + 18 * HOUR + HOUR // 2),
    ("2026-03-01 18:30:00Z", MARCH_1 + 18 * HOUR + HOUR // 2),
    ("2026-03-01T20:30+02:00", MARCH_1 + 18 * HOUR + HOUR // 2),
    ("yesterday", None), ("2026-02-30", None), ("", None),
])
def test_a_date_or_time_is_read_in_utc_unless_it_names_its_offset(text, expected):
    assert moment(text) == expected


def test_the_end_of_a_range_given_as_a_date_reaches_to_the_days_end():
    assert moment("2026-03-01", end=True) == MARCH_1 + 24 * HOUR


def test_an_index_entry_reads_as_the_archiver_writes_it():
    written = msgspec.json.encode(SEASON[2])
    assert matches(Query(seat="person"), msgspec.json.decode(written, type=IndexEntry).manifest)


def test_r24_the_rules_a_game_was_played_by_choose_it_an_entry_that_names_none_being_zioncheck():
    season = [*SEASON, msgspec.structs.replace(entry("e"), manifest=msgspec.structs.replace(
        entry("e").manifest, rules="liverpool")), msgspec.structs.replace(entry("f"), manifest=msgspec.structs.replace(
            entry("f").manifest, rules="zioncheck"))]
    assert games(Query(rules="liverpool"), season) == ["e"]
    assert games(Query(rules="zioncheck"), season) == ["a", "b", "c", "d", "f"]
    assert games(Query(rules="contract"), season) == []


def test_r24_a_manifest_made_before_it_named_its_rules_is_encoded_as_it_was():
    old = entry("a").manifest
    assert b"rules" not in msgspec.json.encode(old) and b"rules" not in msgspec.msgpack.encode(old)
    assert b'"rules":"contract"' in msgspec.json.encode(msgspec.structs.replace(old, rules="contract"))
