"""R11: the hand's first player plays two full turns at once."""
from given import dealt, events_of, first_turns, holds, pile, play, refusal
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, TakeDiscard
from zioncheck.contracts.events import ClaimWon


def four_seats(dealer: int = 3, hand: int = 1):
    return dealt("2C KH 3D", "AH 4D 6H", "3S 5C 8S", "7C 7D 9H", stock="9C 4C 10S JS QS",
                 dealer=dealer, hand=hand)


def test_r11_the_first_player_draws_from_the_stock_as_there_is_no_discard():
    then = play(four_seats(), [TakeDiscard(seat=0)])
    assert refusal(then) == "no_discard"


def test_r11_after_the_first_discard_the_first_player_is_still_to_play():
    then = play(four_seats(), [DrawStock(seat=0), Discard(seat=0, card="2C")])
    assert then.state.turn == 0
    assert then.state.drawn is False


def test_r11_the_second_turn_is_a_full_turn_with_its_own_draw():
    then = play(four_seats(), [DrawStock(seat=0), Discard(seat=0, card="2C"), DrawStock(seat=0)])
    assert holds(then, 0, "9C 4C")


def test_r11_on_the_second_turn_the_top_discard_is_the_first_players_own():
    then = play(four_seats(), [DrawStock(seat=0), Discard(seat=0, card="2C"), TakeDiscard(seat=0)])
    assert refusal(then) == "cannot_take_own_discard"


def test_r11_the_next_seat_waits_for_the_second_turn():
    then = play(four_seats(), [DrawStock(seat=0), Discard(seat=0, card="2C"), DrawStock(seat=1)])
    assert refusal(then) == "not_your_turn"


def test_r11_after_the_second_discard_play_passes_to_the_left():
    then = play(four_seats() + first_turns(0, "9C", "2C", "4C", "KH"), [])
    assert then.state.turn == 1


def test_r11_the_next_seat_may_take_the_first_players_second_discard():
    then = play(four_seats() + first_turns(0, "9C", "2C", "4C", "KH"), [TakeDiscard(seat=1)])
    assert holds(then, 1, "KH")
    assert pile(then) == ["2C"]


def test_r11_only_the_first_player_goes_twice():
    given = four_seats() + first_turns(0, "9C", "2C", "4C", "KH")
    then = play(given, [DrawStock(seat=1), Discard(seat=1, card="AH")])
    assert then.state.turn == 2


def test_r11_the_first_player_is_the_dealers_left_whoever_deals():
    given = four_seats(dealer=1) + first_turns(2, "9C", "3S")
    then = play(given, [DrawStock(seat=2), Discard(seat=2, card="5C")])
    assert then.state.turn == 3


def test_r11_in_a_later_hand_the_new_first_player_goes_twice():
    given = four_seats(dealer=0, hand=2) + first_turns(1, "9C", "AH")
    assert play(given, []).state.turn == 1


def test_r11_others_may_claim_the_first_players_first_discard():
    given = four_seats() + first_turns(0, "9C", "2C")
    then = play(given, [ClaimDiscard(seat=2), DrawStock(seat=0)])
    assert holds(then, 2, "2C")
    assert [e.seat for e in events_of(then, ClaimWon)] == [2]


def test_r11_the_first_player_keeps_the_turn_after_its_first_discard_is_claimed():
    given = four_seats() + first_turns(0, "9C", "2C")
    then = play(given, [ClaimDiscard(seat=2), DrawStock(seat=0), Discard(seat=0, card="KH")])
    assert then.state.turn == 1
