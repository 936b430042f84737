"""R14: a joker in a run on the table may be taken by covering it with the card it stands for."""
from given import (
    as_run,
    cards,
    dealt,
    discarded,
    drew,
    first_turns,
    hand_of,
    holds,
    melds_on_table,
    pile,
    play,
    refusal,
    went_down,
)
from zioncheck.contracts.commands import Discard, DrawStock, GoDown, LayOff, SwapJoker
from zioncheck.contracts.events import JokerSwapped

SEAT_0 = "7C 9C QH 2D 3D"
SEAT_2 = "7C 6C 8H 4H AH"


def seat_1_went_down(*melds, keeps: str = ""):
    """Hand 2, three seats: seat 0 played its first turns, seat 1 went down with `melds`
    and discarded 4D, keeping `keeps` and 4S; seat 2 is to play and has not drawn yet."""
    laid = " ".join(m if isinstance(m, str) else " ".join(m.cards) for m in melds)
    given = dealt(SEAT_0, f"{laid} {keeps} 4D", SEAT_2, stock="2S 3S 4S 5S 6S", hand=2)
    return given + first_turns(0, "2S", "2S", "3S", "3S") + [
        drew(1, "4S"), went_down(1, *melds), discarded(1, "4D"),
    ]


def swap(seat: int, card: str, owner: int = 1, index: int = 1) -> SwapJoker:
    return SwapJoker(seat=seat, target=(owner, index), card=card)


DEFAULT = ("QC QD JK", "5C 6C JK 8C")


def test_r14_the_card_a_joker_stands_for_covers_it_and_the_joker_goes_to_hand():
    then = play(seat_1_went_down(*DEFAULT), [swap(2, "7C")])
    assert melds_on_table(then)[1] == "5C 6C 7C 8C"
    assert holds(then, 2, "JK")
    assert not holds(then, 2, "7C")


def test_r14_the_swap_is_recorded_with_the_jokers_place():
    then = play(seat_1_went_down(*DEFAULT), [swap(2, "7C")])
    assert then.last == [JokerSwapped(seat=2, owner=1, index=1, card="7C", position=2)]


def test_r14_a_swap_leaves_the_hand_size_alone():
    then = play(seat_1_went_down(*DEFAULT), [swap(2, "7C")])
    assert len(hand_of(then, 2)) == len(SEAT_2.split())


def test_r14_the_turn_player_may_swap_before_drawing():
    then = play(seat_1_went_down(*DEFAULT), [swap(2, "7C"), DrawStock(seat=2)])
    assert holds(then, 2, "JK 5S")


def test_r14_a_player_out_of_turn_may_swap():
    then = play(seat_1_went_down(*DEFAULT), [swap(0, "7C")])
    assert holds(then, 0, "JK")


def test_r14_a_player_who_is_not_down_may_swap():
    then = play(seat_1_went_down(*DEFAULT), [swap(0, "7C")])
    assert then.state.down[0] is False
    assert refusal(then) is None


def test_r14_the_owner_of_the_run_may_swap_too():
    then = play(seat_1_went_down(*DEFAULT, keeps="7C"), [swap(1, "7C")])
    assert melds_on_table(then)[1] == "5C 6C 7C 8C"
    assert holds(then, 1, "JK")


def test_r14_a_swap_may_come_in_the_middle_of_anothers_turn():
    then = play(seat_1_went_down(*DEFAULT), [DrawStock(seat=2), swap(0, "7C"), Discard(seat=2, card="8H")])
    assert holds(then, 0, "JK")
    assert then.state.turn == 0


def test_r14_a_joker_in_a_set_can_never_be_taken():
    then = play(seat_1_went_down(*DEFAULT), [swap(0, "QH", index=0)])
    assert refusal(then) == "joker_in_set"
    assert melds_on_table(then)[0] == "QC QD JK"


