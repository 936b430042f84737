"""R9-R16, R18: what a seat's view says it may do now is what the table accepts (domain/legal.py)."""
from given import accepted, cards, claimed, dealt, discarded, drew, first_turns, play, refusal, went_down
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, GoDown, LayOff, Ready, SwapJoker, TakeDiscard
from zioncheck.contracts.views import JokerSwapMove, SeatMoves
from zioncheck.domain import GameState
from zioncheck.domain.finder import find_contract
from zioncheck.domain.legal import legal_moves

THREE = ("2C KH 3D 9S QD", "AH 4D 6H 9D QC", "3S 5C 8S 9C JD")
HAND_1 = "8C 8D 8H 5S 5H 5D 2C KH QS JK"


def fresh_hand(stock: str = "9C 4C 10S JS QS"):
    """Three seats, hand 1: seat 0 plays first and has not drawn."""
    return dealt(*THREE, stock=stock)


def seat_0_discarded_kh(stock: str = "9C 4C 10S JS QS"):
    """Three seats: seat 0 played its two first turns (R11) and discarded KH; seat 1 is to play."""
    return fresh_hand(stock) + first_turns(0, "9C", "2C", "4C", "KH")


def moves(given, seat: int) -> SeatMoves:
    return legal_moves(play(given).state, seat)


def going_down(hand_no: int, held: str, drawn: str = "2D"):
    """Seat 0 of two holds `held` in hand `hand_no` and has drawn `drawn`."""
    return dealt(held, "AH 4D 6H 9S", stock=f"{drawn} 4C 10S", hand=hand_no) + [drew(0, drawn)]


# --- R9, R10, R11: the turn's draw ------------------------------------------------------

def test_r09_before_the_draw_the_turn_seat_may_draw_from_the_stock_and_nothing_after():
    seen = moves(fresh_hand(), 0)
    assert seen.draw_stock
    assert (seen.go_down, seen.lay_off, seen.discard) == ([], [], [])


def test_r09_a_seat_whose_turn_it_is_not_may_not_draw():
    seen = moves(fresh_hand(), 1)
    assert not seen.draw_stock and not seen.take_discard


def test_r09_no_second_draw_in_a_turn():
    seen = moves(fresh_hand() + [drew(0, "9C")], 0)
    assert not seen.draw_stock and not seen.take_discard


def test_r10_the_turn_seat_may_take_another_seats_discard():
    assert moves(seat_0_discarded_kh(), 1).take_discard


def test_r10_r11_the_first_player_may_not_take_back_its_own_discard():
    seen = moves(fresh_hand() + [drew(0, "9C"), discarded(0, "2C")], 0)
    assert seen.draw_stock and not seen.take_discard


def test_r10_no_taking_from_an_empty_pile():
    assert not moves(fresh_hand(), 0).take_discard


def test_r16_a_draw_that_finds_the_stock_empty_is_offered_for_the_table_reshuffles_first():
    given = seat_0_discarded_kh(stock="9C 4C")
    assert refusal(play(given, [DrawStock(seat=1)])) == "stock_empty"
    assert moves(given, 1).draw_stock


# --- R11a: claims ----------------------------------------------------------------------

def test_r11a_a_seat_neither_the_discarder_nor_the_turn_player_may_claim():
    given = seat_0_discarded_kh()
    assert [moves(given, seat).claim for seat in range(3)] == [False, False, True]


def test_r11a_a_seat_that_claimed_the_card_may_not_claim_it_again():
    assert not moves(seat_0_discarded_kh() + [claimed(2, "KH")], 2).claim


def test_r11a_no_claim_once_the_turn_player_drew():
    assert not moves(seat_0_discarded_kh() + [drew(1, "10S")], 2).claim


def test_r11a_the_offered_claim_is_accepted():
    assert accepted(play(seat_0_discarded_kh(), [ClaimDiscard(seat=2)]))


# --- R12, R12a, R15: going down ----------------------------------------------------------

def test_r12_after_the_draw_the_view_offers_melds_that_meet_the_contract():
    given = going_down(1, HAND_1, drawn="9C")
    melds = moves(given, 0).go_down
    assert melds
    assert accepted(play(given, [GoDown(seat=0, melds=melds)]))


def test_r12_no_going_down_before_the_draw():
    assert moves(dealt(HAND_1, "AH 4D 6H 9S", stock="9C 4C"), 0).go_down == []


def test_r12_no_going_down_a_second_time():
    given = going_down(1, HAND_1, drawn="8S") + [went_down(0, "8C 8D 8H", "5S 5H 5D")]
    assert play(given).state.down[0]
    assert moves(given, 0).go_down == []


