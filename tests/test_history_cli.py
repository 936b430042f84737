"""`zioncheck history` and `zioncheck export --parquet` check every option before they reach a server, and refuse
what cannot be answered in one line: a date that is none, a seat that is none, options that cannot go together,
and a missing pyarrow, said with how to install it."""
import sys

import pytest

from zioncheck.cli import history_cmd, season_export
from zioncheck.cli.main import main


@pytest.fixture
def no_server(monkeypatch):
    def start(*args, **kwargs):
        raise AssertionError("reached for a server before every option was checked")
    monkeypatch.setattr(history_cmd, "bus", start)
    monkeypatch.setattr(season_export, "bus", start)


@pytest.mark.parametrize(("argv", "reason"), [
    (["history", "--limit", "0"], "--limit must be 1..1000, not 0"),
    (["history", "--limit", "1001"], "--limit must be 1..1000, not 1001"),
    (["history", "--seat", "64"], "--seat must be 0..63, not 64"),
    (["history", "--from", "2026-03-02", "--to", "2026-03-01"],
     "--from 2026-03-02 is not before --to 2026-03-01: no game started between them"),
    (["history", "--tenant", "acme.*"], "'acme.*' is not a tenant's name (letters, digits, - and _)"),
    (["history", "--won-by", "greedy", "--outcome", "abandoned"],
     "--won-by with --outcome abandoned: an abandoned game has no winner"),
    (["export"], "say what to export: a game id, or --parquet DIR for archived games"),
    (["export", "game-1", "--parquet", "out"], "give a game id (with -o) or --parquet DIR, not both"),
    (["export", "game-1", "--from", "2026-03-01"], "--from chooses archived games: it goes with --parquet DIR"),
    (["export", "game-1", "--won-by", "1"], "--won-by chooses archived games: it goes with --parquet DIR"),
    (["export", "game-1", "--rules", "liverpool"], "--rules chooses archived games: it goes with --parquet DIR"),
    (["export", "--parquet", "out", "--limit", "0"], "--limit must be at least 1, not 0"),
], ids=" ".join)
def test_an_option_that_cannot_be_answered_is_refused_in_one_line_before_any_server(argv, reason, no_server, capsys,
                                                                                     tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [f"zioncheck {argv[0]}: {reason}"]
    assert list(tmp_path.iterdir()) == [], "nothing written"


@pytest.mark.parametrize(("option", "value", "says"), [
    ("--from", "yesterday", "not a date or a time: yesterday (say 2026-03-01, or 2026-03-01T18:30, UTC)"),
    ("--to", "2026-02-30", "not a date or a time: 2026-02-30 (say 2026-03-01, or 2026-03-01T18:30, UTC)"),
    ("--seat", "alice", "not a seat: alice (a seat's number from 0, or person, greedy, random, strong, expert)"),
    ("--won-by", "-1", "not a seat: -1 (a seat's number from 0, or person, greedy, random, strong, expert)"),
])
def test_a_date_or_a_seat_that_is_none_is_refused_naming_its_option(option, value, says, no_server, capsys):
    with pytest.raises(SystemExit) as refused:
        main(["history", option, value])
    assert refused.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"zioncheck history: error: argument {option}: {says}"


def test_export_parquet_without_pyarrow_says_how_to_install_it_in_one_line(no_server, capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)   # what an environment without the extra has
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    assert main(["export", "--parquet", str(tmp_path / "season")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "zioncheck export: writing Parquet needs pyarrow, which is not installed: pip install 'zioncheck[history]'"]
    assert not (tmp_path / "season").exists()


def test_the_help_of_each_option_says_what_it_chooses(capsys):
    with pytest.raises(SystemExit):
        main(["history", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    for says in ("--from WHEN only games that started at this date or time or later, UTC",
                 "--to WHEN only games that started up to this date (the whole day) or this time, UTC",
                 "--seat SEAT|NAME only games with this seat (a number from 0), or with this player at the table: "
                 "person, greedy, random, strong, expert",
                 "--limit N games a page lists, 1 to 1000 (default 50)",
                 "--rules {zioncheck,contract,liverpool} only games played by these rules: zioncheck, contract, "
                 "liverpool (docs/rules.md R24)"):
        assert says in helped
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert "--parquet DIR write games.parquet, hands.parquet, moves.parquet and scores.parquet in this folder" in helped
    assert ("--archive DIR read the archives from this folder of archive files (default: the bucket zc_archive)"
            in helped)
