"""A log written by today's contracts stays replayable; old event versions are upcast on read."""
import subprocess
import sys
from pathlib import Path

import msgspec

from zioncheck.application.replay import fold_log, state_hash
from zioncheck.contracts import upcast as upcasting
from zioncheck.contracts.events import GameStarted
from zioncheck.contracts.log import decode_entry, read_jsonl

FIXTURE = Path(__file__).parent / "fixtures" / "game-v1.jsonl"
FIXTURE_HASH = "077b196562a8cec47c69cfee0445a8f5a8de966ef2e5204bb6329862d992d09b"


def test_the_committed_v1_log_folds_to_the_state_hash_it_had_when_written():
    entries = read_jsonl(FIXTURE.read_text())
    assert state_hash(fold_log(entries)) == FIXTURE_HASH
    assert fold_log(entries).game_over


def test_replay_of_the_committed_log_prints_its_hash_and_verifies_every_seed():
    out = subprocess.run([sys.executable, "-m", "zioncheck.cli.main", "replay", str(FIXTURE)],
                         capture_output=True, text=True, check=True).stdout
    assert f"state hash {FIXTURE_HASH}" in out
    assert "seeds verified for hands 1, 2, 3, 4, 5, 6" in out


def test_an_older_event_version_is_upcast_to_todays_shape_on_read(monkeypatch):
    def v0_to_v1(raw: dict) -> dict:  # imagine version 0 called the seat count "seats"
        raw = dict(raw, players=raw.pop("seats"), v=1)
        return raw
    monkeypatch.setitem(upcasting.UPCASTERS, ("game_started", 0), v0_to_v1)
    old = {"seq": 1, "cause": 0, "event": {"type": "game_started", "v": 0, "game_id": "g", "seats": 3,
                                           "decks": 2, "dealer": 0}}
    entry = decode_entry(msgspec.json.encode(old))
    assert entry.event == GameStarted(game_id="g", players=3, decks=2, dealer=0)


def test_a_damaged_log_line_is_reported_not_crashed_on(tmp_path):
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(FIXTURE.read_text().splitlines()[0] + "\n{not json\n")
    result = subprocess.run([sys.executable, "-m", "zioncheck.cli.main", "replay", str(damaged)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr == f"zioncheck replay: {damaged} is not a game log: line 2 holds no event\n"
    assert len(result.stderr.strip().splitlines()) == 1
