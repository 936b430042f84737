"""R8: seats numbered clockwise round the table, each on the left of the one before."""
import pytest

from zioncheck.domain.dealing import dealer_of, first_dealer_of
from zioncheck.domain.seats import clockwise, left_of_dealer, next_seat, seat_after


def test_r08_the_next_seat_is_the_one_on_the_left():
    assert [next_seat(seat, 4) for seat in range(4)] == [1, 2, 3, 0]


def test_r08_after_the_last_seat_comes_seat_0():
    assert next_seat(4, 5) == 0


def test_r08_the_first_player_sits_on_the_dealers_left():
    assert left_of_dealer(1, 4) == 2
    assert left_of_dealer(3, 4) == 0


def test_r08_counting_seats_clockwise_goes_round_the_table():
    assert seat_after(3, 2, 4) == 1
    assert seat_after(1, 4, 4) == 1


def test_r08_counting_back_goes_anticlockwise():
    assert seat_after(1, -2, 4) == 3


@pytest.mark.parametrize("from_seat, to_seat, places", [(1, 1, 0), (1, 2, 1), (1, 0, 4), (3, 0, 2), (0, 4, 4)])
def test_r08_how_far_clockwise_one_seat_sits_from_another(from_seat, to_seat, places):
    assert clockwise(from_seat, to_seat, 5) == places


@pytest.mark.parametrize("hand, dealer", [(1, 2), (2, 3), (3, 0), (4, 1), (5, 2), (6, 3)])
def test_r08_each_hands_dealer_sits_hand_minus_one_seats_left_of_hand_ones(hand, dealer):
    assert dealer_of(2, hand, 4) == dealer


@pytest.mark.parametrize("hand", range(1, 7))
@pytest.mark.parametrize("players", [2, 3, 4, 7])
def test_r08_hand_ones_dealer_is_found_back_from_any_hands_dealer(hand, players):
    for dealer in range(players):
        first = first_dealer_of(dealer, hand, players)
        assert 0 <= first < players and dealer_of(first, hand, players) == dealer
