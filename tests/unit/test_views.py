"""Views: given events, when commands, then what a spectator or one seat sees."""
import msgspec

from given import cards, dealt, first_turns, hand_ended, play
from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, GoDown, SwapJoker, TakeDiscard
from zioncheck.contracts.log import Batch, encode
from zioncheck.contracts.views import (
    REFUSALS_KEPT,
    ClaimOutcome,
    ClaimsSettled,
    Contract,
    DealRecord,
    HandScore,
    SeatRefusal,
    TableMeld,
    decode_public_view,
    decode_seat_view,
)
from zioncheck.domain.views import Projection, advance, feed_batch, project, public_view, seat_view

FOUR_HANDS = ("2C KH 3D 8C 8D 8H 5S 5H 5D", "AH 4D 6H", "3S 5C 8S", "7C 7D 9H")
STOCK = "9C 4C 10S JS QS 8D 5H"


def seen(given, when=()) -> Projection:
    """Each given event as its own log batch, then each command's events as one batch, as the table logs them.

    Each batch's cause is its number in the log, as if the commands stream carried this game only.
    """
    projection = project(Batch(cause=n, events=[event]) for n, event in enumerate(given, 1))
    state = given
    for command in when:
        state = play(state, [command], strict=False)
        projection = advance(projection, state.last, cause=projection.applied + 1)
    return projection


def seat_0_discarded_kh():
    """Four seats, seat 3 dealt; seat 0 played its two first turns (R11) and discarded KH; seat 1 is to play."""
    return dealt(*FOUR_HANDS, stock=STOCK) + first_turns(0, "9C", "2C", "4C", "KH")


def test_the_public_view_shows_each_hand_by_its_size_and_the_stock_by_its_count():
    view = public_view(seen(dealt(*FOUR_HANDS, stock=STOCK)))
    assert view.hand_sizes == [9, 3, 3, 3]
    assert view.stock == 7


def test_the_public_view_names_no_card_of_any_hand_or_of_the_stock():
    text = encode(public_view(seen(dealt(*FOUR_HANDS, stock=STOCK)))).decode()
    assert [card for card in cards(" ".join(FOUR_HANDS) + " " + STOCK) if f'"{card}"' in text] == []


def test_a_seat_view_holds_that_seats_cards_and_no_other_seats():
    projection = seen(dealt(*FOUR_HANDS, stock=STOCK))
    assert [seat_view(projection, seat).cards for seat in range(4)] == [cards(h) for h in FOUR_HANDS]


def test_a_seat_view_is_the_public_view_plus_the_seats_cards():
    projection = seen(seat_0_discarded_kh())
    view = seat_view(projection, 2)
    assert view.public == public_view(projection)
    assert (view.seat, view.seq) == (2, projection.seq)


def test_r7_r8_the_view_names_the_hand_its_contract_the_dealer_and_whose_turn_it_is():
    view = public_view(seen(dealt(*FOUR_HANDS, stock=STOCK)))
    assert (view.hand, view.dealer, view.turn, view.drawn) == (1, 3, 0, False)
    assert view.contract == Contract(sets=2, runs=0, dealt=10, text="2 sets")


def test_r9_the_view_says_when_the_turn_player_has_drawn():
    view = public_view(seen(dealt(*FOUR_HANDS, stock=STOCK), [DrawStock(seat=0)]))
    assert (view.turn, view.drawn, view.stock, view.hand_sizes[0]) == (0, True, 6, 10)


def test_r12_melds_show_on_the_table_with_their_owner_index_kind_and_cards():
    view = public_view(seen(dealt(*FOUR_HANDS, stock=STOCK), [
        DrawStock(seat=0), GoDown(seat=0, melds=[cards("8C 8D 8H"), cards("5S 5H 5D")])]))
    assert view.table == [TableMeld(owner=0, index=0, kind="set", cards=cards("8C 8D 8H")),
                          TableMeld(owner=0, index=1, kind="set", cards=cards("5S 5H 5D"))]
    assert view.down == [True, False, False, False]
    assert view.hand_sizes[0] == 4


