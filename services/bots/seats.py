"""Bots seated at a game over NATS by a program that follows its log (one that started the game and plays its
own bots, `zioncheck run` and `play`; tests and benches): each decides from its seat's sight of the game
(bots/sight.py). The bots service plays its seats from their views instead (services/bots/views.py)."""
import asyncio
import random

import structlog

from zioncheck.bots import Bot
from zioncheck.client import CommandRefused, Follower, GameClient
from zioncheck.contracts.commands import Ready
from zioncheck.contracts.events import Discarded
from zioncheck.domain.claims import held
from zioncheck.domain.going_out import pausing
from zioncheck.domain.refusal import refusal_of

log = structlog.get_logger("bots")


async def play_seats(client: GameClient, follower: Follower, bots: dict[int, Bot], rng: random.Random,
                     pace: float = 0.0, patience: float | None = 120.0, ready: bool = True) -> None:
    """Play the bot seats until the game is over; other seats are left to their owners.

    A bot in a person's seat says ready after each hand at once (R23), unless `ready` is False.
    Raises TimeoutError when nothing happens for `patience` seconds (None, where a person
    plays too, waits for ever: people may take their time).
    """
    seen = 0
    while not follower.state.game_over:
        fresh, seen = follower.batches[seen:], len(follower.batches)
        state = follower.state
        waiting = ready and pausing(state)
        for seat in [s for s in bots if waiting and state.present(s) and not state.is_ready(s)]:
            await _send(client, follower, Ready(seat=seat))   # R23: a bot in a person's seat is ready at once
            state = follower.state
        if not state.hand_over and any(isinstance(e, Discarded) for b in fresh for e in b.events):
            await _out_of_turn(client, follower, bots, rng)
            state = follower.state
        if not state.hand_over and state.turn in bots and not held(state):   # R22: a held window waits
            await asyncio.sleep(pace)
            command = bots[state.turn].move(state, state.turn)
            await _send(client, follower, command)
        elif len(follower.batches) == seen:
            await follower.changed(timeout=patience)


async def _out_of_turn(client: GameClient, follower: Follower, bots: dict[int, Bot], rng: random.Random) -> None:
    """After a discard, bot seats may claim it (R11a) or swap jokers (R14), in random order."""
    state = follower.state
    seats = [s for s in bots if s not in (state.top_discarder, state.turn)]
    rng.shuffle(seats)
    for seat in seats:
        for command in bots[seat].out_of_turn(follower.state, seat):
            await _send(client, follower, command)


NOT_STORED_PAUSE = 0.2   # seconds before a bot whose command was not stored looks again


async def _send(client: GameClient, follower: Follower, command) -> list:
    try:
        events = await client.play(follower, command)
    except CommandRefused as refused:   # not stored (a limit, or no answer): the bot reads the game again
        log.warning("bot_not_stored", game=follower.game, reason=refused.refusal.reason,
                    detail=refused.refusal.detail)
        await asyncio.sleep(NOT_STORED_PAUSE)
        return []
    if rejected := refusal_of(events):
        # A refusal is normal for a racing claim or swap; for a turn move it means the
        # bot read a state that moved on, and it simply tries again on the new one.
        log.info("bot_refused", game=follower.game, reason=rejected.reason, detail=rejected.detail)
    return events
