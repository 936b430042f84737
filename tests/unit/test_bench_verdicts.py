"""Benchmarks cannot lie: each ends with one line, its figure, its target, PASS or FAIL, and one that
measured no number, has no target, or could not run FAILs (bench/__main__.py)."""
import math

import bench.__main__ as runner
from bench import Row


def test_a_benchmark_whose_targets_are_met_passes_with_its_first_figure():
    rows = [Row("rate", 120.0, "commands/s", "", 100.0), Row("p99", 40.0, "ms", "", 50.0, at_most=True)]
    assert runner.verdict("service", rows) == ("service: rate 120 commands/s, target >= 100 commands/s "
                                               "(2 of 2 targets met): PASS")


def test_a_missed_target_fails_and_is_the_figure_named():
    rows = [Row("rate", 120.0, "commands/s", "", 100.0), Row("p99", 70.0, "ms", "", 50.0, at_most=True)]
    assert runner.verdict("service", rows) == "service: p99 70 ms, target <= 50 ms (1 of 2 targets met): FAIL"


def test_no_number_or_no_target_fails():
    assert runner.verdict("fanout", [Row("p99", math.nan, "ms", "", 100.0)]).endswith("measured no number (nan): FAIL")
    assert runner.verdict("timers", [Row("rate", 5.0, "commands/s", "")]) == "timers: no figure with a target: FAIL"


def test_a_benchmark_that_cannot_run_fails_loudly_and_the_run_exits_1(monkeypatch, capsys):
    def broken() -> list[Row]:
        raise RuntimeError("the peer's database did not start")

    monkeypatch.setattr(runner.importlib, "import_module", lambda name: type("M", (), {"run": staticmethod(broken)}))
    assert runner.main(["peer"]) == 1
    assert "peer: could not run (RuntimeError: the peer's database did not start): FAIL" in capsys.readouterr().out
