"""The rules proved from outside: every scenario file beside its expected outcome (docs/scenarios.md).

Each `tests/scenarios/NAME.json` with a `NAME.expected.json` is played through the
oracle and compared on what docs/scenarios.md promises: each result's `index`,
`accepted` and `reason`, and the whole `state` block. Hands are compared as
multisets, since the order of a hand is free; everything else exactly.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zioncheck.application import scenario as oracle

HERE = Path(__file__).parent
SCENARIOS = HERE / "scenarios"
ROOT = HERE.parent
RESULT_KEYS = ("index", "accepted", "reason")

def scenario_names() -> list[str]:
    return sorted(p.name[: -len(".expected.json")] for p in SCENARIOS.glob("*.expected.json"))


def play(path: Path) -> dict:
    return oracle.run(oracle.load(path.read_bytes()))


def comparable(outcome: dict) -> dict:
    """The parts of an outcome docs/scenarios.md fixes, with hands as sorted multisets."""
    results = [{key: r[key] for key in RESULT_KEYS if key in r} for r in outcome["results"]]
    state = dict(outcome["state"])
    state["hands"] = [sorted(hand) for hand in state["hands"]]
    return {"results": results, "state": state}


def test_every_scenario_file_has_its_expected_outcome():
    played = {p.stem for p in SCENARIOS.glob("*.json") if not p.name.endswith(".expected.json")}
    assert played == set(scenario_names())


def test_every_rule_from_r1_to_r18_has_a_scenario():
    names = scenario_names()
    rules = [f"r{n:02d}_" for n in range(1, 19)] + ["r11a_", "r12a_"]
    assert [rule for rule in rules if not any(name.startswith(rule) for name in names)] == []


@pytest.mark.parametrize("name", [name for name in scenario_names()])
def test_the_scenario_plays_out_as_the_rules_say(name):
    expected = json.loads((SCENARIOS / f"{name}.expected.json").read_text())
    outcome = play(SCENARIOS / f"{name}.json")
    assert set(outcome["state"]) == set(expected["state"]), "the state block's keys"
    assert comparable(outcome) == comparable(expected)


# --- the real command line ---------------------------------------------------------

def zioncheck(*args: str) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("zioncheck")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "zioncheck.cli.main"]
    return subprocess.run([*command, *args], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_the_scenario_command_prints_the_example_outcome_and_exits_0():
    run = zioncheck("scenario", str(SCENARIOS / "example.json"))
    assert run.returncode == 0, run.stderr
    expected = json.loads((SCENARIOS / "example.expected.json").read_text())
    assert comparable(json.loads(run.stdout)) == comparable(expected)


MALFORMED = {
    "bad_json": b'{"players": 2, "hands": [["AS"], ["KS"]], "stock": [], "commands": [',
    "missing_stock": b'{"players": 2, "hands": [["AS"], ["KS"]], "commands": []}',
    "non_card_in_hands": b'{"players": 2, "hands": [["AS", "1X"], ["KS"]], "stock": [], "commands": []}',
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_scenario_file_exits_2_with_one_line_on_stderr(case, tmp_path):
    path = tmp_path / f"{case}.json"
    path.write_bytes(MALFORMED[case])
    run = zioncheck("scenario", str(path))
    assert run.returncode == 2
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_r01_a_table_of_one_player_is_a_malformed_scenario(tmp_path):
    path = tmp_path / "alone.json"
    path.write_text('{"players": 1, "hands": [["AS"]], "stock": ["KS"], "commands": []}')
    run = zioncheck("scenario", str(path))
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
