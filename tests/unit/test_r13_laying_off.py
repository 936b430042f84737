"""R13: laying off cards on melds already on the table."""
from given import cards, dealt, discarded, drew, hand_of, holds, melds_on_table, play, refusal, went_down
from zioncheck.contracts.commands import Discard, DrawStock, GoDown, LayOff

MINE = ("KC KD KH", "4H 5H 6H 7H")       # seat 0's set (0, 0) and run (0, 1)
THEIRS = ("QC QD JK", "2C 3C 4C 5C")     # seat 1's set (1, 0) and run (1, 1)


def seat_0_down_and_drawn(keeps: str = "KS 3H 8H 9H JK JK 8D AC", mine=MINE, theirs=THEIRS, drawn: str = "3D"):
    """Hand 2, two seats. Both went down on their first turns; seat 0 has drawn `drawn` and holds
    `keeps` besides, and is to lay off."""
    given = dealt(" ".join(mine) + f" {keeps}", " ".join(theirs) + " 2D", stock=f"3S 4S 5S {drawn}", hand=2)
    return given + [
        drew(0, "3S"), went_down(0, *mine), discarded(0, "3S"),
        drew(0, "4S"), discarded(0, "4S"),
        drew(1, "5S"), went_down(1, *theirs), discarded(1, "2D"),
        drew(0, drawn),
    ]


def lay_off(card: str, owner: int, index: int, end=None) -> LayOff:
    return LayOff(seat=0, target=(owner, index), card=card, end=end)


def meld_at(played, owner: int, index: int) -> str:
    [meld] = [m for m in played.state.table if (m.owner, m.index) == (owner, index)]
    return " ".join(meld.cards)


# --- sets ----------------------------------------------------------------------------

def test_r13_a_card_of_a_sets_rank_goes_on_the_set():
    then = play(seat_0_down_and_drawn(), [lay_off("KS", 0, 0)])
    assert meld_at(then, 0, 0) == "KC KD KH KS"
    assert not holds(then, 0, "KS")


def test_r13_cards_go_on_another_players_meld_too():
    then = play(seat_0_down_and_drawn(keeps="QH 8H 9H"), [lay_off("QH", 1, 0)])
    assert meld_at(then, 1, 0) == "QC QD JK QH"


def test_r13_a_joker_goes_on_a_set():
    then = play(seat_0_down_and_drawn(), [lay_off("JK", 0, 0)])
    assert meld_at(then, 0, 0) == "KC KD KH JK"


def test_r13_a_card_of_another_rank_does_not_go_on_a_set():
    then = play(seat_0_down_and_drawn(), [lay_off("8D", 0, 0)])
    assert refusal(then) == "cannot_lay_off"


# --- runs ----------------------------------------------------------------------------

def test_r13_the_card_just_below_a_runs_low_end_goes_on_the_run():
    then = play(seat_0_down_and_drawn(), [lay_off("3H", 0, 1)])
    assert meld_at(then, 0, 1) == "3H 4H 5H 6H 7H"


def test_r13_the_card_just_above_a_runs_high_end_goes_on_the_run():
    then = play(seat_0_down_and_drawn(), [lay_off("8H", 0, 1)])
    assert meld_at(then, 0, 1) == "4H 5H 6H 7H 8H"


def test_r13_a_run_grows_one_card_after_another():
    then = play(seat_0_down_and_drawn(), [lay_off("8H", 0, 1), lay_off("9H", 0, 1)])
    assert meld_at(then, 0, 1) == "4H 5H 6H 7H 8H 9H"


def test_r13_a_card_two_above_the_high_end_does_not_fit():
    then = play(seat_0_down_and_drawn(), [lay_off("9H", 0, 1)])
    assert refusal(then) == "cannot_lay_off"


def test_r13_a_card_of_another_suit_does_not_fit_a_run():
    then = play(seat_0_down_and_drawn(), [lay_off("8D", 0, 1)])
    assert refusal(then) == "cannot_lay_off"


