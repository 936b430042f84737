"""Racing claims (R11a) and joker swaps (R14) from truly concurrent clients: stream order decides."""
import asyncio

from over_nats import stacked_game
from zioncheck.client import GameClient
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, GoDown, SwapJoker
from zioncheck.contracts.events import ClaimWon, JokerSwapped
from zioncheck.domain.claims import nearest_claimant
from zioncheck.domain.refusal import refusal_of

FIVE_HANDS = [["2C", "3D", "4H", "5S", "6C", "KD", "QD", "8H", "9S", "10C"] for _ in range(5)]
STOCK = ["7C", "7D", "7H", "7S", "JC", "JD", "JH", "JS", "AC", "AD"]


async def fire(access, game: str, commands) -> list[int]:
    """Each command from its own connection, all at once; returns their stream sequences."""
    clients = [await GameClient.connect(access, "platform") for _ in commands]
    try:
        return list(await asyncio.gather(*(c.send(game, cmd) for c, cmd in zip(clients, commands, strict=True))))
    finally:
        for c in clients:
            await c.close()


async def test_r11a_concurrent_claims_go_to_the_nearest_claimant_among_those_before_the_draw(
        nats_server, services, client):
    for trial in range(4):
        follower = await stacked_game(client, 5, FIVE_HANDS, STOCK, dealer=4)
        for move in (DrawStock(seat=0), Discard(seat=0, card="KD"), DrawStock(seat=0), Discard(seat=0, card="QD")):
            await follower.outcome(await client.send(follower.game, move))
        racers = [ClaimDiscard(seat=4), ClaimDiscard(seat=3), ClaimDiscard(seat=2), DrawStock(seat=1)]
        seqs = await fire(nats_server.access, follower.game, racers)
        outcomes = [await follower.outcome(seq) for seq in seqs]
        draw_seq = seqs[-1]
        in_time = [cmd.seat for cmd, seq in zip(racers, seqs, strict=True)
                   if isinstance(cmd, ClaimDiscard) and seq < draw_seq]
        won = [e.seat for events in outcomes for e in events if isinstance(e, ClaimWon)]
        assert won == ([nearest_claimant(0, in_time, 5)] if in_time else []), f"trial {trial}"
        late = [o[0].reason for cmd, seq, o in zip(racers, seqs, outcomes, strict=True) if seq > draw_seq]
        assert all(reason == "claim_window_closed" for reason in late)


async def test_r14_of_two_concurrent_swaps_for_one_joker_the_first_in_the_stream_wins(nats_server, services, client):
    for trial in range(3):
        hands = [["5C", "JK", "7C", "8C", "9H", "10H", "JH", "QH", "KS", "2D"],
                 ["6C", "3S", "4S"], ["6C", "3H", "4H"]]
        follower = await stacked_game(client, 3, hands, ["AS", "AH", "AD", "AC"], hand=3, dealer=2)
        await follower.outcome(await client.send(follower.game, DrawStock(seat=0)))
        down = GoDown(seat=0, melds=[["5C", "JK", "7C", "8C"], ["9H", "10H", "JH", "QH"]])
        assert refusal_of(await follower.outcome(await client.send(follower.game, down))) is None
        swaps = [SwapJoker(seat=1, target=(0, 0), card="6C"), SwapJoker(seat=2, target=(0, 0), card="6C")]
        seqs = await fire(nats_server.access, follower.game, swaps)
        first, second = sorted(zip(seqs, swaps, strict=True))
        assert isinstance((await follower.outcome(first[0]))[0], JokerSwapped)
        assert (await follower.outcome(first[0]))[0].seat == first[1].seat, f"trial {trial}"
        assert (await follower.outcome(second[0]))[0].reason == "no_joker_to_swap"
        assert "JK" in follower.state.hands[first[1].seat]