def test_r12_no_going_down_when_the_cards_meet_no_contract():
    assert moves(going_down(1, "8C 8D 5S 5H 2C KH QS 9D 4H 7S"), 0).go_down == []


def test_r12_a_card_two_melds_want_is_found_a_place_the_bots_quick_search_misses():
    """Hand 2: the run 4H-7H needs the 7H, and so would a set of all four sevens; 7C 7D 7S is the set."""
    held = "4H 5H 6H 7H 7C 7D 7S 2C KH QS"
    given = going_down(2, held)
    assert find_contract(tuple(cards(held + " 2D")), 2) is None
    melds = moves(given, 0).go_down
    assert sorted(map(sorted, melds)) == [sorted(cards("4H 5H 6H 7H")), sorted(cards("7C 7D 7S"))]
    assert accepted(play(given, [GoDown(seat=0, melds=melds)]))


def test_r12_a_joker_stands_in_a_run_for_a_card_the_hand_holds_so_that_a_set_gets_its_natural():
    """Hand 2 with four jokers: the set's only natural can be the 7H, so a joker takes its place in the run."""
    given = going_down(2, "4H 5H 6H 7H JK JK JK JK 2C 3D")
    melds = moves(given, 0).go_down
    assert melds
    assert accepted(play(given, [GoDown(seat=0, melds=melds)]))


def test_r12a_two_runs_of_one_suit_that_join_into_one_are_not_offered():
    assert moves(going_down(3, "AC 2C 3C 4C 5C 6C 7C 8C KH QD"), 0).go_down == []


def test_r12a_two_runs_of_one_suit_apart_are_offered():
    given = going_down(3, "AC 2C 3C 4C 5C 6C 7C 8C 9C QD")
    melds = moves(given, 0).go_down
    assert melds
    assert accepted(play(given, [GoDown(seat=0, melds=melds)]))


def test_r15_no_going_down_that_would_leave_no_card_to_discard():
    given = dealt("8C 8D 8H 5S 5H", "AH 4D 6H 9S", stock="5D 4C") + [drew(0, "5D")]
    assert refusal(play(given, [GoDown(seat=0, melds=[cards("8C 8D 8H"), cards("5S 5H 5D")])])) == "must_keep_discard"
    assert moves(given, 0).go_down == []


# --- R13: laying off -------------------------------------------------------------------

MINE = ("KC KD KH", "4H 5H 6H 7H")       # seat 0's set (0, 0) and run (0, 1)
THEIRS = ("QC QD JK", "2C 3C 4C 5C")     # seat 1's set (1, 0) and run (1, 1)


def seat_0_down_and_drawn(keeps: str = "KS 3H 8H 9H JK 8D AC", drawn: str = "3D"):
    """Hand 2, two seats, both down; seat 0 has drawn `drawn` and holds `keeps` besides, and is to lay off."""
    given = dealt(" ".join(MINE) + f" {keeps}", " ".join(THEIRS) + " 2D", stock=f"3S 4S 5S {drawn}", hand=2)
    return given + [
        drew(0, "3S"), went_down(0, *MINE), discarded(0, "3S"),
        drew(0, "4S"), discarded(0, "4S"),
        drew(1, "5S"), went_down(1, *THEIRS), discarded(1, "2D"),
        drew(0, drawn),
    ]


def test_r13_every_card_and_meld_end_that_takes_it_is_offered():
    offered = {(m.card, m.owner, m.index, m.end) for m in moves(seat_0_down_and_drawn(), 0).lay_off}
    assert offered == {
        ("KS", 0, 0, None), ("3H", 0, 1, "low"), ("8H", 0, 1, "high"), ("AC", 1, 1, "low"),
        ("JK", 0, 0, None), ("JK", 0, 1, "low"), ("JK", 0, 1, "high"),
        ("JK", 1, 0, None), ("JK", 1, 1, "low"), ("JK", 1, 1, "high"),
    }


def test_r13_the_offered_lay_offs_are_accepted():
    given = seat_0_down_and_drawn()
    for move in moves(given, 0).lay_off:
        assert accepted(play(given, [LayOff(seat=0, target=(move.owner, move.index), card=move.card, end=move.end)]))


def test_r13_the_cards_come_in_the_order_the_seat_holds_them():
    seen = moves(seat_0_down_and_drawn(), 0)
    order = [card for card in seen.discard if any(m.card == card for m in seen.lay_off)]
    assert order == list(dict.fromkeys(m.card for m in seen.lay_off))


