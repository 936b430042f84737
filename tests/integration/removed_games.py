"""What a removed game leaves, for the tests that remove games and kill servers: what each hot stream and bucket
holds of a game, what a platform reads of it, and games to remove (and one to keep in play beside them)."""
import asyncio

import pytest
from nats.aio.client import Client

from over_nats import new_game
from zioncheck.client import GameClient, read_view
from zioncheck.contracts.commands import Limits, StartGame
from zioncheck.services.bus.log_store import subject_counts
from zioncheck.services.bus.publish import request
from zioncheck.services.bus.topology import (
    FEED,
    OPEN,
    REMOVALS,
    SCORES,
    SEEDS,
    STANDINGS,
    VIEWS,
    commands_stream,
    feed_subject,
    kv_stream,
    kv_subject,
    layout,
    log_stream,
    log_subject,
    open_subject,
    public_view_key,
    removal_subject,
    remove_subject,
    schedule_subject,
    score_subject,
    seed_key,
    standings_key,
    stored_command_subject,
    view_keys,
)

SEATS = 4
NOTHING = dict.fromkeys(("commands", "deadline", "log", "feed", "scores", "views", "standings", "in play", "seeds",
                         "removal", "removal due"), 0)


async def hot(js, game: str) -> dict[str, int]:
    """How many messages of the game each hot stream and bucket holds (as each stream's leader counts them)."""
    p = (await layout(js)).of(game)
    where = {"commands": (commands_stream(p), stored_command_subject(p, game)),
             "deadline": (commands_stream(p), schedule_subject(p, game)),
             "log": (log_stream(p), log_subject(p, game)), "feed": (FEED, feed_subject(game)),
             "scores": (SCORES, score_subject(game)), "views": (kv_stream(VIEWS), kv_subject(VIEWS, view_keys(game))),
             "standings": (kv_stream(STANDINGS), kv_subject(STANDINGS, standings_key(game))),
             "in play": (OPEN, open_subject(game)), "seeds": (kv_stream(SEEDS), kv_subject(SEEDS, seed_key(game, "*"))),
             "removal": (REMOVALS, removal_subject(game)), "removal due": (REMOVALS, remove_subject(game))}
    return {name: sum((await subject_counts(js, stream, subject)).values())
            for name, (stream, subject) in where.items()}


async def platform_reads(platform: Client, game: str) -> tuple[bytes | None, bytes | None]:
    """What a platform reads of a game of its own: its public view and its standings (None for none), by the direct
    gets its login may make, answered by whichever replica the server asks."""
    view = await read_view(platform, public_view_key(game))
    reply = await request(platform, f"$JS.API.DIRECT.GET.{kv_stream(STANDINGS)}."
                                    f"{kv_subject(STANDINGS, standings_key(game))}", b"", 5.0)
    return view, None if (reply.headers or {}).get("Status") else reply.data


async def left_of(games: list[str], operator: GameClient, platforms: list[Client]) -> dict:
    """Of each game: what each platform connection reads of it, and what the hot store holds of it (what could not
    be read, a server not back yet, said as such)."""
    async def read(what):
        try:
            return await what
        except Exception as error:  # noqa: BLE001 - not answered yet: said, and read again
            return f"unanswered: {error!r}"[:120]
    return {game: ([await read(platform_reads(platform, game)) for platform in platforms],
                   await read(hot(operator.js, game))) for game in games}


def gone(left: dict) -> bool:
    """Whether nothing is left of any of the games (`left_of`): no platform reads a view or standings of it, and no
    hot stream or bucket holds a message of it."""
    return all(all(read == (None, None) for read in reads) and counts == NOTHING for reads, counts in left.values())


async def until_gone(games: list[str], operator: GameClient, platforms: list[Client], seconds: float,
                     what: str) -> None:
    """Wait until nothing is left of the games; past `seconds`, fail saying `what` and what is left."""
    try:
        async with asyncio.timeout(seconds):
            while not gone(await left_of(games, operator, platforms)):
                await asyncio.sleep(0.2)
    except TimeoutError:
        pytest.fail(f"{what}: {await left_of(games, operator, platforms)}")


async def game_in_play(operator: GameClient) -> str:
    """A game of four slow bots, in play all along: what it writes shares the streams' blocks with what the removed
    games left, as a store's games in play do."""
    game = new_game()
    await operator.send(game, StartGame(game_id=game, players=SEATS, seats=["greedy"] * SEATS,
                                        limits=Limits(bot_seconds=0.5)), patience=30)
    return game


async def finished_game(operator: GameClient) -> str:
    """A game of the last hand, four bots, played to its end."""
    game = new_game()
    follower = await operator.follow(game)
    await operator.send(game, StartGame(game_id=game, players=SEATS, first_hand=6, seats=["greedy"] * SEATS),
                        patience=30)
    await follower.wait_until(lambda f: f.state.game_over, timeout=180)
    await follower.stop()
    return game
