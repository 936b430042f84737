"""Rate limits: a bucket lets a burst through then one per 1/rate seconds, and the limiter's memory stays bounded."""
import sys

import pytest

from zioncheck.services.gateway.limits import Buckets, Limiter, Limits, RateLimited


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_lets_a_burst_through_then_says_how_long_until_the_next():
    clock = Clock()
    buckets = Buckets(rate=5, burst=10, clock=clock)
    assert [buckets.take("seat") for _ in range(10)] == [0] * 10
    assert buckets.take("seat") == pytest.approx(0.2)
    clock.now += 0.2
    assert buckets.take("seat") == 0 and buckets.take("seat") > 0


def test_a_refused_request_takes_nothing_so_waiting_as_told_is_enough():
    clock = Clock()
    buckets = Buckets(rate=1, burst=1, clock=clock)
    buckets.take("k")
    for _ in range(50):
        wait = buckets.take("k")
    clock.now += wait
    assert buckets.take("k") == 0


def test_a_quiet_key_refills_only_up_to_its_burst():
    clock = Clock()
    buckets = Buckets(rate=5, burst=10, clock=clock)
    buckets.take("seat")
    clock.now += 3600
    assert [buckets.take("seat") == 0 for _ in range(11)] == [True] * 10 + [False]


def test_each_key_has_its_own_bucket():
    buckets = Buckets(rate=1, burst=1, clock=Clock())
    assert buckets.take(("game-a", 0)) == 0 and buckets.take(("game-a", 1)) == 0
    assert buckets.take(("game-a", 0)) > 0


def test_the_limiter_remembers_at_most_tracked_keys_however_many_come():
    clock = Clock()
    buckets = Buckets(rate=5, burst=10, tracked=1000, clock=clock)
    for n in range(200_000):
        buckets.take(("game", n))
    assert len(buckets.buckets) == 1000
    assert sys.getsizeof(buckets.buckets) < 200_000, "an OrderedDict of 1,000 entries, not of 200,000"


def test_the_key_seen_least_recently_is_forgotten_first_and_comes_back_full():
    clock = Clock()
    buckets = Buckets(rate=0.001, burst=1, tracked=2, clock=clock)
    buckets.take("busy")
    buckets.take("old")
    assert buckets.take("busy") > 0          # "busy" is now the most recently seen
    buckets.take("new")                      # three keys: "old" is forgotten
    assert set(buckets.buckets) == {"busy", "new"}
    assert buckets.take("busy") > 0, "a key still remembered keeps its empty bucket"


def test_a_seat_over_its_command_rate_gets_a_reason_and_a_whole_number_retry_after():
    limiter = Limiter(Limits(commands_per_second=5, command_burst=2), clock=Clock())
    limiter.command("game-a", 0)
    limiter.command("game-a", 0)
    with pytest.raises(RateLimited) as refused:
        limiter.command("game-a", 0)
    assert refused.value.error == "too_many_commands" and refused.value.retry_after == 1
    assert "seat 0 may send 5 commands a second" in refused.value.detail


def test_a_key_over_its_new_game_rate_waits_for_the_next_minute_share():
    limiter = Limiter(Limits(games_per_minute=2), clock=Clock())
    limiter.new_game("acme")
    limiter.new_game("acme")
    with pytest.raises(RateLimited) as refused:
        limiter.new_game("acme")
    assert refused.value.error == "too_many_new_games" and refused.value.retry_after == 30
    limiter.new_game("another platform")


def test_limits_that_would_refuse_everything_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="commands per second must be more than 0"):
        Limits(commands_per_second=0)
    with pytest.raises(ValueError, match="open games must be at least 1"):
        Limits(open_games=0)
