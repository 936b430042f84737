"""R15, R17: standings count every hand once, whatever order the hand ends are delivered in."""
import random

import msgspec

from over_nats import new_game
from over_nats import stored_messages as stored
from zioncheck.bots import make_bot
from zioncheck.contracts.commands import StartGame
from zioncheck.contracts.scores import HandScored, Standings
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus.log_store import read_batches
from zioncheck.services.bus.topology import SCORES, STANDINGS, score_subject, standings_key
from zioncheck.services.scoring.service import ScoringService
from zioncheck.services.wiring import Services


async def test_r17_a_hand_end_redelivered_after_a_later_one_is_still_counted(nats_server, client):
    running = await Services().start(["table", "dealer", "intake"], nats_server.access)  # no scoring yet
    try:
        game = new_game()
        follower = await client.follow(game)
        await client.send(game, StartGame(game_id=game, players=3))
        rng = random.Random(5)
        await play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(3)}, rng)
    finally:
        await running.stop()
    boundaries = await read_batches(client.js, game, "hand")
    scoring = ScoringService(client.js)
    last_seq, last = boundaries[-1]
    await scoring.on_log(game, last_seq, None, last)                  # the game's end comes first,
    for seq, batch in reversed(boundaries[:-1]):                       # then every earlier one again
        await scoring.on_log(game, seq, None, batch)
    kv = await client.js.key_value(STANDINGS)
    standings = msgspec.json.decode((await kv.get(standings_key(game))).value, type=Standings)
    assert len(standings.hands) == 6 and standings.over
    assert standings.totals == [sum(hand[seat] for hand in standings.hands) for seat in range(3)]
    scored = [msgspec.json.decode(m.data, type=HandScored) for m in await stored(client, SCORES, score_subject(game))]
    assert [s.hand for s in scored] == [1, 2, 3, 4, 5, 6], "each hand scored once"