def test_r13_a_card_the_run_already_holds_does_not_fit_in_its_middle():
    then = play(seat_0_down_and_drawn(keeps="5H 8D 9D"), [lay_off("5H", 0, 1)])
    assert refusal(then) == "cannot_lay_off"


def test_r13_a_card_that_fits_one_end_may_name_it():
    then = play(seat_0_down_and_drawn(), [lay_off("8H", 0, 1, end="high")])
    assert meld_at(then, 0, 1) == "4H 5H 6H 7H 8H"


def test_r13_a_card_named_for_the_end_it_does_not_fit_is_refused():
    then = play(seat_0_down_and_drawn(), [lay_off("8H", 0, 1, end="low")])
    assert refusal(then) == "cannot_lay_off"


def test_r13_a_joker_on_a_run_with_two_open_ends_needs_a_named_end():
    then = play(seat_0_down_and_drawn(), [lay_off("JK", 0, 1)])
    assert refusal(then) == "ambiguous_end"


def test_r13_a_joker_laid_at_the_low_end_stands_below_the_run():
    then = play(seat_0_down_and_drawn(), [lay_off("JK", 0, 1, end="low")])
    assert meld_at(then, 0, 1) == "JK 4H 5H 6H 7H"


def test_r13_a_joker_laid_at_the_high_end_stands_above_the_run():
    then = play(seat_0_down_and_drawn(), [lay_off("JK", 0, 1, end="high")])
    assert meld_at(then, 0, 1) == "4H 5H 6H 7H JK"


def test_r13_a_joker_at_an_end_stands_for_the_card_there():
    then = play(seat_0_down_and_drawn(), [lay_off("JK", 0, 1, end="high"), lay_off("9H", 0, 1)])
    assert meld_at(then, 0, 1) == "4H 5H 6H 7H JK 9H"


def test_r13_the_card_a_joker_at_the_end_stands_for_no_longer_fits_there():
    then = play(seat_0_down_and_drawn(), [lay_off("JK", 0, 1, end="high"), lay_off("8H", 0, 1)])
    assert refusal(then) == "cannot_lay_off"


# --- aces ----------------------------------------------------------------------------

def test_r13_nothing_goes_below_a_low_ace():
    then = play(seat_0_down_and_drawn(keeps="KC 8D 9D", theirs=("QC QD JK", "AC 2C 3C 4C")), [lay_off("KC", 1, 1)])
    assert refusal(then) == "cannot_lay_off"


def test_r13_a_joker_on_a_run_from_a_low_ace_goes_to_its_high_end_unnamed():
    then = play(seat_0_down_and_drawn(theirs=("QC QD JK", "AC 2C 3C 4C")), [lay_off("JK", 1, 1)])
    assert meld_at(then, 1, 1) == "AC 2C 3C 4C JK"


def test_r13_nothing_goes_above_a_high_ace():
    then = play(seat_0_down_and_drawn(keeps="2H 8D 9D", mine=("KC KD KH", "JH QH KH AH")), [lay_off("2H", 0, 1)])
    assert refusal(then) == "cannot_lay_off"


def test_r13_a_joker_on_a_run_to_a_high_ace_goes_to_its_low_end_unnamed():
    then = play(seat_0_down_and_drawn(mine=("KC KD KH", "JH QH KH AH")), [lay_off("JK", 0, 1)])
    assert meld_at(then, 0, 1) == "JK JH QH KH AH"


def test_r13_an_ace_on_a_two_to_king_run_needs_a_named_end():
    run = "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"
    then = play(seat_0_down_and_drawn(theirs=("QC QD JK", run)), [lay_off("AC", 1, 1)])
    assert refusal(then) == "ambiguous_end"


def test_r13_an_ace_named_low_opens_a_two_to_king_run():
    run = "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"
    then = play(seat_0_down_and_drawn(theirs=("QC QD JK", run)), [lay_off("AC", 1, 1, end="low")])
    assert meld_at(then, 1, 1) == "AC " + run


