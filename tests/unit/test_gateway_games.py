"""What the gateway holds for games: a key's open games are capped, idle and finished games are let go,
and games followed only for seats' commands are bounded. A stand-in for NATS plays the table."""
import asyncio
from types import SimpleNamespace

import pytest

from zioncheck.contracts.commands import DrawStock, StartGame
from zioncheck.contracts.events import Rejected
from zioncheck.services.gateway.games import Games, TooManyOpen
from zioncheck.services.gateway.lobbies import Lobbies, NoLobby
from zioncheck.services.gateway.wire import NewGame

PERSON_GAME = NewGame(players=2, seats=["person", "person"])


class FakeFollower:
    def __init__(self, game: str, client: "FakeClient"):
        self.game, self.client, self.batches, self.outcomes, self.arrived = game, client, [], {}, {}
        self.state = SimpleNamespace(game_over=False)
        self.stopped = False

    async def outcome(self, seq: int, timeout: float) -> list:
        """A game starts; every other command is refused (R18), as a seat's out of turn would be."""
        started = seq in self.client.starts
        self.outcomes[seq] = ["started"] if started else [Rejected(seat=0, command="draw_stock",
                                                                   reason="not_your_turn")]
        self.arrived[seq] = 0.0
        return self.outcomes[seq]

    async def stop(self) -> None:
        self.stopped = True


class FakeClient:
    """Follows games and takes commands, as GameClient does, without NATS."""

    def __init__(self):
        self.followers: list[FakeFollower] = []
        self.sent, self.starts = 0, set()

    async def follow(self, game: str) -> FakeFollower:
        await asyncio.sleep(0)
        self.followers.append(FakeFollower(game, self))
        return self.followers[-1]

    async def send(self, game: str, command, msg_id: str | None = None) -> int:
        await asyncio.sleep(0)
        self.sent += 1
        if isinstance(command, StartGame):
            self.starts.add(self.sent)
        return self.sent


class AnyGameExists:
    async def require(self, game: str) -> None:
        pass


def games(**options) -> Games:
    return Games(FakeClient(), AnyGameExists(), **options)


async def test_a_key_opens_at_most_its_share_of_games_even_all_at_once():
    held = games(open_per_key=3)
    opened = await asyncio.gather(*(held.create(PERSON_GAME, "acme") for _ in range(5)), return_exceptions=True)
    assert sum(isinstance(o, str) for o in opened) == 3
    assert sum(isinstance(o, TooManyOpen) for o in opened) == 2
    assert isinstance(await held.create(PERSON_GAME, "another"), str), "the cap is per key"


async def test_a_game_no_one_moves_is_let_go_after_idle_after_and_its_place_freed():
    held = games(open_per_key=1, idle_after=60)
    game = await held.create(PERSON_GAME, "acme")
    started = held.held[game].since
    await held.sweep(now=started + 59)
    assert game in held.held
    await held.sweep(now=started + 60)
    assert held.held == {} and held.client.followers[0].stopped
    await held.create(PERSON_GAME, "acme")


async def test_a_game_that_moves_is_kept_however_old():
    held = games(idle_after=60)
    game = await held.create(PERSON_GAME, "acme")
    follower, started = held.client.followers[0], held.held[game].since
    for minute in range(1, 10):
        follower.batches.append(minute)
        await held.sweep(now=started + 50 * minute)
    assert game in held.held


async def test_a_finished_game_is_let_go_at_the_next_look():
    held = games()
    game = await held.create(PERSON_GAME, "acme")
    held.client.followers[0].state.game_over = True
    assert game in held.held, "finished, it is still held until the next look"
    await held.sweep()
    assert held.held == {}


async def test_games_followed_only_for_commands_are_bounded_and_the_least_recently_moved_go_first():
    held = games(followed_kept=3)
    for n in range(10):
        await held.command(f"elsewhere-{n}", DrawStock(seat=0))
    assert sorted(held.held) == ["elsewhere-7", "elsewhere-8", "elsewhere-9"]
    await asyncio.sleep(0)
    assert [f.stopped for f in held.client.followers] == [True] * 7 + [False] * 3


async def test_a_commands_outcome_is_not_kept_once_it_is_answered():
    held = games()
    outcome = await held.command("elsewhere", DrawStock(seat=0))
    assert outcome.reason == "not_your_turn"
    assert held.client.followers[0].outcomes == {} and held.held["elsewhere"].busy == 0


async def test_stopping_lets_go_of_every_game():
    held = games().start()
    await held.create(PERSON_GAME, "acme")
    await held.command("elsewhere", DrawStock(seat=0))
    await held.stop()
    assert held.held == {} and all(f.stopped for f in held.client.followers)


def test_a_new_games_clock_has_the_bounds_the_rules_give_it():
    """R19-R23: what the lobby and POST /games accept for each limit is what a start may carry."""
    import msgspec

    from zioncheck.domain.timers import LIMIT_BOUNDS
    from zioncheck.services.gateway.wire import NewGame

    schema = msgspec.json.schema(NewGame)["$defs"]["NewGame"]["properties"]
    named = {"bot_seconds": "pace"}
    for limit, (least, most) in LIMIT_BOUNDS.items():
        field = schema[named.get(limit, limit)]
        assert (field["minimum"], field["maximum"]) == (least, most), limit


# A lobby being started: its seats still find it until the table has stored the game's start, so a seat told the
# lobby is gone always finds the game (its page opens the game's socket on that word, and a game not yet stored
# would close it as no game).
class SlowFollower(FakeFollower):
    async def outcome(self, seq: int, timeout: float) -> list:
        await self.client.stored.wait()
        return await super().outcome(seq, timeout)


class SlowTable(FakeClient):
    """The table stores a game's start only once `stored` is set."""

    def __init__(self):
        super().__init__()
        self.stored = asyncio.Event()

    async def follow(self, game: str) -> FakeFollower:
        self.followers.append(SlowFollower(game, self))
        return self.followers[-1]


async def test_a_lobby_starting_is_still_found_by_its_seats_and_gone_once_its_start_is_stored():
    table = SlowTable()
    lobbies = Lobbies(Games(table, AnyGameExists()))
    game = lobbies.open(PERSON_GAME, "key", expires=0).game
    starting = asyncio.create_task(lobbies.start(game))
    await asyncio.sleep(0.01)
    assert table.sent == 1 and not starting.done()
    assert lobbies.get(game).game == game                 # a seat polling now keeps waiting
    with pytest.raises(NoLobby):                          # a second press of start starts nothing
        await lobbies.start(game)
    table.stored.set()
    await starting
    with pytest.raises(NoLobby):
        lobbies.get(game)
    assert table.sent == 1
    assert lobbies.games.open_by("key") == 1           # the game counts once, the lobby no more


async def test_a_lobby_whose_start_fails_waits_again_to_be_started():
    class Down(FakeClient):
        async def send(self, game, command, msg_id=None):
            raise TimeoutError("no table")

    lobbies = Lobbies(Games(Down(), AnyGameExists()))
    game = lobbies.open(PERSON_GAME, "key", expires=0).game
    with pytest.raises(TimeoutError):
        await lobbies.start(game)
    assert lobbies.get(game).game == game and not lobbies.starting
    assert lobbies.games.open_by("key") == 1
