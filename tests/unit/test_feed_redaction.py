"""The public feed: given a log event, then what a spectator is shown of it."""
from typing import get_args

import msgspec
import pytest

from zioncheck.contracts import events as ev
from zioncheck.contracts import feed
from zioncheck.contracts.feed import decode_feed_batch
from zioncheck.contracts.log import encode
from zioncheck.domain.views import feed_batch, redact
from zioncheck.domain.views.redact import PRIVATE, PUBLIC

HANDS = [["8C", "8D", "8H", "JK"], ["AS", "2S", "3S", "4S"], ["QH", "QD", "10C", "KS"]]
DEALT = ev.HandDealt(hand=2, dealer=1, hands=HANDS, stock=["5S", "6S", "7S"], discard=["9D"], commitment="c0ffee")

# Moves whose cards the table shows anyway: the feed passes them on whole.
SHOWN_MOVES = [
    ev.Discarded(seat=0, card="KH"),
    ev.DiscardTaken(seat=1, card="KH"),
    ev.DiscardClaimed(seat=2, card="KH"),
    ev.ClaimWon(seat=2, card="KH"),
    ev.ClaimFailed(seat=3, card="KH", why="nearer_claimant"),
    ev.WentDown(seat=0, melds=[ev.Meld(kind="set", cards=["8C", "8D", "JK"]),
                               ev.Meld(kind="run", cards=["AS", "2S", "3S", "4S"])]),
    ev.LaidOff(seat=1, owner=0, index=1, card="5S", end="high"),
    ev.JokerSwapped(seat=2, owner=0, index=1, card="7C", position=2),
]
OUTCOMES = [
    ev.SeedRevealed(hand=2, seed="5eed"),
    ev.StockExhausted(seat=1),
    ev.HandEnded(hand=2, winner=None, scores=[5, 10, 15], stuck=[2], totals=[5, 10, 15]),
    ev.GameEnded(totals=[5, 10, 15], winners=[0]),
]


def test_a_stock_draw_says_who_drew_and_names_no_card():
    item = redact(ev.StockDrawn(seat=1, card="QS"))
    assert item == feed.PublicStockDrawn(seat=1)
    assert b"QS" not in encode(item)


def test_r8_a_deal_shows_hand_sizes_the_stock_count_and_the_commitment_never_the_cards():
    item = redact(DEALT)
    assert item == feed.PublicHandDealt(hand=2, dealer=1, hand_sizes=[4, 4, 4], stock=3, discard=["9D"],
                                  commitment="c0ffee")
    text = encode(item).decode()
    assert [c for c in sum(HANDS, ["5S", "6S", "7S"]) if c in text] == []


def test_r16_a_reshuffle_shows_the_new_stocks_size_not_its_order():
    assert redact(ev.StockReshuffled(hand=2, order=[3, 0, 2, 1])) == feed.PublicStockReshuffled(hand=2, stock=4)


@pytest.mark.parametrize("event", SHOWN_MOVES + OUTCOMES, ids=lambda e: type(e).__name__)
def test_moves_the_table_shows_and_outcomes_reach_the_feed_as_they_are(event):
    assert msgspec.to_builtins(redact(event)) == msgspec.to_builtins(event)


def test_the_start_of_a_game_is_public_but_how_it_is_dealt_is_not_a_spectators_concern():
    started = ev.GameStarted(game_id="g", players=3, decks=2, dealer=1, first_hand=2, stacked=True)
    assert redact(started) == feed.PublicGameStarted(game_id="g", players=3, decks=2, dealer=1, first_hand=2)


def test_r18_a_refusal_never_reaches_the_feed_since_its_detail_may_name_a_hands_cards():
    refused = ev.Rejected(seat=2, command="swap_joker", reason="card_not_in_hand",
                          detail="card not in hand: 7C (seat 2 holds 6C 8C JK)")
    assert redact(refused) is None
    assert feed_batch("g", 7, [refused]) is None


def test_an_event_the_feed_does_not_know_is_kept_private():
    class Whisper(msgspec.Struct, tag="whisper"):
        seat: int
        card: str

    assert redact(Whisper(seat=0, card="AS")) is None


def test_every_event_type_is_either_redacted_for_the_feed_or_decided_private():
    assert set(PUBLIC) | set(PRIVATE) == set(get_args(ev.AnyEvent))
    assert not set(PUBLIC) & set(PRIVATE)


def test_a_feed_batch_carries_the_log_batchs_seq_and_its_public_items_in_order():
    batch = feed_batch("g", 12, [ev.StockDrawn(seat=1, card="QS"), ev.ClaimWon(seat=2, card="KH")])
    assert batch == feed.FeedBatch(game_id="g", seq=12, items=[feed.PublicStockDrawn(seat=1),
                                                               feed.PublicClaimWon(seat=2, card="KH")])
    assert decode_feed_batch(encode(batch)) == batch
