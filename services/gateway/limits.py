"""Rate limits: how much one platform key or one seat may ask of the gateway, as token buckets in memory.

Each limiter remembers at most `tracked` keys or seats; past that it forgets the one
seen least recently. A forgotten bucket comes back full, as it would have been after
`burst / rate` seconds of quiet anyway, so forgetting only ever lets through what a
patient client would have got. The gateway keeps no other record of who asked what:
several gateways each apply their own limits.
"""
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """The gateway's limits. The defaults leave a person, a bot and a busy platform plenty of room."""
    games_per_minute: float = 30      # games one key may open a minute, as many of them at once
    requests_per_second: float = 20   # requests one key may make a second, twice as many at once
    commands_per_second: float = 5    # commands one seat may send a second...
    command_burst: int = 10           # ...after a first burst of this many
    open_games: int = 50              # games one key may have open (not over, not idle) at a time
    idle_minutes: float = 30          # a game no one has moved for this long is dropped from the gateway's care
    chat_lines: int = 5               # chat lines one seat may say...
    chat_seconds: float = 10          # ...in this many seconds (as a bucket: a line back every 2 s)
    tracked: int = 10_000             # keys or seats each limiter remembers

    def __post_init__(self):
        for name in ("games_per_minute", "requests_per_second", "commands_per_second", "idle_minutes",
                     "chat_seconds"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name.replace('_', ' ')} must be more than 0, not {getattr(self, name)}")
        for name in ("command_burst", "open_games", "tracked", "chat_lines"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name.replace('_', ' ')} must be at least 1, not {getattr(self, name)}")


class RateLimited(Exception):
    """A request over a limit (429): `retry_after` is how many seconds until it would pass."""

    def __init__(self, error: str, detail: str, retry_after: float):
        super().__init__(detail)
        self.error, self.detail = error, detail
        self.retry_after = max(1, math.ceil(retry_after))


class Buckets:
    """Token buckets by key: each holds at most `burst` tokens and refills at `rate` a second."""

    def __init__(self, rate: float, burst: float, tracked: int = 10_000,
                 clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.tracked, self.clock = rate, burst, tracked, clock
        self.buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()   # key: (tokens, when counted)

    def take(self, key: Hashable) -> float:
        """Take one token for `key`: 0 when it had one, else the seconds until it will (nothing taken)."""
        now = self.clock()
        tokens, then = self.buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
        self.buckets[key] = (tokens - 1 if wait == 0 else tokens, now)
        while len(self.buckets) > self.tracked:
            self.buckets.popitem(last=False)   # the least recently seen
        return wait


class Limiter:
    """The gateway's limits: a key's requests, a key's new games, a seat's commands, a seat's chat lines."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic):
        self.limits = limits
        self.requests = Buckets(limits.requests_per_second, 2 * limits.requests_per_second, limits.tracked, clock)
        self.games = Buckets(limits.games_per_minute / 60, max(1.0, limits.games_per_minute), limits.tracked, clock)
        self.commands = Buckets(limits.commands_per_second, limits.command_burst, limits.tracked, clock)
        self.chat = Buckets(limits.chat_lines / limits.chat_seconds, limits.chat_lines, limits.tracked, clock)

    def request(self, key: str) -> None:
        wait = self.requests.take(key)
        if wait:
            raise RateLimited("too_many_requests", f"platform key {key!r} may make "
                                                   f"{self.limits.requests_per_second:g} requests a second", wait)

    def new_game(self, key: str) -> None:
        wait = self.games.take(key)
        if wait:
            raise RateLimited("too_many_new_games", f"platform key {key!r} may open {self.limits.games_per_minute:g} "
                                                    f"games a minute: the next one in {math.ceil(wait)} s", wait)

    def command(self, game: str, seat: int) -> None:
        wait = self.commands.take((game, seat))
        if wait:
            raise RateLimited("too_many_commands", f"seat {seat} may send {self.limits.commands_per_second:g} commands "
                                                   f"a second after a burst of {self.limits.command_burst}; "
                                                   "this one was not sent", wait)

    def chat_line(self, game: str, seat: int) -> None:
        wait = self.chat.take((game, seat))
        if wait:
            raise RateLimited("too_many_messages", f"seat {seat} may say {self.limits.chat_lines} chat lines in "
                                                   f"{self.limits.chat_seconds:g} s; this one was not sent", wait)
