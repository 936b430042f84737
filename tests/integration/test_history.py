"""`zioncheck history` lists archived games from the history index on a real server, and `zioncheck export
--parquet` writes the games it chooses, each read from the archive bucket or a folder of archive files. The index
is written here as the archiver writes it: one IndexEntry a game on zc.history.<tenant>.<game> (the operator may
publish there)."""
import asyncio
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from archived import archive, where
from zioncheck.application.archive_samples import MARCH_2026, sample_season
from zioncheck.application.history import Query
from zioncheck.cli.main import main
from zioncheck.contracts.archive import GameRecord
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.log_store import first_stored_at
from zioncheck.services.bus.topology import HISTORY, HISTORY_SUBJECTS, history_subject
from zioncheck.services.history import matching

pytestmark = pytest.mark.integration

DAY = 24 * 3_600 * 1_000_000_000
# Two tenants' seasons: the house's default tenant's six games from 1 March (every third abandoned), one a day,
# and acme's three from 1 April.
HOUSE = sample_season(6, seed="house", apart=DAY, abandon_every=3)
ACME = sample_season(3, tenant="acme", seed="acme", started_at=MARCH_2026 + 31 * DAY, apart=DAY)


def zioncheck(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    said = capsys.readouterr()
    return code, said.out, said.err


def listed(out: str) -> list[str]:
    """The games a listing names, in its order (the heading aside)."""
    return [line.split()[4] for line in out.splitlines()[1:]]


def names(records: list[GameRecord]) -> list[str]:
    return [r.manifest.game for r in records]


def test_history_lists_archived_games_by_tenant_date_seat_outcome_and_winner(nats_server, capsys):
    asyncio.run(archive(nats_server.access, HOUSE + ACME))
    history = ("history", *nats_server.cli_args)
    code, out, err = zioncheck(capsys, *history)
    assert code == 0 and err == ""
    assert listed(out) == names(HOUSE + ACME), "the operator sees every tenant's games, in the order archived"
    assert out.splitlines()[0].split()[:4] == ["#", "started", "(UTC)", "tenant"]
    assert "2026-03-01 00:00  platform  house-00000  zioncheck  greedy random greedy random" in out
    assert listed(zioncheck(capsys, *history, "--tenant", "acme")[1]) == names(ACME)
    march_2_to_4 = zioncheck(capsys, *history, "--from", "2026-03-02", "--to", "2026-03-04")[1]
    assert listed(march_2_to_4) == names(HOUSE[1:4])
    abandoned = [r for r in HOUSE if r.manifest.outcome == "abandoned"]
    assert listed(zioncheck(capsys, *history, "--outcome", "abandoned")[1]) == names(abandoned)
    assert listed(zioncheck(capsys, *history, "--seat", "person")[1]) == names(abandoned)
    assert "abandoned" in zioncheck(capsys, *history, "--seat", "person")[1]
    won_by_2 = [r for r in HOUSE + ACME if r.manifest.outcome == "finished" and 2 in r.manifest.winners]
    assert listed(zioncheck(capsys, *history, "--won-by", "2")[1]) == names(won_by_2)
    assert listed(zioncheck(capsys, *history, "--seat", "3", "--tenant", "acme")[1]) == names(
        [r for r in ACME if r.manifest.players > 3])
    code, out, _ = zioncheck(capsys, *history, "--tenant", "nobody")
    assert code == 0 and out == "no archived game matches\n"
    assert listed(zioncheck(capsys, *history, "--rules", "zioncheck")[1]) == names(HOUSE + ACME)
    assert zioncheck(capsys, *history, "--rules", "liverpool")[1] == "no archived game matches\n"


def test_history_pages_follow_one_another_until_the_last(nats_server, capsys):
    asyncio.run(archive(nats_server.access, HOUSE + ACME))
    history = ("history", "--limit", "4", *nats_server.cli_args)
    seen, after = [], "0"
    for _ in range(4):
        code, out, err = zioncheck(capsys, *history, "--after", after)
        assert code == 0
        seen += listed(out)
        if not err:
            break
        assert err.startswith("more games follow: add --after ")
        after = err.split("--after ")[1].split()[0]
    assert seen == names(HOUSE + ACME), "every game once, in order, over three pages"


def test_a_date_range_starts_reading_the_index_at_the_first_entry_stored_since_it(nats_server):
    async def check():
        await archive(nats_server.access, HOUSE[:2])
        between = time.time_ns()
        await archive(nats_server.access, HOUSE[2:4])
        nc = await connect(nats_server.access, "operator")
        js = nc.jetstream()
        try:
            assert await first_stored_at(js, HISTORY, HISTORY_SUBJECTS, between) == 3
            assert await first_stored_at(js, HISTORY, HISTORY_SUBJECTS, time.time_ns() + DAY) is None
            assert await first_stored_at(js, HISTORY, history_subject("acme", "*"), 0) is None
            # Games that started after `between` could only have been indexed after it: none of the first two.
            query = Query(start=between)
            assert [e.manifest.game async for _, e in matching(js, query)] == []
            query = Query(start=HOUSE[1].manifest.started_at)
            assert [e.manifest.game async for _, e in matching(js, query)] == names(HOUSE[1:4])
        finally:
            await nc.close()
    asyncio.run(check())


def test_history_before_anything_is_archived_says_so_in_one_line(nats_server, capsys):
    code, out, err = zioncheck(capsys, "history", *nats_server.cli_args)
    assert code == 0 and err == ""
    assert out.startswith("nothing is archived yet: the server holds no history index")


def read(folder: Path, table: str) -> list[dict]:
    return pq.read_table(folder / f"{table}.parquet").to_pylist()


def test_export_parquet_writes_the_chosen_games_read_from_the_bucket_or_from_a_folder(nats_server, capsys, tmp_path):
    files = tmp_path / "archives"
    files.mkdir()
    asyncio.run(archive(nats_server.access, HOUSE + ACME, files))
    from_bucket, from_folder = tmp_path / "bucket", tmp_path / "folder"
    code, out, err = zioncheck(capsys, "export", "--parquet", str(from_bucket), "--tenant", "platform",
                               *nats_server.cli_args)
    assert code == 0, err
    games = read(from_bucket, "games")
    assert [g["game"] for g in games] == names(HOUSE)
    assert [g["outcome"] for g in games] == [r.manifest.outcome for r in HOUSE]
    hands = sum(r.manifest.hands for r in HOUSE)
    assert sum(h["finished"] for h in read(from_bucket, "hands")) == hands
    assert len(read(from_bucket, "scores")) == sum(r.manifest.hands * r.manifest.players for r in HOUSE)
    assert err.startswith(f"wrote 6 games ({len(read(from_bucket, 'hands'))} hands, ")
    assert "games.parquet hands.parquet moves.parquet scores.parquet" in err
    code, _, err = zioncheck(capsys, "export", "--parquet", str(from_folder), "--archive", str(files), "--tenant",
                             "platform", *nats_server.cli_args)
    assert code == 0, err
    for table in ("games", "hands", "moves", "scores"):
        assert read(from_folder, table) == read(from_bucket, table), f"the same {table} from either store"
    assert sorted(p.name for p in from_folder.iterdir()) == ["games.parquet", "hands.parquet", "moves.parquet",
                                                             "scores.parquet"], "no half-written file left"
    code, _, err = zioncheck(capsys, "export", "--parquet", str(from_folder), "--limit", "2", "--outcome", "finished",
                             *nats_server.cli_args)
    assert code == 0 and err.startswith("wrote 2 games (")
    assert [g["game"] for g in read(from_folder, "games")] == ["house-00000", "house-00001"], "the tables replaced"


def test_an_archive_missing_or_damaged_is_told_and_every_other_game_exported(nats_server, capsys, tmp_path):
    files = tmp_path / "archives"
    files.mkdir()
    asyncio.run(archive(nats_server.access, ACME, files))
    (files / where(ACME[0])).unlink()
    damaged = files / where(ACME[1])
    damaged.write_bytes(damaged.read_bytes()[:500])
    out_folder = tmp_path / "tables"
    code, _, err = zioncheck(capsys, "export", "--parquet", str(out_folder), "--archive", str(files),
                             *nats_server.cli_args)
    assert code == 1
    assert [g["game"] for g in read(out_folder, "games")] == [ACME[2].manifest.game]
    lines = err.splitlines()
    assert lines[0].startswith("wrote 1 game (")
    assert lines[1] == f"not exported: acme=acme-00000: the archive store has nothing called {where(ACME[0])}"
    assert lines[2].startswith("not exported: acme=acme-00001: its archive is damaged: ")
    assert lines[3] == "2 archived games were not exported: their archives could not be read"


def test_export_parquet_before_anything_is_archived_fails_in_one_line_and_writes_nothing(nats_server, capsys,
                                                                                           tmp_path):
    code, _, err = zioncheck(capsys, "export", "--parquet", str(tmp_path / "t"), *nats_server.cli_args)
    assert code == 1 and err.startswith("zioncheck export: nothing is archived yet") and len(err.splitlines()) == 1
    assert not (tmp_path / "t").exists()
