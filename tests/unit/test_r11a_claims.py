"""R11a: out-of-turn claims on the top discard, their outcomes and their rejections."""
from given import dealt, discarded, drew, events_of, first_turns, hand_of, holds, pile, play, refusal, went_down
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, TakeDiscard
from zioncheck.contracts.events import ClaimFailed, ClaimWon, DiscardClaimed, Rejected

FIVE_HANDS = ("2C KH 3D", "AH 4D 6H", "3S 5C 8S", "7C 7D 9H", "QD QH 6S")
STOCK = "9C 4C 10S JS QS 8D 5H"


def seat_0_discarded_kh():
    """Five seats; seat 0 played its two first turns (R11) and discarded KH; seat 1 is to play."""
    return dealt(*FIVE_HANDS, stock=STOCK) + first_turns(0, "9C", "2C", "4C", "KH")


def seat_3_discarded_9h():
    """Five seats, seat 2 dealt: seat 3 played its first turns and discarded 9H; seat 4 is to play."""
    return dealt(*FIVE_HANDS, stock=STOCK, dealer=2) + first_turns(3, "9C", "7C", "4C", "9H")


# --- outcomes ------------------------------------------------------------------------

def test_r11a_a_claim_leaves_the_card_on_the_pile_until_the_window_closes():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=2)])
    assert then.last == [DiscardClaimed(seat=2, card="KH")]
    assert pile(then) == ["2C", "KH"]
    assert not holds(then, 2, "KH")


def test_r11a_the_claimant_gets_the_card_when_the_turn_player_draws_from_the_stock():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert holds(then, 2, "KH")
    assert pile(then) == ["2C"]


def test_r11a_the_turn_player_still_draws_its_card_from_the_stock():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert holds(then, 1, "10S")


def test_r11a_the_nearest_claimant_after_the_discarder_wins():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=3), ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert holds(then, 2, "KH")
    assert not holds(then, 3, "KH")


def test_r11a_seat_order_not_stream_order_decides_among_the_claims_in_time():
    when = [ClaimDiscard(seat=4), ClaimDiscard(seat=3), ClaimDiscard(seat=2), DrawStock(seat=1)]
    then = play(seat_0_discarded_kh(), when)
    assert [e.seat for e in events_of(then, ClaimWon)] == [2]


def test_r11a_nearness_goes_clockwise_round_the_table_from_the_discarder():
    then = play(seat_3_discarded_9h(), [ClaimDiscard(seat=2), ClaimDiscard(seat=1), ClaimDiscard(seat=0),
                                        DrawStock(seat=4)])
    assert holds(then, 0, "9H")


def test_r11a_the_other_claimants_fail_to_a_nearer_claimant():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=4), ClaimDiscard(seat=2), ClaimDiscard(seat=3),
                                        DrawStock(seat=1)])
    assert events_of(then, ClaimFailed) == [ClaimFailed(seat=4, card="KH", why="nearer_claimant"),
                                            ClaimFailed(seat=3, card="KH", why="nearer_claimant")]
    assert not holds(then, 3, "KH") and not holds(then, 4, "KH")


def test_r11a_a_failed_claim_is_an_outcome_not_a_rejection():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=4), ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert events_of(then, Rejected) == []


def test_r11a_when_the_turn_player_takes_the_discard_it_is_theirs():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=2), TakeDiscard(seat=1)])
    assert holds(then, 1, "KH")
    assert not holds(then, 2, "KH")


def test_r11a_when_the_turn_player_takes_the_discard_every_claim_fails():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=3), ClaimDiscard(seat=2), TakeDiscard(seat=1)])
    assert events_of(then, ClaimFailed) == [ClaimFailed(seat=3, card="KH", why="turn_player_took"),
                                            ClaimFailed(seat=2, card="KH", why="turn_player_took")]
    assert events_of(then, ClaimWon) == []


