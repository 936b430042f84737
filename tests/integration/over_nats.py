"""Small helpers for tests that talk to a real server."""
import asyncio
import time

import msgspec
from nats.js.errors import NotFoundError

from zioncheck.client import Follower, GameClient
from zioncheck.contracts.commands import PLAY, Deal, StartGame
from zioncheck.contracts.log import encode
from zioncheck.domain.dealing import first_dealer_of
from zioncheck.services import intact
from zioncheck.services.bus.log_store import read_batches
from zioncheck.services.bus.topology import (
    FEED,
    VIEWS,
    feed_subject,
    layout,
    new_game_id,
    public_view_key,
    stored_command_subject,
)
from zioncheck.services.intact import uninterrupted  # noqa: F401 - the tests' name for it too


def new_game() -> str:
    return new_game_id("t")


async def store(client: GameClient, game: str, command) -> int:
    """Store a seat's command where the intake would (as the operator may): for tests that run a table
    with no intake. Its sequence in the game's commands stream."""
    where = await layout(client.js)
    data = command if isinstance(command, bytes) else encode(command)
    return (await client.js.publish(stored_command_subject(where.of(game), game, PLAY), data)).seq


async def stacked_game(client: GameClient, players: int, hands, stock, discard=(), hand: int = 1,
                       dealer: int | None = None, public: bool = False) -> Follower:
    """A started game with a stacked deal, as the dealer would inject it; `public`: anyone may watch it."""
    game = new_game()
    follower = await client.follow(game)
    dealer = players - 1 if dealer is None else dealer
    await follower.outcome(await client.send(game, StartGame(
        game_id=game, players=players, dealer=first_dealer_of(dealer, hand, players), first_hand=hand, stacked=True,
        public=public)))
    await follower.outcome(await client.send(game, Deal(hand=hand, hands=hands, stock=stock, discard=list(discard)),
                                             as_dealer=True))
    return follower


async def until(check, seconds: float, what: str) -> None:
    """Until `await check()` holds; AssertionError(`what`) after `seconds`."""
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        await asyncio.sleep(0.1)


class _Seq(msgspec.Struct):
    seq: int


async def views_stored(client: GameClient, game: str, timeout: float = 10.0) -> None:
    """Until the game's views are stored as far as its log goes: the projector stores a game's views once it
    settles (services/projector/service.py), a moment after its last batch. A test that compares the streams
    before and after something waits for this first."""
    kv = await client.js.key_value(VIEWS)
    async with asyncio.timeout(timeout):
        while True:
            batches = len(await read_batches(client.js, game))
            try:
                if msgspec.json.decode((await kv.get(public_view_key(game))).value or b"", type=_Seq).seq >= batches:
                    await asyncio.sleep(0.1)   # the seats' views, stored with it, acked a moment apart
                    return
            except NotFoundError:
                pass
            await asyncio.sleep(0.05)


async def stored_messages(client: GameClient, stream: str, subject: str) -> list:
    """Every message a stream holds on one subject, oldest first."""
    found, seq = [], 1
    while True:
        try:
            msg = await client.js.get_msg(stream, seq=seq, subject=subject, next=True)
        except NotFoundError:
            return found
        found.append(msg)
        seq = msg.seq + 1


async def stored_commands(client: GameClient, game: str) -> list[tuple[bytes, str]]:
    """The game's commands as the stream holds them: (bytes, origin), in order."""
    return await intact.stored_commands(client.js, game)


async def dealer_seeds(client: GameClient, game: str) -> dict[int, str]:
    return await intact.dealer_seeds(client.js, game)


async def one_table_writes(client: GameClient, game: str) -> list:
    """What the game's log must hold, however it was written (services/intact.py)."""
    return await intact.one_table_writes(client.js, game)


async def stored_feed(client: GameClient, game: str) -> list[bytes]:
    """The game's public feed as a late joiner replays it from the stream, oldest first."""
    return [msg.data for msg in await stored_messages(client, FEED, feed_subject(game))]