def test_r11a_the_view_shows_the_pile_and_the_open_window_with_its_claims_in_stream_order():
    view = public_view(seen(seat_0_discarded_kh(), [ClaimDiscard(seat=3), ClaimDiscard(seat=2)]))
    assert view.discard == ["2C", "KH"]
    assert (view.discarder, view.window_open, view.claims) == (0, True, [3, 2])


def test_r11a_once_the_turn_player_draws_the_view_shows_each_claims_outcome():
    view = public_view(seen(seat_0_discarded_kh(), [ClaimDiscard(seat=3), ClaimDiscard(seat=2), DrawStock(seat=1)]))
    assert (view.window_open, view.claims, view.discard) == (False, [], ["2C"])
    assert view.last_claims == ClaimsSettled(card="KH", discarder=0, outcomes=[
        ClaimOutcome(seat=2, outcome="won"), ClaimOutcome(seat=3, outcome="nearer_claimant")])
    assert view.hand_sizes[2] == 4


def test_r10_r11a_when_the_turn_player_takes_the_discard_every_claim_shows_as_failed():
    view = public_view(seen(seat_0_discarded_kh(), [ClaimDiscard(seat=2), TakeDiscard(seat=1)]))
    assert view.last_claims == ClaimsSettled(card="KH", discarder=0,
                                             outcomes=[ClaimOutcome(seat=2, outcome="turn_player_took")])


def test_the_last_claims_are_forgotten_when_the_next_hand_is_dealt():
    given = seat_0_discarded_kh()
    projection = seen(given, [ClaimDiscard(seat=2), DrawStock(seat=1)])
    projection = advance(projection, [hand_ended(1, [5, 0, 10, 0], [5, 0, 10, 0], winner=1)])
    projection = advance(projection, [ev.HandDealt(hand=2, dealer=0, hands=[["AS"], ["2S"], ["3S"], ["4S"]],
                                                   stock=["5S"])])
    assert public_view(projection).last_claims is None


def test_r15_r17_the_view_keeps_each_hands_scores_the_totals_and_the_winners():
    given = dealt("2C", "3C", stock="4C") + [hand_ended(1, [0, 5], [0, 5], winner=0),
                                             ev.GameEnded(totals=[0, 5], winners=[0])]
    view = public_view(seen(given))
    assert view.scores == [HandScore(hand=1, winner=0, scores=[0, 5], stuck=[])]
    assert (view.totals, view.game_over, view.winners, view.turn) == ([0, 5], True, [0], None)


def test_a_hands_commitment_shows_from_its_deal_and_its_seed_once_revealed():
    deal = ev.HandDealt(hand=1, dealer=1, hands=[["2C"], ["3C"]], stock=["4C"], commitment="c0ffee")
    given = [ev.GameStarted(game_id="g", players=2, decks=2, dealer=1), deal]
    assert public_view(seen(given)).deals == [DealRecord(hand=1, dealer=1, commitment="c0ffee")]
    revealed = given + [hand_ended(1, [0, 5], [0, 5], winner=0), ev.SeedRevealed(hand=1, seed="5eed")]
    assert public_view(seen(revealed)).deals == [DealRecord(hand=1, dealer=1, commitment="c0ffee", seed="5eed")]


def test_seq_counts_the_log_batches_folded_not_the_events():
    given = dealt(*FOUR_HANDS, stock=STOCK)
    assert public_view(project([Batch(cause=1, events=given[:1]), Batch(cause=2, events=given[1:])])).seq == 2


def test_applied_is_the_command_whose_batch_was_folded_last_and_0_before_any():
    given = dealt(*FOUR_HANDS, stock=STOCK)
    assert public_view(Projection()).applied == 0
    projection = project([Batch(cause=4, events=given[:1]), Batch(cause=19, events=given[1:])])
    assert public_view(projection).applied == 19
    assert seat_view(projection, 2).public.applied == 19


def test_r18_a_refused_command_shows_in_its_seats_view_with_its_cause_reason_and_detail():
    projection = seen(seat_0_discarded_kh(), [DrawStock(seat=2)])
    assert seat_view(projection, 2).refusals == [SeatRefusal(cause=projection.applied, command="draw_stock",
                                                             reason="not_your_turn",
                                                             detail="it is seat 1's turn, not seat 2's")]