def test_r11a_only_claims_that_reached_the_stream_before_the_draw_count():
    given = seat_0_discarded_kh()
    then = play(given, [ClaimDiscard(seat=4), DrawStock(seat=1), ClaimDiscard(seat=2)])
    assert refusal(then) == "claim_window_closed"
    assert holds(then, 4, "KH")
    assert not holds(then, 2, "KH")


def test_r11a_the_claimant_takes_no_penalty_card():
    given = seat_0_discarded_kh()
    then = play(given, [ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert len(hand_of(then, 2)) == 3 + 1
    assert len(then.state.stock) == len(then.before.stock) - 1


def test_r11a_the_claimant_gets_no_turn_from_its_claim():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=2), DrawStock(seat=1), DrawStock(seat=2)])
    assert refusal(then) == "not_your_turn"
    assert then.state.turn == 1


def test_r11a_play_goes_on_with_the_turn_player_after_a_claim():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=2), DrawStock(seat=1), Discard(seat=1, card="AH")])
    assert pile(then) == ["2C", "AH"]
    assert then.state.turn == 2


def test_r11a_being_down_does_not_stop_a_claim():
    given = dealt("2C KH 3D", "AH 4D 6H", "5S 5H 5D 8C 8D 8H 9S", stock=STOCK, dealer=1) + [
        drew(2, "9C"), went_down(2, "5S 5H 5D", "8C 8D 8H"), discarded(2, "9S"),
        drew(2, "4C"), discarded(2, "4C"),
        drew(0, "10S"), discarded(0, "KH"),
    ]
    then = play(given, [ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert holds(then, 2, "KH")


def test_r11a_a_seat_may_win_claims_on_one_discard_after_another():
    given = seat_0_discarded_kh()
    when = [ClaimDiscard(seat=4), DrawStock(seat=1), Discard(seat=1, card="AH"),
            ClaimDiscard(seat=4), DrawStock(seat=2)]
    then = play(given, when)
    assert holds(then, 4, "KH AH")


def test_r11a_a_later_claimant_after_a_taken_discard_is_too_late():
    then = play(seat_0_discarded_kh(), [TakeDiscard(seat=1), ClaimDiscard(seat=2)])
    assert refusal(then) == "claim_window_closed"


# --- rejections ----------------------------------------------------------------------

def test_r11a_a_claim_after_the_turn_player_drew_is_refused():
    then = play(seat_0_discarded_kh(), [DrawStock(seat=1), ClaimDiscard(seat=2)])
    assert refusal(then) == "claim_window_closed"


def test_r11a_a_pile_dealt_with_the_hand_opens_no_claim_window():
    given = dealt(*FIVE_HANDS, stock=STOCK, discard="QC")
    then = play(given, [ClaimDiscard(seat=2)])
    assert refusal(then) == "claim_window_closed"


def test_r11a_a_seat_claims_one_card_only_once():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=2), ClaimDiscard(seat=2)])
    assert refusal(then) == "already_claimed"


def test_r11a_the_discarder_cannot_claim_its_own_discard():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=0)])
    assert refusal(then) == "cannot_take_own_discard"


def test_r11a_the_turn_player_cannot_claim():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=1)])
    assert refusal(then) == "turn_player_cannot_claim"


def test_r11a_there_is_no_claim_on_an_empty_pile():
    then = play(dealt(*FIVE_HANDS, stock=STOCK), [ClaimDiscard(seat=2)])
    assert refusal(then) == "no_discard"


def test_r11a_in_a_two_seat_game_the_only_other_seat_is_the_turn_player():
    given = dealt("2C KH 3D", "AH 4D 6H", stock=STOCK) + first_turns(0, "9C", "2C", "4C", "KH")
    then = play(given, [ClaimDiscard(seat=1)])
    assert refusal(then) == "turn_player_cannot_claim"


def test_r11a_a_refused_claim_does_not_enter_the_queue():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=2), ClaimDiscard(seat=2), DrawStock(seat=1)],
                strict=False)
    assert events_of(then, ClaimWon) == [ClaimWon(seat=2, card="KH")]
    assert hand_of(then, 2).count("KH") == 1
