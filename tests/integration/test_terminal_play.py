"""A person at the terminal plays a whole game against bots over the real services."""
import asyncio
import io
import random

from over_nats import new_game
from zioncheck.bots.greedy import GreedyBot
from zioncheck.cli.moves import spell
from zioncheck.cli.play_cmd import session
from zioncheck.cli.terminal import Terminal
from zioncheck.contracts.commands import Limits
from zioncheck.contracts.reasons import explain


async def typist(client, game: str, seat: int, lines: asyncio.Queue) -> None:
    """Types what a careful player would, one line at a time, waiting to see each land."""
    follower = await client.follow(game)
    await follower.wait_until(lambda f: f.state.started)
    me = GreedyBot(random.Random(9))
    lines.put_nowait("help")
    lines.put_nowait("discard ZZ")  # a typo: refused with a sentence saying why, nothing else happens
    while not follower.state.game_over:
        state = follower.state
        if not state.hand_over and state.turn == seat:
            seen = len(follower.batches)
            lines.put_nowait(spell(me.move(state, seat)))
            await follower.wait_until(lambda f, seen=seen: len(f.batches) > seen)
        else:
            await follower.changed(timeout=60)
    await follower.stop()


async def test_a_person_typing_moves_plays_a_whole_game_against_bots(nats_server, services, client):
    game, lines, piped = new_game(), asyncio.Queue(), io.StringIO()
    typing = asyncio.create_task(typist(client, game, 0, lines))
    quick = Limits(claim_seconds=0, pause_seconds=0)   # R22, R23 are for people slower than this one
    final = await asyncio.wait_for(session(nats_server.access, 0, ["greedy"] * 3, 0.0, lines, Terminal(piped), game,
                                           limits=quick), timeout=120)
    await typing
    assert final.game_over
    text = piped.getvalue()
    assert f"refused: {explain('bad_command')}: not a card: 'ZZ'" in text
    assert text.count("not a card: 'ZZ'") == 1, "a refusal is told once"
    assert "YOUR CARDS:" in text and "moves (cards like" in text
    assert "\x1b" not in text, "piped, the game is plain lines"
    assert "=== Game over" in text, "the end of the game is told before the session returns"
