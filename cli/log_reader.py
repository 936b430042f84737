"""Reading stored games back out of JetStream, for replay, export and listing."""
import asyncio
import time

import msgspec
from nats.js.errors import KeyNotFoundError, NotFoundError

from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed
from zioncheck.contracts.log import Entry, entries_of
from zioncheck.contracts.scores import Standings
from zioncheck.services.bus.access import Access, connect
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.log_store import read_batches, stalled_games, stored_games
from zioncheck.services.bus.topology import STANDINGS, standings_key, valid_game_key

# Replays, exports and listings read every hand's cards: the operator's login.
READER = "operator"


def read_game_log(game: str, url: str | None, credentials: str | None = None) -> list[Entry]:
    """A stored game's log as entries; CommandFailed if there is no such game."""
    if not valid_game_key(game):
        raise CommandFailed(words.NOT_A_GAME_ID.format(game=game))
    with bus(url, credentials) as access:
        return asyncio.run(_read(access, game))


async def _read(access: Access, game: str) -> list[Entry]:
    nc = await connect(access, READER)
    try:
        batches = await read_batches(nc.jetstream(), game)
    except NotFoundError:
        batches = []
    finally:
        await nc.close()
    if not batches:
        raise CommandFailed(words.NO_SUCH_GAME.format(game=game))
    return entries_of([batch for _, batch in batches])


def list_games(url: str | None, credentials: str | None = None) -> list[tuple[str, int, Standings | None, bool]]:
    """(game id, log messages, standings, stalled) for every stored game: stalled, not moved past its
    deadline with none pending (log_store.stalled_games)."""
    with bus(url, credentials) as access:
        return asyncio.run(_list(access))


async def _list(access: Access):
    nc = await connect(access, READER)
    js = nc.jetstream()
    try:
        games = await stored_games(js)
        try:
            kv = await js.key_value(STANDINGS)
        except NotFoundError:
            kv = None
        listed = []
        stalled = await stalled_games(js, time.time())
        for game, count in games.items():
            standings = None
            if kv is not None:
                try:
                    standings = msgspec.json.decode((await kv.get(standings_key(game))).value, type=Standings)
                except KeyNotFoundError:
                    pass
            listed.append((game, count, standings, game in stalled))
        return listed
    finally:
        await nc.close()
