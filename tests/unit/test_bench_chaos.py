"""The chaos benchmark's figures and verdict (bench/chaos.py): a standstill is a gap a game's client saw between two
batches, less the time what was killed was down in it, and the run FAILs when any of its four targets is missed."""
import math

import bench.__main__ as runner
from bench.chaos import Checked, Kill, Life, Outcome, Seen, Standstill, back_at, rows, standstills

UNTIL = 100.0


def stood(seen: dict[str, Seen], kills: list[Kill]) -> list[tuple[str, float]]:
    return [(found.kind, round(found.seconds, 3)) for found in standstills(seen, kills, UNTIL)]


def outcome(**changed) -> Outcome:
    """A run of 32 games in which everything went right, but for `changed`."""
    fields = dict(games=32, checked={f"game-{i}": Checked([], []) for i in range(32)}, over=32, left={}, removed=32,
                  back_then=0, standstills=[Standstill("game-0", "server", 0.4, 1.0)], kills={"server": 3}, trace={},
                  exits=0, where="one server, P=2")
    return Outcome(**(fields | changed))


def test_a_kill_while_another_instance_serves_counts_the_whole_gap():
    seen = {"game": Seen([9.9, 12.9, 13.0], over=13.0)}
    assert stood(seen, [Kill("table", at=10.0, back=10.0)]) == [("table", 3.0), ("after table", 0.1)]


def test_the_time_the_server_was_down_is_taken_off_the_gap():
    seen = {"game": Seen([9.95, 11.0], over=11.0)}
    assert stood(seen, [Kill("server", at=10.0, back=10.6)]) == [("server", 0.45)]


def test_a_process_killed_just_before_a_batch_is_down_in_the_gap_after_it():
    """The projector dies, a batch is appended all the same, and the bots wait for its view: the projector's time
    down in the next gap is taken off it, and the gap is put down to it."""
    seen = {"game": Seen([9.9, 10.01, 12.3], over=12.3)}
    assert stood(seen, [Kill("projector", at=10.0, back=12.0)]) == [("projector", 0.1), ("projector", 0.3)]


def test_a_game_that_stands_still_just_after_the_server_is_back_stands_still_for_the_server():
    """No kill falls in the second gap, which begins a moment after the server is back."""
    seen = {"game": Seen([9.9, 10.8, 14.0], over=14.0)}
    assert stood(seen, [Kill("server", at=10.0, back=10.6)]) == [("server", 0.3), ("server", 3.2)]


def test_two_kills_in_one_gap_take_off_the_time_either_was_down_and_both_are_named():
    seen = {"game": Seen([10.0, 16.0, 18.5], over=18.5)}
    kills = [Kill("server", at=10.5, back=11.0), Kill("records", at=12.0, back=14.0)]
    assert stood(seen, kills) == [("server+records", 3.5), ("after records", 2.5)]


def test_a_game_that_never_moves_again_stands_until_the_run_ends():
    seen = {"game": Seen([10.0])}
    assert stood(seen, [Kill("table", at=11.0, back=11.5)]) == [("table", UNTIL - 10.0 - 0.5)]


def test_the_gaps_before_the_first_kill_are_no_standstill_and_every_one_after_is():
    seen = {"game": Seen([1.0, 5.0, 9.0, 13.0], over=13.0)}
    assert stood(seen, [Kill("dealer", at=9.5, back=9.5)]) == [("dealer", 4.0)]


def test_work_killed_goes_on_at_once_where_another_instance_serves_else_when_one_serves_again():
    twin, killed, again = Life(0.0, 1.0), Life(0.0, 1.0, ended=5.0), Life(5.5, 7.0)
    assert back_at([twin, killed, again], at=5.0) == 5.0
    assert back_at([killed, again], at=5.0) == 7.0
    assert back_at([killed, Life(5.5, None, ended=6.0)], at=5.0) is None   # killed again while it started


def test_a_run_whose_four_targets_are_met_passes():
    made = rows(outcome())
    assert [row.name for row in made] == ["chaos: games intact", "chaos: removed games that came back",
                                          "chaos: worst standstill a client saw", "chaos: archives verified"]
    assert runner.verdict("chaos", made) == ("chaos: games intact 32 games, target >= 30 games (4 of 4 targets met): "
                                             "PASS")


def test_a_standstill_over_a_second_fails_the_run():
    made = rows(outcome(standstills=[Standstill("game-3", "table", 2.9, 3.0), Standstill("game-3", "server", 0.4, 1)]))
    assert runner.verdict("chaos", made) == ("chaos: worst standstill a client saw 2.9 s, target <= 1 s (3 of 4 "
                                             "targets met): FAIL")
    assert "table 2.90 s (gap 3.0 s)" in made[2].workload


def test_a_removed_game_found_hot_after_the_servers_restart_fails_the_run():
    made = rows(outcome(left={"game-5": "standings 1, a platform reads its standings"}, back_then=1))
    assert runner.verdict("chaos", made).startswith("chaos: removed games that came back 1 games, target <= 0 games")


def test_fewer_than_30_games_intact_or_an_archive_that_does_not_verify_fails_the_run():
    broken = {f"game-{i}": Checked(["its public view is not the projection of its log"], []) for i in range(3)}
    made = rows(outcome(checked=outcome().checked | broken))
    assert runner.verdict("chaos", made).startswith("chaos: games intact 29 games, target >= 30 games")
    unsigned = {"game-7": Checked([], ["bad_signature"])}
    made = rows(outcome(checked=outcome().checked | unsigned))
    assert runner.verdict("chaos", made).startswith("chaos: archives verified 31 archives, target >= 32 archives")


def test_a_run_that_measured_no_standstill_at_all_fails():
    made = rows(outcome(standstills=[]))
    assert math.isnan(made[2].rate)
    assert runner.verdict("chaos", made).endswith("measured no number (nan): FAIL")