def test_r13_no_laying_off_before_going_down():
    given = dealt(" ".join(MINE) + " KS 9D", " ".join(THEIRS) + " 2D", stock="3S 4S", hand=2) + [drew(0, "3S")]
    assert moves(given, 0).lay_off == []


def test_r13_no_laying_off_out_of_turn():
    assert moves(seat_0_down_and_drawn(), 1).lay_off == []


def test_r15_no_laying_off_the_last_card():
    given = seat_0_down_and_drawn(keeps="", drawn="KS")
    assert play(given).state.hands[0] == ("KS",)
    assert moves(given, 0).lay_off == []


# --- R14: joker swaps ------------------------------------------------------------------

def seat_1_went_down_with_jokers():
    """Hand 2, three seats: seat 1 went down with the set QC QD JK and the run 5C 6C JK 8C; seat 2 is
    to play and has not drawn; seats 0 and 2 hold the 7C."""
    given = dealt("7C 9C QH 2D 3D", "QC QD JK 5C 6C JK 8C 4D", "7C 6C 8H 4H AH", stock="2S 3S 4S 5S 6S", hand=2)
    return given + first_turns(0, "2S", "2S", "3S", "3S") + [
        drew(1, "4S"), went_down(1, "QC QD JK", "5C 6C JK 8C"), discarded(1, "4D"),
    ]


def test_r14_any_seat_holding_the_card_may_swap_the_joker_out_of_turn_and_before_it_drew():
    given = seat_1_went_down_with_jokers()
    assert moves(given, 0).swap_joker == [JokerSwapMove(card="7C", owner=1, index=1)]
    assert moves(given, 2).swap_joker == [JokerSwapMove(card="7C", owner=1, index=1)]
    assert accepted(play(given, [SwapJoker(seat=0, target=(1, 1), card="7C")]))


def test_r14_a_joker_in_a_set_is_never_offered():
    """Seat 0 holds QH, a card of the set QC QD JK's rank: the set's joker stays."""
    seen = moves(seat_1_went_down_with_jokers(), 0)
    assert all(move.index != 0 for move in seen.swap_joker)


def test_r14_no_swap_without_the_card_the_joker_stands_for():
    assert moves(seat_1_went_down_with_jokers(), 1).swap_joker == []


# --- R9: the discard -------------------------------------------------------------------

def test_r09_after_the_draw_every_card_held_may_be_discarded_each_once():
    given = fresh_hand() + [drew(0, "9C")]
    assert moves(given, 0).discard == ["2C", "KH", "3D", "9S", "QD", "9C"]


def test_r09_two_copies_of_a_card_are_offered_once():
    given = fresh_hand() + [drew(0, "2C")]
    assert moves(given, 0).discard == ["2C", "KH", "3D", "9S", "QD"]


def test_r09_no_discard_before_the_draw_or_out_of_turn():
    given = fresh_hand() + [drew(0, "9C")]
    assert moves(fresh_hand(), 0).discard == []
    assert moves(given, 1).discard == []


# --- R18: no hand in play ----------------------------------------------------------------

def test_r18_no_moves_before_a_game_or_for_a_seat_the_table_does_not_have():
    assert legal_moves(GameState(), 0) == SeatMoves()
    assert moves(fresh_hand(), 3) == SeatMoves()
    assert moves(fresh_hand(), -1) == SeatMoves()


def test_r18_r23_once_the_hand_is_over_a_seat_may_only_say_it_is_ready():
    """Seat 0 holds exactly its contract and the KH it draws, goes down and goes out on the KH (R15);
    the game pauses for its people (R23), each of whom may say ready, once."""
    given = dealt("8C 8D 8H 5S 5H 5D", "AH 4D 6H 9S", "3S 5C 8S 9C", stock="KH 4C") + [
        drew(0, "KH"), went_down(0, "8C 8D 8H", "5S 5H 5D")]
    then = play(given, [Discard(seat=0, card="KH")])
    assert then.state.hand_over
    assert [legal_moves(then.state, seat) for seat in range(3)] == [SeatMoves(ready=True)] * 3
    after = play(given, [Discard(seat=0, card="KH"), Ready(seat=1)])
    assert legal_moves(after.state, 1) == SeatMoves() and legal_moves(after.state, 0) == SeatMoves(ready=True)


def test_r18_a_take_offered_is_accepted_and_one_not_offered_is_refused():
    given = seat_0_discarded_kh()
    assert accepted(play(given, [TakeDiscard(seat=1)]))
    assert refusal(play(given, [TakeDiscard(seat=2)])) == "not_your_turn"
    assert not moves(given, 2).take_discard