def test_r18_an_accepted_command_leaves_no_refusal_and_earlier_ones_stay():
    projection = seen(seat_0_discarded_kh(), [DrawStock(seat=2), DrawStock(seat=1)])
    assert [r.cause for r in seat_view(projection, 2).refusals] == [projection.applied - 1]
    assert seat_view(projection, 1).refusals == []


def test_r18_a_refusals_detail_reaches_its_seats_view_only_never_the_public_view_the_feed_or_another_seat():
    projection = seen(seat_0_discarded_kh(), [DrawStock(seat=1), SwapJoker(seat=1, target=(0, 0), card="QD")])
    [refusal] = seat_view(projection, 1).refusals
    assert refusal.detail == "card not in hand: QD (seat 1 holds AH 4D 6H 10S)"   # seat 1's whole hand
    refused = ev.Rejected(seat=1, command=refusal.command, reason=refusal.reason, detail=refusal.detail)
    assert feed_batch("test", projection.seq, [refused]) is None
    elsewhere = [encode(public_view(projection))] + [encode(seat_view(projection, seat)) for seat in (0, 2, 3)]
    assert [text for text in elsewhere if b"10S" in text or b"card_not_in_hand" in text] == []


def test_r18_a_seat_view_keeps_the_seats_latest_refusals_oldest_first():
    projection = seen(seat_0_discarded_kh(), [DrawStock(seat=3)] * (REFUSALS_KEPT + 3))
    causes = [r.cause for r in seat_view(projection, 3).refusals]
    assert causes == list(range(projection.applied - REFUSALS_KEPT + 1, projection.applied + 1))


def test_r18_a_refusal_naming_no_seat_at_the_table_shows_in_no_view_but_counts_as_applied():
    given = seat_0_discarded_kh()
    projection = seen(given, [DrawStock(seat=7), Discard(seat=-1, card="KH")])
    assert [seat_view(projection, seat).refusals for seat in range(4)] == [[], [], [], []]
    assert public_view(projection).applied == len(given) + 2


def test_a_view_stored_before_applied_and_refusals_existed_still_decodes():
    view = msgspec.to_builtins(seat_view(seen(dealt(*FOUR_HANDS, stock=STOCK)), 1))
    del view["refusals"], view["public"]["applied"]
    older = decode_seat_view(msgspec.json.encode(view))
    assert (older.refusals, older.public.applied, older.cards) == ([], 0, cards(FOUR_HANDS[1]))


def test_a_game_started_at_a_later_hand_names_no_hand_until_one_is_dealt():
    view = public_view(seen([ev.GameStarted(game_id="g", players=3, decks=2, dealer=0, first_hand=4)]))
    assert (view.hand, view.contract, view.hand_sizes, view.turn) == (0, None, [0, 0, 0], None)


def test_views_travel_as_json_and_come_back_equal():
    projection = seen(seat_0_discarded_kh(), [ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert decode_public_view(encode(public_view(projection))) == public_view(projection)
    assert decode_seat_view(encode(seat_view(projection, 1))) == seat_view(projection, 1)


def test_r19_a_deadlines_time_is_kept_to_the_millisecond_and_a_rebuilt_view_is_byte_for_byte_the_live_one():
    """The table gives a deadline's time to the millisecond (the log's header, log_store.DUE_HEADER): a view keeps
    it so, never rounded up to the next whole second, so a 60 s turn never shows 61 s left."""
    given = seat_0_discarded_kh()
    batches = [Batch(cause=n, events=[event]) for n, event in enumerate(given, 1)]
    raw = 1_765_000_000.1234567                      # the table's clock when seat 1's turn began, plus 60 s
    header = float(f"{raw:.3f}")                     # as the log's header carries it
    live = Projection()
    for n, batch in enumerate(batches):
        live = advance(live, batch.events, batch.cause, header if n == len(batches) - 1 else None)
    rebuilt = project(batches, [None] * (len(batches) - 1) + [header])
    assert public_view(live).due == "turn" and public_view(live).due_at == 1_765_000_000.123
    assert encode(public_view(live)) == encode(public_view(rebuilt))
    assert encode(seat_view(live, 1)) == encode(seat_view(rebuilt, 1))
    assert encode(public_view(project(batches, [None] * (len(batches) - 1) + [raw]))) == encode(public_view(rebuilt))
