"""The register of games in play: stream ZC_OPEN, one message on zc.open.<tenant>.<game> a game.

The intake marks a game open before it stores the game's start (counting the tenant's games first),
the table before it logs the start, and the table takes the mark away (a purge of its subject) once
the game is over. So a game that has started is marked until it ends, and the intake, which keeps
nothing, can ask the server two things of it: is this game in play (one direct get), and how many
games has this tenant in play (one count of subjects). A mark the table did not get to set or take
away, a restart between the two writes, is mended by the table's heal: a mark with no log behind it
at two looks running (a start the table refused, or never logged), a game over still marked, a game
in play unmarked (every game of a store made before the register, at its first look).
"""
from nats.js import JetStreamContext

from zioncheck.services.bus.log_store import holds, subject_counts
from zioncheck.services.bus.publish import publish_stored
from zioncheck.services.bus.topology import OPEN, OPEN_SUBJECTS, game_key, game_of, open_subject


async def mark_open(js: JetStreamContext, game: str) -> None:
    await publish_stored(js, open_subject(game), b"")


async def mark_over(js: JetStreamContext, game: str) -> None:
    await js.purge_stream(OPEN, subject=open_subject(game))


async def in_play(js: JetStreamContext, game: str) -> bool:
    return await holds(js, OPEN, open_subject(game))


async def tenant_games(js: JetStreamContext, tenant: str) -> int:
    """How many games `tenant` has in play."""
    return len(await subject_counts(js, OPEN, open_subject(game_key(tenant, "*"))))


async def marked(js: JetStreamContext) -> set[str]:
    """Every game marked in play."""
    return {game_of(subject) for subject in await subject_counts(js, OPEN, OPEN_SUBJECTS)}
