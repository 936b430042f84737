"""R15: going out by discarding the last card, and the hand's scores."""
from given import cards, dealt, discarded, drew, events_of, hand_of, play, refusal, went_down
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, GoDown, LayOff, SwapJoker, TakeDiscard
from zioncheck.contracts.events import Discarded, HandEnded

CONTRACT = {
    1: ["8C 8D 8H", "5S 5H 5D"],
    2: ["8C 8D 8H", "5S 6S 7S 8S"],
}


def seat_0_goes_out_at_once(*others: str, hand: int = 1, totals=None):
    """Seat 0 holds exactly its contract, draws KH, lays the contract and discards KH, its last card."""
    melds = CONTRACT[hand]
    given = dealt(" ".join(melds), *others, stock="KH 4C", hand=hand, totals=totals)
    return given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards(m) for m in melds]), Discard(seat=0, card="KH")]


def seat_1_down_before_seat_0_goes_out():
    """Seat 1 went down in its first turn; seat 0 goes out in its third, laying KS off on seat 1's kings."""
    given = dealt("8C 8D 8H 5S 5H 5D QS", "KC KD KH 7C 7D 7H 9S JK", "3S KS", stock="2S 3D 4D 6H KS") + [
        drew(0, "2S"), discarded(0, "2S"), drew(0, "3D"), discarded(0, "3D"),
        drew(1, "4D"), went_down(1, "KC KD KH", "7C 7D 7H"), discarded(1, "4D"),
        drew(2, "6H"), discarded(2, "6H"),
    ]
    when = [DrawStock(seat=0), GoDown(seat=0, melds=[cards(m) for m in CONTRACT[1]]),
            LayOff(seat=0, target=(1, 0), card="KS"), Discard(seat=0, card="QS")]
    return given, when


def test_r15_discarding_the_last_card_ends_the_hand_at_once():
    then = play(*seat_0_goes_out_at_once("AH JK 10D 2C", "3S 4S"))
    assert then.last == [Discarded(seat=0, card="KH"), *events_of(then, HandEnded)]
    assert then.state.hand_over is True
    assert then.state.winner == 0


def test_r15_the_seat_that_went_out_scores_nothing():
    then = play(*seat_0_goes_out_at_once("AH JK 10D 2C", "3S 4S"))
    assert then.state.scores[0] == 0


def test_r15_every_other_seat_scores_the_cards_left_in_its_hand():
    then = play(*seat_0_goes_out_at_once("AH JK 10D 2C", "3S KS"))
    assert then.state.scores == (0, 15 + 15 + 10 + 5, 5 + 10)


def test_r15_the_hands_end_is_recorded_with_winner_scores_stuck_seats_and_totals():
    then = play(*seat_0_goes_out_at_once("AH JK 10D 2C", "3S KS"))
    assert events_of(then, HandEnded) == [HandEnded(hand=1, winner=0, scores=[0, 45, 15], stuck=[1, 2],
                                                    totals=[0, 45, 15],
                                                    hands=[[], cards("AH JK 10D 2C"), cards("3S KS")])]


def test_r15_a_seat_that_never_went_down_is_stuck():
    then = play(*seat_0_goes_out_at_once("AH JK 10D 2C", "3S KS"))
    assert then.state.stuck == (1, 2)


def test_r15_a_seat_that_went_down_is_not_stuck():
    then = play(*seat_1_down_before_seat_0_goes_out())
    assert then.state.winner == 0
    assert then.state.stuck == (2,)


def test_r15_a_seat_that_went_down_still_scores_the_cards_left_in_its_hand():
    then = play(*seat_1_down_before_seat_0_goes_out())
    assert then.state.scores == (0, 5 + 15, 5 + 10)


def test_r15_a_stuck_seat_scores_like_any_other():
    then = play(*seat_1_down_before_seat_0_goes_out())
    assert then.state.scores[2] == 15


def test_r15_totals_run_over_the_game():
    then = play(*seat_0_goes_out_at_once("AH JK 10D 2C", "3S KS", hand=2, totals=[10, 20, 30]))
    assert then.state.totals == (10, 20 + 45, 30 + 15)


def test_r15_a_seat_with_cards_left_has_not_gone_out():
    given = dealt("8C 8D 8H 5S 5H 5D QS", "AH JK", stock="KH 4C")
    then = play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards(m) for m in CONTRACT[1]]),
                        Discard(seat=0, card="KH")])
    assert then.state.hand_over is False
    assert hand_of(then, 0) == ["QS"]


def test_r15_going_down_must_leave_a_card_to_discard():
    given = dealt("8C 8D 8H 5S 5H", "AH JK", stock="5D 4C")
    then = play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards(m) for m in CONTRACT[1]])])
    assert refusal(then) == "must_keep_discard"
    assert then.state.down[0] is False


def test_r15_after_going_out_nobody_draws():
    given, when = seat_0_goes_out_at_once("AH JK 10D 2C", "3S KS")
    assert refusal(play(given, when + [DrawStock(seat=1)])) == "hand_over"


def test_r15_after_going_out_nobody_takes_the_last_discard():
    given, when = seat_0_goes_out_at_once("AH JK 10D 2C", "3S KS")
    assert refusal(play(given, when + [TakeDiscard(seat=1)])) == "hand_over"


def test_r15_after_going_out_nobody_claims_the_last_discard():
    given, when = seat_0_goes_out_at_once("AH JK 10D 2C", "3S KS")
    assert refusal(play(given, when + [ClaimDiscard(seat=2)])) == "hand_over"


def test_r15_after_going_out_nobody_swaps_a_joker():
    given, when = seat_0_goes_out_at_once("AH JK 10D 2C", "3S KS")
    assert refusal(play(given, when + [SwapJoker(seat=1, target=(0, 0), card="8S")])) == "hand_over"


def test_r15_after_going_out_the_scores_stand():
    given, when = seat_0_goes_out_at_once("AH JK 10D 2C", "3S KS")
    then = play(given, when + [DrawStock(seat=1)])
    assert then.state.scores == (0, 45, 15)
