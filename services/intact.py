"""Whether a stored game came through whatever happened to the services intact: its log is what one
table, never interrupted, writes for the commands the game's stream holds and the dealer's seeds; its
views are the projection of that log; its standings are the fold of its hand ends.

Used by `python -m bench chaos` after killing every kind of process, and by the tests. It reads as
the operator (the dealer's seeds and the whole log).
"""
import msgspec
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError

from zioncheck.application.seeds import Dealer
from zioncheck.application.turns import InProcessTable, stale_timer, told_not_logged
from zioncheck.contracts.log import encode
from zioncheck.contracts.scores import Standings
from zioncheck.domain import GameState, fold
from zioncheck.domain.presets import MAX_HANDS
from zioncheck.domain.refusal import refusal_of
from zioncheck.domain.views import project, public_view
from zioncheck.services.bus.log_store import last_seq, read_batches, read_stored
from zioncheck.services.bus.topology import (
    SEEDS,
    STANDINGS,
    VIEWS,
    layout,
    origin_of,
    public_view_key,
    seed_key,
    standings_key,
)


async def stored_commands(js: JetStreamContext, game: str) -> list[tuple[bytes, str]]:
    """The game's commands as its partition's stream holds them: (bytes, origin), in order."""
    where = await layout(js)
    stream, subject = where.commands_stream(game), where.command_filter(game)
    stored, _ = await read_stored(js, stream, subject, whole=True, at_least=await last_seq(js, stream, subject))
    return [(msg.data or b"", origin_of(msg.subject)) for msg in stored]


async def dealer_seeds(js: JetStreamContext, game: str) -> dict[int, str]:
    """The seed of each hand the dealer dealt, from its bucket."""
    kv = await js.key_value(SEEDS)
    seeds = {}
    for hand in range(1, MAX_HANDS + 1):   # R24.7: as many hands as any game has
        try:
            seeds[hand] = (await kv.get(seed_key(game, hand))).value.decode()
        except KeyNotFoundError:  # hands not reached, or before the game's first, have no seed
            continue
    return seeds


def uninterrupted(commands: list[tuple[bytes, str]], seeds: dict[int, str]) -> list:
    """The events the same commands give in process, one table, no crash: what the table logs of them
    (a stale timeout, and what it tells its sender alone, it does not)."""
    table = InProcessTable(dealer=Dealer(lambda hand: seeds[hand]))
    logged, refusals = [], 0
    for data, origin in commands:
        before = table.state
        events = table.handle_bytes(data, origin)
        if stale_timer(events) or told_not_logged(before, events, refusals):
            continue
        logged += events
        refusals += refusal_of(events) is not None
    return logged


async def one_table_writes(js: JetStreamContext, game: str) -> list:
    """The events one table, never interrupted, writes for the game's stored commands and the
    dealer's seeds: what its log must hold, however it was written."""
    return uninterrupted(await stored_commands(js, game), await dealer_seeds(js, game))


async def problems(js: JetStreamContext, game: str) -> list[str]:
    """What is not as it must be in a stored game (nothing for a game intact), one line each."""
    batches = [batch for _, batch in await read_batches(js, game)]
    logged = [event for batch in batches for event in batch.events]
    found = []
    if logged != await one_table_writes(js, game):
        found.append("its log is not what one table writes for its commands")
    state = fold(GameState(), logged)
    if not state.game_over:
        found.append("it is not over")
    try:
        view = (await (await js.key_value(VIEWS)).get(public_view_key(game))).value
    except KeyNotFoundError:
        view = None
    if view != encode(public_view(project(batches))):
        found.append("its public view is not the projection of its log")
    try:
        standings = msgspec.json.decode((await (await js.key_value(STANDINGS)).get(standings_key(game))).value,
                                        type=Standings)
    except KeyNotFoundError:
        standings = None
    if standings is None or standings.totals != list(state.totals) or standings.over != state.game_over:
        found.append(f"its standings ({standings.totals if standings else None}) are not its log's "
                     f"totals ({list(state.totals)})")
    return found