def test_r14_a_card_other_than_the_one_the_joker_stands_for_does_not_take_it():
    then = play(seat_1_went_down(*DEFAULT), [swap(2, "6C")])
    assert refusal(then) == "no_joker_to_swap"


def test_r14_a_run_without_a_joker_has_no_joker_to_swap():
    then = play(seat_1_went_down("QC QD JK", "5C 6C 7C 8C"), [swap(2, "7C")])
    assert refusal(then) == "no_joker_to_swap"


def test_r14_a_set_without_a_joker_has_no_joker_to_swap():
    then = play(seat_1_went_down("QC QD QS", "5C 6C JK 8C"), [swap(0, "QH", index=0)])
    assert refusal(then) == "no_joker_to_swap"


def test_r14_the_first_swap_to_reach_the_stream_wins_the_race():
    then = play(seat_1_went_down(*DEFAULT), [swap(0, "7C"), swap(2, "7C")])
    assert holds(then, 0, "JK")
    assert refusal(then) == "no_joker_to_swap"
    assert holds(then, 2, "7C")


def test_r14_of_two_jokers_in_a_run_the_card_takes_the_one_it_stands_for():
    then = play(seat_1_went_down("QC QD JK", "5C JK JK 8C"), [swap(2, "7C")])
    assert melds_on_table(then)[1] == "5C JK 7C 8C"


def test_r14_both_jokers_of_a_run_may_be_taken_one_after_the_other():
    then = play(seat_1_went_down("QC QD JK", "5C JK JK 8C"), [swap(2, "7C"), swap(2, "6C")])
    assert melds_on_table(then)[1] == "5C 6C 7C 8C"
    assert hand_of(then, 2).count("JK") == 2


def test_r14_a_joker_opening_a_run_stands_for_the_card_below():
    then = play(seat_1_went_down("QC QD JK", "JK 5H 6H 7H"), [swap(2, "4H")])
    assert melds_on_table(then)[1] == "4H 5H 6H 7H"


def test_r14_a_joker_closing_a_run_stands_for_the_card_above():
    then = play(seat_1_went_down("QC QD JK", "5H 6H 7H JK"), [swap(2, "8H")])
    assert melds_on_table(then)[1] == "5H 6H 7H 8H"


def test_r14_a_joker_after_a_king_stands_for_the_ace():
    then = play(seat_1_went_down("QC QD JK", "JH QH KH JK"), [swap(2, "AH")])
    assert melds_on_table(then)[1] == "JH QH KH AH"


def test_r14_a_joker_in_a_meld_read_as_a_run_may_be_taken():
    then = play(seat_1_went_down("QC QD JK", as_run("5C JK JK JK")), [swap(2, "6C")])
    assert melds_on_table(then)[1] == "5C 6C JK JK"


def test_r14_a_joker_laid_off_at_a_runs_end_may_be_taken():
    given = dealt("4H 5H 6H 7H KC KD KH JK 2D", "8H 3C 3D", stock="2S 3S 4S 5S", hand=2)
    then = play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards("KC KD KH"), cards("4H 5H 6H 7H")]),
                        LayOff(seat=0, target=(0, 1), card="JK", end="high"),
                        swap(1, "8H", owner=0, index=1)])
    assert melds_on_table(then)[1] == "4H 5H 6H 7H 8H"
    assert holds(then, 1, "JK")


def test_r14_the_swapped_joker_may_be_played_like_any_card():
    then = play(seat_1_went_down(*DEFAULT), [swap(2, "7C"), DrawStock(seat=2), Discard(seat=2, card="JK")])
    assert pile(then)[-1] == "JK"


def test_r14_a_card_not_held_cannot_be_swapped_in():
    then = play(seat_1_went_down(*DEFAULT), [swap(0, "6C")])
    assert refusal(then) == "card_not_in_hand"


def test_r14_a_swap_needs_a_meld_on_the_table():
    then = play(seat_1_went_down(*DEFAULT), [swap(0, "7C", owner=2, index=0)])
    assert refusal(then) == "no_such_meld"
