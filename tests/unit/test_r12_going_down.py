"""R12 going down with exactly the contract; R12a two runs of one suit."""
import pytest

from given import (
    cards,
    dealt,
    discarded,
    drew,
    first_turns,
    hand_of,
    kinds_on_table,
    melds_on_table,
    play,
    refusal,
    went_down,
)
from zioncheck.contracts.commands import Discard, DrawStock, GoDown
from zioncheck.contracts.events import Meld, WentDown

HAND_1 = "8C 8D 8H 5S 5H 5D 2C KH QS JK"


def lay(*melds: str):
    return GoDown(seat=0, melds=[cards(m) for m in melds])


def going_down(hand: int, *melds: str, extra: str = "9D"):
    """Seat 0 holds the melds and 2D, draws `extra` and lays the melds."""
    given = dealt(" ".join(melds) + " 2D", "AH 4D 6H 9S", stock=f"{extra} 4C 10S", hand=hand)
    return play(given, [DrawStock(seat=0), lay(*melds)])


# --- R12 going down ------------------------------------------------------------------

def test_r12_going_down_lays_the_contract_on_the_table():
    given = dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), lay("8C 8D 8H", "5S 5H 5D")])
    assert melds_on_table(then) == ["8C 8D 8H", "5S 5H 5D"]
    assert then.state.down[0] is True


def test_r12_going_down_takes_the_melds_out_of_the_hand():
    given = dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), lay("8C 8D 8H", "5S 5H 5D")])
    assert sorted(hand_of(then, 0)) == sorted(cards("2C KH QS JK 9C"))


def test_r12_the_melds_are_recorded_with_what_they_count_as():
    given = dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), lay("8C 8D 8H", "5S 5H 5D")])
    assert then.last == [WentDown(seat=0, melds=[Meld(kind="set", cards=cards("8C 8D 8H")),
                                                 Meld(kind="set", cards=cards("5S 5H 5D"))])]


def test_r12_only_the_turn_player_goes_down():
    given = dealt("AH 4D 6H 9S", HAND_1, stock="9C 4C")
    then = play(given, [GoDown(seat=1, melds=[cards("8C 8D 8H"), cards("5S 5H 5D")])])
    assert refusal(then) == "not_your_turn"


def test_r12_going_down_comes_after_drawing():
    then = play(dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C"), [lay("8C 8D 8H", "5S 5H 5D")])
    assert refusal(then) == "must_draw_first"


def test_r12_going_down_comes_before_discarding():
    given = dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C") + first_turns(0, "9C", "2C", "4C", "KH")
    then = play(given, [lay("8C 8D 8H", "5S 5H 5D")])
    assert refusal(then) == "not_your_turn"


def test_r12_a_seat_goes_down_once_per_turn():
    given = dealt(HAND_1 + " 7C 7D 7H 6C 6D 6H", "AH 4D 6H 9S", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), lay("8C 8D 8H", "5S 5H 5D"), lay("7C 7D 7H", "6C 6D 6H")])
    assert refusal(then) == "already_down"


def test_r12_a_seat_goes_down_once_per_hand():
    given = dealt(HAND_1 + " 7C 7D 7H 6C 6D 6H", "AH 4D 6H 9S", stock="9C 4C 10S") + [
        drew(0, "9C"), went_down(0, "8C 8D 8H", "5S 5H 5D"), discarded(0, "2C")]
    then = play(given, [DrawStock(seat=0), lay("7C 7D 7H", "6C 6D 6H")])
    assert refusal(then) == "already_down"


def test_r12_an_extra_meld_is_refused():
    then = going_down(1, "8C 8D 8H", "5S 5H 5D", "7C 7D 7H")
    assert refusal(then) == "contract_not_met"


def test_r12_a_missing_meld_is_refused():
    then = going_down(1, "8C 8D 8H")
    assert refusal(then) == "contract_not_met"


def test_r12_the_wrong_kinds_of_meld_are_refused():
    then = going_down(1, "8C 8D 8H", "3S 4S 5S 6S")
    assert refusal(then) == "contract_not_met"


def test_r12_no_melds_at_all_are_refused():
    then = going_down(1)
    assert refusal(then) == "contract_not_met"


def test_r12_a_meld_that_is_no_set_or_run_is_refused():
    then = going_down(1, "8C 8D 8H", "5S 6H 5D")
    assert refusal(then) == "invalid_meld"


def test_r12_an_empty_meld_is_refused():
    given = dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards("8C 8D 8H"), []])])
    assert refusal(then) == "invalid_meld"


def test_r12_melds_may_be_longer_than_their_minimum():
    then = going_down(2, "8C 8D 8H 8S 8C", "3S 4S 5S 6S 7S 8S")
    assert melds_on_table(then) == ["8C 8D 8H 8S 8C", "3S 4S 5S 6S 7S 8S"]


def test_r12_melds_may_be_laid_in_any_order():
    then = going_down(4, "8C 8D 8H", "3S 4S 5S 6S", "KC KD KH")
    assert kinds_on_table(then) == ["set", "run", "set"]


def test_r12_cards_not_held_cannot_be_laid():
    given = dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), lay("8C 8D 8H", "5S 5H 5C")])
    assert refusal(then) == "card_not_in_hand"


