"""R9 the order of a turn, R10 taking the discard."""
from given import cards, dealt, first_turns, hand_of, holds, pile, play, refusal
from zioncheck.contracts.commands import Discard, DrawStock, GoDown, LayOff, TakeDiscard


def three_seats(discard=""):
    """Seat 0 plays first; the stock's top is 9C."""
    return dealt("2C KH 5S 5H 5D 8C 8D 8H", "AH 4D 6H 9S", "3S 5C 8S 10H", stock="9C 4C 10S 7D JS", discard=discard)


def seat_1_to_play():
    """Seat 0 has played both its first turns (R11) and discarded KH last: seat 1 is to play."""
    return three_seats() + first_turns(0, "9C", "2C", "4C", "KH")


# --- R9 turn order -------------------------------------------------------------------

def test_r09_drawing_from_the_stock_takes_its_top_card():
    then = play(three_seats(), [DrawStock(seat=0)])
    assert holds(then, 0, "9C")
    assert len(then.state.stock) == 4


def test_r09_the_turn_starts_with_a_draw():
    then = play(three_seats(), [Discard(seat=0, card="2C")])
    assert refusal(then) == "must_draw_first"


def test_r09_a_turn_draws_only_one_card():
    then = play(three_seats(), [DrawStock(seat=0), DrawStock(seat=0)])
    assert refusal(then) == "already_drew"


def test_r09_going_down_comes_after_the_draw():
    melds = [cards("5S 5H 5D"), cards("8C 8D 8H")]
    then = play(three_seats(), [GoDown(seat=0, melds=melds)])
    assert refusal(then) == "must_draw_first"


def test_r09_laying_off_needs_the_seat_to_be_down():
    then = play(three_seats(), [DrawStock(seat=0), LayOff(seat=0, target=(0, 0), card="2C")])
    assert refusal(then) == "not_down"


def test_r09_the_discard_goes_on_top_of_the_pile():
    then = play(three_seats(discard="QC"), [DrawStock(seat=0), Discard(seat=0, card="KH")])
    assert pile(then) == ["QC", "KH"]
    assert not holds(then, 0, "KH")


def test_r09_the_discard_ends_the_turn_and_play_passes_to_the_left():
    then = play(seat_1_to_play(), [DrawStock(seat=1), Discard(seat=1, card="AH")])
    assert then.state.turn == 2
    assert then.state.drawn is False


def test_r09_after_the_discard_the_same_seat_cannot_discard_again():
    then = play(seat_1_to_play(), [DrawStock(seat=1), Discard(seat=1, card="AH"), Discard(seat=1, card="4D")])
    assert refusal(then) == "not_your_turn"


def test_r09_play_goes_on_clockwise_from_the_last_seat_to_seat_0():
    when = [DrawStock(seat=1), Discard(seat=1, card="AH"), DrawStock(seat=2), Discard(seat=2, card="3S")]
    then = play(seat_1_to_play(), when)
    assert then.state.turn == 0


def test_r09_a_seat_out_of_turn_cannot_draw():
    then = play(seat_1_to_play(), [DrawStock(seat=2)])
    assert refusal(then) == "not_your_turn"


# --- R10 taking the discard ----------------------------------------------------------

def test_r10_the_turn_player_may_take_the_top_discard():
    then = play(seat_1_to_play(), [TakeDiscard(seat=1)])
    assert holds(then, 1, "KH")
    assert pile(then) == ["2C"]


def test_r10_taking_the_discard_is_the_turns_draw():
    then = play(seat_1_to_play(), [TakeDiscard(seat=1), DrawStock(seat=1)])
    assert refusal(then) == "already_drew"


def test_r10_taking_the_discard_leaves_the_stock_alone():
    then = play(seat_1_to_play(), [TakeDiscard(seat=1)])
    assert list(then.state.stock) == ["10S", "7D", "JS"]


def test_r10_a_pile_dealt_with_the_hand_may_be_taken_by_the_first_player():
    then = play(three_seats(discard="QC JD"), [TakeDiscard(seat=0)])
    assert holds(then, 0, "JD")
    assert pile(then) == ["QC"]


def test_r10_once_drawn_from_the_stock_the_discard_is_forfeit():
    then = play(seat_1_to_play(), [DrawStock(seat=1), TakeDiscard(seat=1)])
    assert refusal(then) == "already_drew"
    assert not holds(then, 1, "KH")


def test_r10_a_seat_cannot_take_its_own_discard():
    given = three_seats() + first_turns(0, "9C", "2C")
    then = play(given, [TakeDiscard(seat=0)])
    assert refusal(then) == "cannot_take_own_discard"


def test_r10_there_is_nothing_to_take_from_an_empty_pile():
    then = play(three_seats(), [TakeDiscard(seat=0)])
    assert refusal(then) == "no_discard"


def test_r10_only_the_turn_player_takes_the_discard():
    then = play(seat_1_to_play(), [TakeDiscard(seat=2)])
    assert refusal(then) == "not_your_turn"


def test_r10_the_taken_discard_may_be_discarded_again():
    then = play(seat_1_to_play(), [TakeDiscard(seat=1), Discard(seat=1, card="KH")])
    assert pile(then) == ["2C", "KH"]
    assert "KH" not in hand_of(then, 1)
