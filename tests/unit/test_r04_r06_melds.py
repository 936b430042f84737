"""R4 sets, R5 runs, R6 jokers: what a meld is, and what it counts as at going down."""
import pytest

from given import cards, dealt, kinds_on_table, melds_on_table, play, refusal
from zioncheck.contracts.commands import DrawStock, GoDown, SwapJoker
from zioncheck.domain.melds import kinds, run_low


def read(text) -> tuple[str, ...]:
    return kinds(cards(text))


def go_down(hand: int, *melds: str, extra: str = "2D", then=()):
    """Seat 0 holds exactly the melds and 9D, draws `extra`, lays the melds, then plays `then`."""
    held = " ".join(melds)
    given = dealt(f"{held} 9D", "3S 4S", stock=extra, hand=hand)
    return play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards(m) for m in melds]), *then])


# --- R4 sets -------------------------------------------------------------------------

@pytest.mark.parametrize("meld", ["8C 8D 8H", "8C 8D 8H 8S", "KS KH KD KC KS", "AC AD AH"])
def test_r04_three_or_more_cards_of_one_rank_are_a_set(meld):
    assert read(meld) == ("set",)


def test_r04_suits_may_repeat_in_a_set():
    assert read("8C 8C 8C") == ("set",)


def test_r04_two_cards_of_one_rank_are_not_a_set():
    assert read("8C 8D") == ()


def test_r04_cards_of_two_ranks_are_not_a_set():
    assert read("8C 8D 9H") == ()


# --- R5 runs -------------------------------------------------------------------------

@pytest.mark.parametrize("meld", ["3C 4C 5C 6C", "9H 10H JH QH KH", "2S 3S 4S 5S 6S 7S 8S 9S"])
def test_r05_four_or_more_consecutive_cards_of_one_suit_are_a_run(meld):
    assert read(meld) == ("run",)


def test_r05_three_consecutive_cards_are_not_a_run():
    assert read("3C 4C 5C") == ()


def test_r05_consecutive_cards_of_two_suits_are_not_a_run():
    assert read("3C 4C 5D 6C") == ()


def test_r05_a_run_must_be_given_in_ascending_order():
    assert read("6C 5C 4C 3C") == ()
    assert read("3C 5C 4C 6C") == ()


def test_r05_a_run_has_no_gaps():
    assert read("3C 4C 6C 7C") == ()


def test_r05_a_run_holds_no_card_twice():
    assert read("3C 4C 4C 5C 6C") == ()


def test_r05_an_ace_may_be_low():
    assert read("AC 2C 3C 4C") == ("run",)
    assert run_low(cards("AC 2C 3C 4C")) == 1


def test_r05_an_ace_may_be_high():
    assert read("JC QC KC AC") == ("run",)
    assert run_low(cards("JC QC KC AC")) == 11


def test_r05_an_ace_is_never_in_between():
    assert read("KC AC 2C 3C") == ()
    assert read("QC KC AC 2C") == ()


def test_r05_a_run_may_hold_both_aces_only_as_ace_to_ace():
    assert read("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC") == ("run",)


def test_r05_ace_to_king_is_a_run_of_thirteen():
    assert read("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC") == ("run",)


def test_r05_no_run_goes_on_past_the_high_ace():
    assert read("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C") == ()


# --- R6 jokers -----------------------------------------------------------------------

def test_r06_a_joker_stands_for_the_card_of_its_place_in_a_run():
    assert read("5C 6C JK 8C") == ("run",)


def test_r06_a_joker_cannot_stand_where_the_order_puts_another_card():
    assert read("5C JK 8C 9C") == ()


def test_r06_a_joker_may_open_a_run():
    assert read("JK 6C 7C 8C") == ("run",)
    assert run_low(cards("JK 6C 7C 8C")) == 5


def test_r06_a_joker_may_stand_for_an_ace():
    assert run_low(cards("JK 2C 3C 4C")) == 1
    assert run_low(cards("JC QC KC JK")) == 11


def test_r06_a_joker_cannot_stand_past_an_ace():
    assert read("JK AC 2C 3C") == ()
    assert read("QC KC AC JK") == ()


def test_r06_there_is_no_limit_on_jokers_in_a_run():
    assert read("5C 6C JK JK JK JK JK JK") == ("run",)


def test_r06_there_is_no_limit_on_jokers_in_a_set():
    assert read("8C 8D JK JK JK JK") == ("set",)


def test_r06_one_natural_and_five_jokers_also_reads_as_a_set_or_a_run():
    assert read("5C JK JK JK JK JK") == ("set", "run")


def test_r06_jokers_are_wild_in_a_set():
    assert read("8C JK JK") == ("set",)
    assert read("8C 8D JK JK JK") == ("set",)


def test_r06_a_meld_must_hold_a_natural_card():
    assert read("JK JK JK") == ()
    assert read("JK JK JK JK") == ()


def test_r06_one_natural_and_three_jokers_reads_as_a_set_or_a_run():
    assert read("5C JK JK JK") == ("set", "run")


def test_r06_a_joker_in_a_run_is_placed_where_it_stands():
    then = go_down(3, "5C 6C JK 8C", "9H 10H JH QH")
    assert melds_on_table(then) == ["5C 6C JK 8C", "9H 10H JH QH"]


def test_r06_a_set_with_jokers_may_be_laid_at_going_down():
    then = go_down(1, "8C JK JK", "5S 5H 5D")
    assert kinds_on_table(then) == ["set", "set"]


def test_r06_an_ambiguous_meld_counts_as_a_run_where_the_contract_needs_runs():
    then = go_down(3, "5C JK JK JK", "9H 10H JH QH")
    assert kinds_on_table(then) == ["run", "run"]


def test_r06_an_ambiguous_meld_counts_as_a_set_where_the_contract_needs_sets():
    then = go_down(1, "5C JK JK JK", "8C 8D 8H")
    assert kinds_on_table(then) == ["set", "set"]


def test_r06_where_either_would_do_the_earlier_ambiguous_meld_counts_as_the_set():
    then = go_down(2, "5C JK JK JK", "9H JK JK JK")
    assert kinds_on_table(then) == ["set", "run"]


def test_r06_the_earlier_ambiguous_meld_is_the_set_in_a_run_and_two_sets_contract():
    then = go_down(4, "5C JK JK JK", "8C 8D 8H", "9S JK JK JK")
    assert kinds_on_table(then) == ["set", "set", "run"]


def test_r06_an_ambiguous_meld_counted_as_a_set_keeps_its_jokers():
    then = go_down(2, "5C JK JK JK", "9H JK JK JK", extra="6C",
                   then=[SwapJoker(seat=0, target=(0, 0), card="6C")])
    assert refusal(then) == "joker_in_set"
