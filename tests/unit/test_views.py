"""Views: given events, when commands, then what a spectator or one seat sees."""
from contracts import events as ev
from contracts.commands import ClaimDiscard, DrawStock, GoDown, TakeDiscard
from contracts.log import encode
from contracts.views import ClaimOutcome, ClaimsSettled, Contract, DealRecord, HandScore, TableMeld
from contracts.views import decode_public_view, decode_seat_view
from domain.views import Projection, advance, project, public_view, seat_view
from given import cards, dealt, first_turns, hand_ended, play

FOUR_HANDS = ("2C KH 3D 8C 8D 8H 5S 5H 5D", "AH 4D 6H", "3S 5C 8S", "7C 7D 9H")
STOCK = "9C 4C 10S JS QS 8D 5H"


def seen(given, when=()) -> Projection:
    """Each given event as its own log batch, then each command's events as one batch, as the table logs them."""
    projection = project([event] for event in given)
    state = given
    for command in when:
        state = play(state, [command])
        projection = advance(projection, state.last)
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
    assert public_view(project([given[:1], given[1:]])).seq == 2


def test_a_game_started_at_a_later_hand_names_no_hand_until_one_is_dealt():
    view = public_view(seen([ev.GameStarted(game_id="g", players=3, decks=2, dealer=0, first_hand=4)]))
    assert (view.hand, view.contract, view.hand_sizes, view.turn) == (0, None, [0, 0, 0], None)


def test_views_travel_as_json_and_come_back_equal():
    projection = seen(seat_0_discarded_kh(), [ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert decode_public_view(encode(public_view(projection))) == public_view(projection)
    assert decode_seat_view(encode(seat_view(projection, 1))) == seat_view(projection, 1)
