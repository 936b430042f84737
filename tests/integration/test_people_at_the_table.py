"""R22 and R23 through the real services, on the real clock: a discard a person may claim waits before
the house's bots draw, and a hand's end shows every hand and pauses before the next deal."""
import asyncio
import random
import time

import msgspec

from over_nats import new_game, stored_commands, uninterrupted
from zioncheck.bots import make_bot
from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import ClaimDiscard, Limits, Ready, StartGame
from zioncheck.contracts.views import PublicView
from zioncheck.domain.claims import held
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus import tasks
from zioncheck.services.bus.topology import VIEWS, public_view_key


def events_of(follower) -> list:
    return [e for b in follower.batches for e in b.events]


async def public_view(client, game: str, until, timeout: float = 10.0) -> PublicView:
    """The game's public view once `until(view)` holds."""
    kv = await client.js.key_value(VIEWS)
    deadline = time.monotonic() + timeout
    while True:
        try:
            view = msgspec.json.decode((await kv.get(public_view_key(game))).value, type=PublicView)
            if until(view):
                return view
        except Exception:  # noqa: BLE001 - not written yet
            pass
        assert time.monotonic() < deadline, "the view never came"
        await asyncio.sleep(0.05)


async def test_r22_the_bots_wait_for_a_persons_claim_and_the_claim_counts(services, client):
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=3, seats=["greedy", "greedy", "person"],
                                      limits=Limits(claim_seconds=2)))
    # Seat 0 plays first (twice, R11), then discards with seat 1, a bot, to draw: the window waits for seat 2.
    await follower.wait_until(lambda f: held(f.state), timeout=30)
    discarded_at = time.monotonic()
    view = await public_view(client, game, lambda v: v.held)
    assert view.due == "claim" and view.due_at is not None and 0 < view.due_at - time.time() <= 3.5
    await client.send(game, ClaimDiscard(seat=2))
    await follower.wait_until(lambda f: any(isinstance(e, ev.WindowReleased) for e in events_of(f)), timeout=10)
    assert time.monotonic() - discarded_at >= 1.5      # the bot drew no sooner than the window's time
    await follower.wait_until(lambda f: any(isinstance(e, (ev.ClaimWon, ev.ClaimFailed)) for e in events_of(f)))
    settled = [e for e in events_of(follower) if isinstance(e, (ev.ClaimWon, ev.ClaimFailed))][0]
    assert settled.seat == 2 and (isinstance(settled, ev.ClaimWon) or settled.why == "turn_player_took")
    refusals = [e for e in events_of(follower) if isinstance(e, ev.Rejected)]
    assert not [r for r in refusals if r.reason == "window_held"]   # the bots waited rather than tried
    assert events_of(follower) == uninterrupted(await stored_commands(client, game), {})[:len(events_of(follower))]
    await follower.stop()


async def test_r23_a_hand_ends_with_every_hand_shown_then_a_pause_or_everyone_ready(services, client):
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=2, seats=["person", "greedy"],
                                      limits=Limits(pause_seconds=3, claim_seconds=0)))
    person = await client.follow(game)   # the person's seat, played here by a quick bot
    playing = asyncio.create_task(
        play_seats(client, person, {0: make_bot("greedy", random.Random(7))}, random.Random(7), patience=None,
                   ready=False))
    try:
        await follower.wait_until(lambda f: f.state.hand_over and f.state.hand == 1, timeout=90)
        ended_at = time.monotonic()
        view = await public_view(client, game, lambda v: v.hand_over and v.hand == 1)
        assert view.revealed and len(view.revealed) == 2 and view.due == "pause" and view.due_at is not None
        assert [len(cards) for cards in view.revealed] == view.hand_sizes
        await follower.wait_until(lambda f: f.state.hand == 2, timeout=15)
        assert time.monotonic() - ended_at >= 2.5          # the next deal waited for the pause
        assert ev.PauseEnded(hand=1, why="timer") in events_of(follower)
        await follower.wait_until(lambda f: f.state.hand_over and f.state.hand == 2, timeout=90)
        await client.send(game, Ready(seat=0))              # the only person is ready: no waiting
        ready_at = time.monotonic()
        await follower.wait_until(lambda f: f.state.hand == 3, timeout=15)
        assert time.monotonic() - ready_at < 2.5
        assert ev.PauseEnded(hand=2, why="ready") in events_of(follower)
    finally:
        await tasks.stop([playing])
        await person.stop()
        await follower.stop()