def test_r13_an_ace_named_high_closes_a_two_to_king_run():
    run = "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"
    then = play(seat_0_down_and_drawn(theirs=("QC QD JK", run)), [lay_off("AC", 1, 1, end="high")])
    assert meld_at(then, 1, 1) == run + " AC"


def test_r13_an_ace_to_king_run_takes_the_second_ace():
    run = "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"
    then = play(seat_0_down_and_drawn(theirs=("QC QD JK", run)), [lay_off("AC", 1, 1)])
    assert meld_at(then, 1, 1) == run + " AC"


def test_r13_an_ace_to_ace_run_takes_nothing_more():
    run = "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC"
    then = play(seat_0_down_and_drawn(theirs=("QC QD JK", run)), [lay_off("JK", 1, 1)])
    assert refusal(then) == "cannot_lay_off"


# --- when a seat may lay off ---------------------------------------------------------

def test_r13_a_seat_that_is_not_down_cannot_lay_off():
    given = dealt("KS 9D 9H", "KC KD KH 4H 5H 6H 7H 2D", stock="3S 4S 5S 6S 7S", hand=2) + [
        drew(0, "3S"), discarded(0, "9D"), drew(0, "4S"), discarded(0, "4S"),
        drew(1, "5S"), went_down(1, "KC KD KH", "4H 5H 6H 7H"), discarded(1, "2D"),
    ]
    then = play(given, [DrawStock(seat=0), lay_off("KS", 1, 0)])
    assert refusal(then) == "not_down"


def test_r13_laying_off_is_only_on_ones_own_turn():
    given = seat_0_down_and_drawn()
    then = play(given, [LayOff(seat=1, target=(1, 0), card="JK")])
    assert refusal(then) == "not_your_turn"


def test_r13_laying_off_comes_after_drawing():
    given = seat_0_down_and_drawn()[:-1]
    then = play(given, [lay_off("KS", 0, 0)])
    assert refusal(then) == "must_draw_first"


def test_r13_laying_off_ends_with_the_discard():
    given = seat_0_down_and_drawn()
    then = play(given, [Discard(seat=0, card="8D"), lay_off("KS", 0, 0)])
    assert refusal(then) == "not_your_turn"


def test_r13_a_seat_may_lay_off_in_the_turn_it_goes_down():
    given = dealt("KC KD KH 4H 5H 6H 7H 8H 2S", "2D 3D 4D", stock="9S", hand=2)
    then = play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards("KC KD KH"), cards("4H 5H 6H 7H")]),
                        lay_off("8H", 0, 1)])
    assert meld_at(then, 0, 1) == "4H 5H 6H 7H 8H"


def test_r13_a_seat_may_lay_off_several_cards_in_a_turn():
    then = play(seat_0_down_and_drawn(), [lay_off("KS", 0, 0), lay_off("3H", 0, 1), lay_off("8H", 0, 1)])
    assert melds_on_table(then)[:2] == ["KC KD KH KS", "3H 4H 5H 6H 7H 8H"]


def test_r13_a_card_not_held_cannot_be_laid_off():
    then = play(seat_0_down_and_drawn(), [lay_off("6C", 1, 1)])
    assert refusal(then) == "card_not_in_hand"


def test_r13_a_card_goes_only_on_a_meld_that_is_on_the_table():
    then = play(seat_0_down_and_drawn(), [lay_off("KS", 0, 2)])
    assert refusal(then) == "no_such_meld"


def test_r13_a_seat_with_no_melds_has_no_meld_to_lay_off_on():
    then = play(seat_0_down_and_drawn(), [lay_off("KS", 5, 0)])
    assert refusal(then) == "no_such_meld"


def test_r13_a_lay_off_must_leave_a_card_to_discard():
    then = play(seat_0_down_and_drawn(keeps="KS", drawn="8H"), [lay_off("KS", 0, 0), lay_off("8H", 0, 1)])
    assert refusal(then) == "must_keep_discard"
    assert hand_of(then, 0) == ["8H"]
    assert meld_at(then, 0, 1) == "4H 5H 6H 7H"