def test_r12_a_card_held_once_cannot_be_laid_twice():
    given = dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), lay("8C 8D 8H", "8C 8D 8H")])
    assert refusal(then) == "card_not_in_hand"


def test_r12_a_refused_going_down_leaves_the_hand_as_it_was():
    given = dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), lay("8C 8D 8H", "5S 5H 5D", "QS KH 2C")])
    assert then.state == then.before
    assert then.state.down[0] is False


def test_r12_the_hand_can_be_played_on_after_going_down():
    given = dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), lay("8C 8D 8H", "5S 5H 5D"), Discard(seat=0, card="KH")])
    assert then.state.turn == 0  # R11: the first player's second turn
    assert refusal(then) is None


def test_r12_two_sets_of_one_rank_are_allowed():
    then = going_down(1, "8C 8D 8H", "8S 8C 8D")
    assert melds_on_table(then) == ["8C 8D 8H", "8S 8C 8D"]


def test_r12_two_runs_of_different_suits_may_touch():
    then = going_down(3, "AC 2C 3C 4C", "5D 6D 7D 8D")
    assert kinds_on_table(then) == ["run", "run"]


# --- R12a two runs of one suit -------------------------------------------------------

def test_r12a_two_runs_of_one_suit_with_a_gap_between_them_are_two_runs():
    then = going_down(3, "AC 2C 3C 4C", "6C 7C 8C 9C")
    assert kinds_on_table(then) == ["run", "run"]


def test_r12a_two_overlapping_runs_of_one_suit_are_two_runs():
    then = going_down(3, "AC 2C 3C 4C", "4C 5C 6C 7C")
    assert melds_on_table(then) == ["AC 2C 3C 4C", "4C 5C 6C 7C"]


def test_r12a_two_identical_runs_are_two_runs():
    then = going_down(3, "5C 6C 7C 8C", "5C 6C 7C 8C")
    assert kinds_on_table(then) == ["run", "run"]


def test_r12a_touching_runs_of_nine_cards_together_are_two_runs():
    then = going_down(3, "AC 2C 3C 4C", "5C 6C 7C 8C 9C")
    assert kinds_on_table(then) == ["run", "run"]


def test_r12a_touching_runs_of_ten_cards_together_are_two_runs():
    then = going_down(3, "AC 2C 3C 4C 5C", "6C 7C 8C 9C 10C")
    assert kinds_on_table(then) == ["run", "run"]


def test_r12a_touching_runs_of_eight_cards_together_are_not_two_runs():
    then = going_down(3, "AC 2C 3C 4C", "5C 6C 7C 8C")
    assert refusal(then) == "contract_not_met"


def test_r12a_touching_runs_connect_whichever_is_given_first():
    then = going_down(3, "5C 6C 7C 8C", "AC 2C 3C 4C")
    assert refusal(then) == "contract_not_met"


def test_r12a_touching_runs_connect_at_the_high_ace():
    then = going_down(3, "7H 8H 9H 10H", "JH QH KH AH")
    assert refusal(then) == "contract_not_met"


def test_r12a_a_joker_at_the_touching_end_counts_as_its_rank():
    then = going_down(3, "AC 2C 3C JK", "5C 6C 7C 8C")
    assert refusal(then) == "contract_not_met"


def test_r12a_a_joker_opening_the_higher_run_counts_as_its_rank():
    then = going_down(3, "AC 2C 3C 4C", "JK 6C 7C 8C")
    assert refusal(then) == "contract_not_met"


def test_r12a_a_joker_may_make_the_gap_disappear():
    then = going_down(3, "AC 2C 3C 4C", "JK JK 7C 8C")
    assert refusal(then) == "contract_not_met"


def test_r12a_runs_of_jokers_connect_by_the_ranks_their_jokers_stand_for():
    then = going_down(3, "5C JK JK JK", "9C JK JK JK")
    assert refusal(then) == "contract_not_met"


def test_r12a_touching_runs_of_one_suit_are_fine_beside_sets_in_the_last_hand():
    then = going_down(6, "AC 2C 3C 4C", "5C 6C 7C 8C 9C", "KD KH KS", "QD QH QS")
    assert kinds_on_table(then) == ["run", "run", "set", "set"]


def test_r12a_touching_runs_of_eight_cards_are_refused_in_the_last_hand_too():
    then = going_down(6, "AC 2C 3C 4C", "5C 6C 7C 8C", "KD KH KS", "QD QH QS")
    assert refusal(then) == "contract_not_met"


def test_r12a_an_ambiguous_meld_is_read_so_that_the_runs_do_not_connect():
    # Hand 5 needs two runs and a set. Read as the set, 2D JK JK JK would leave 9C JK JK JK
    # as a run touching 5C..8C with eight cards (R12a), so 9C JK JK JK counts as the set (R6).
    then = going_down(5, "2D JK JK JK", "5C 6C 7C 8C", "9C JK JK JK")
    assert kinds_on_table(then) == ["run", "run", "set"]


@pytest.mark.parametrize("low, high", [
    ("AC 2C 3C 4C", "6C 7C 8C 9C"),
    ("AC 2C 3C 4C", "4C 5C 6C 7C"),
    ("AC 2C 3C 4C", "5C 6C 7C 8C 9C"),
])
def test_r12a_the_seeds_examples_of_two_runs_are_accepted(low, high):
    assert refusal(going_down(3, low, high)) is None
