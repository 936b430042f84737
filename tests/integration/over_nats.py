"""Small helpers for tests that talk to a real server."""
from nats.js.errors import NotFoundError

from zioncheck.client import Follower, GameClient
from zioncheck.contracts.commands import PLAY, Deal, StartGame
from zioncheck.contracts.log import encode
from zioncheck.domain.dealing import first_dealer_of
from zioncheck.services import intact
from zioncheck.services.bus.topology import (
    FEED,
    feed_subject,
    layout,
    new_game_id,
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
