"""No card of any hand reaches a spectator before the table shows it, and no seat sees another seat's.

Whole bot games, over NATS with the projector and in process: every public
message (each feed batch on zc.feed.<game>, each public view written to KV
zc_views) is checked against the raw log (leak_check), and every seat's view
against that seat's hand in the rules' own fold of the log. A refusal whose detail
lists a seat's hand reaches that seat's view and nothing else.
"""
import asyncio
import random
from collections import Counter

from msgspec.structs import replace

from leak_check import (
    feed_leaks,
    hand_of,
    history,
    not_its_cards,
    not_its_own,
    refusals_in,
    unshown,
    without_refusals,
)
from over_nats import new_game, stored_feed
from zioncheck.application.simulation import play_game
from zioncheck.bots import make_bot
from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import StartGame, SwapJoker
from zioncheck.contracts.feed import decode_feed_batch
from zioncheck.contracts.log import Batch, encode
from zioncheck.contracts.views import SeatRefusal, decode_public_view, decode_seat_view
from zioncheck.domain.cards import NATURALS
from zioncheck.domain.views import feed_batch, public_view, seat_view
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus.topology import VIEWS, feed_subject, kv_subject, public_view_key, seat_view_key, view_keys


def test_in_process_whole_games_show_no_card_before_the_table_and_no_seat_another_seats():
    every_kind = set()
    # Two seats with a reshuffle, four, and six at three decks, so a card has up to three twins.
    for bots, seed in ((["random", "greedy"], 11), (["greedy"] * 4, 11), (["greedy"] * 6, 2)):
        log = play_game(bots, seed=seed, game_id="leaks").log
        batches = [Batch(cause=cause, events=[e.event for e in log if e.cause == cause])
                   for cause in dict.fromkeys(e.cause for e in log)]
        projections, shown, logged = *history(batches), refusals_in(batches)
        for n, events in enumerate((batch.events for batch in batches), 1):
            every_kind |= {type(e) for e in events}
            assert not unshown(encode(public_view(projections[n])), shown[n]), f"{bots} batch {n}"
            published = feed_batch("leaks", n, events)
            assert published is None or feed_leaks(encode(published), shown[n]) == [], f"{bots} batch {n}"
            for seat in range(len(bots)):
                own, view = hand_of(projections[n], seat), seat_view(projections[n], seat)
                assert not unshown(without_refusals(view), shown[n], own), f"{bots} seat {seat}"
                assert not_its_own(view, logged) == [] and not not_its_cards(view), f"{bots} seat {seat}"
    # The games put every way a card reaches the table, or leaves it, through the check.
    assert {ev.StockReshuffled, ev.ClaimWon, ev.ClaimFailed, ev.JokerSwapped, ev.LaidOff} <= every_kind


async def test_over_nats_no_feed_batch_or_view_shows_a_card_before_the_table_and_no_seat_another_seats(
        services, client):
    games = await asyncio.gather(watched_game(client, 3, seed=3), watched_game(client, 4, seed=1))
    for game, batches, seen, (cause, canary) in games:
        projections, shown, logged = *history(batches), refusals_in(batches)
        assert canary.reason == "card_not_in_hand"   # a refusal that lists a hand is in the log...
        refusal = SeatRefusal(cause=cause, command=canary.command, reason=canary.reason, detail=canary.detail)
        seat_1 = [decode_seat_view(data) for subject, data in seen["views"] if subject.endswith(".seat.1")]
        assert any(refusal in view.refusals for view in seat_1)   # ...reaches its seat's view...
        elsewhere = [data for subject, data in seen["views"] if not subject.endswith(".seat.1")] + seen["feed"]
        assert [data for data in elsewhere if canary.detail.encode() in data] == []   # ...and nothing else
        for subject, data in seen["views"]:
            if subject == kv_subject(VIEWS, public_view_key(game)):
                view = decode_public_view(data)   # the deadline's time is the table's clock, not the log's
                assert replace(view, due_at=None) == replace(public_view(projections[view.seq]), due_at=None)
                assert not unshown(data, shown[view.seq]), f"{game} public view {view.seq}"
            else:
                view = decode_seat_view(data)
                assert subject == kv_subject(VIEWS, seat_view_key(game, view.seat))
                folded = seat_view(projections[view.seq], view.seat)
                assert replace(view, public=replace(view.public, due_at=None)) == replace(
                    folded, public=replace(folded.public, due_at=None))
                hand = hand_of(projections[view.seq], view.seat)
                assert Counter(view.cards) == hand
                assert not unshown(without_refusals(view), shown[view.seq], own=hand), f"{game} seat {view.seat}"
                assert not_its_own(view, logged) == [] and not not_its_cards(view), f"{game} seat {view.seat}"
        for data in seen["feed"]:
            batch = decode_feed_batch(data)
            assert batch == feed_batch(game, batch.seq, batches[batch.seq - 1].events)
            assert feed_leaks(data, shown[batch.seq]) == [], f"{game} feed batch {batch.seq}"
        public = [n for n, batch in enumerate(batches, 1) if feed_batch(game, n, batch.events) is not None]
        assert sorted({decode_feed_batch(d).seq for d in seen["feed"]}) == public
        assert [decode_feed_batch(d).seq for d in await stored_feed(client, game)] == public
        kv = await client.js.key_value(VIEWS)
        assert decode_public_view((await kv.get(public_view_key(game))).value) == public_view(projections[-1])


async def watched_game(client, players: int, seed: int):
    """A whole game of greedy bots, with every message on its feed and its view keys as they came."""
    game = new_game()
    seen = {"feed": [], "views": []}

    async def on_feed(msg):
        seen["feed"].append(msg.data)

    async def on_view(msg):
        seen["views"].append((msg.subject, msg.data))

    subs = [await client.nc.subscribe(feed_subject(game), cb=on_feed),
            await client.nc.subscribe(kv_subject(VIEWS, view_keys(game)), cb=on_view)]
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=players))
    await follower.wait_until(lambda f: f.state.hand == 1)
    canary = await refused_swap(client, follower)
    rng = random.Random(seed)
    await play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(players)}, rng)
    await follower.wait_until(lambda f: all(f.state.seeds))
    total = len(follower.batches)
    for _ in range(400):  # the projector trails the log a little
        if any(decode_feed_batch(d).seq == total for d in seen["feed"]) and any(
                s.endswith(".public") and decode_public_view(d).seq == total for s, d in seen["views"]):
            break
        await asyncio.sleep(0.025)
    for sub in subs:
        await sub.unsubscribe()
    return game, follower.batches, seen, canary


async def refused_swap(client, follower) -> tuple[int, ev.Rejected]:
    """R18: a swap with a card seat 1 lacks; the refusal's detail lists seat 1's hand. Returns the
    command's seq with it."""
    missing = next(card for card in NATURALS if card not in follower.state.hands[1])
    seq = await client.send(follower.game, SwapJoker(seat=1, target=(0, 0), card=missing))
    [refused] = await follower.outcome(seq)
    assert all(card in refused.detail for card in follower.state.hands[1])
    return seq, refused
