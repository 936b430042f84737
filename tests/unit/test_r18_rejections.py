"""R18: a rejected command changes nothing and says why; the first reason in R18's list is given."""
import msgspec
import pytest

from given import as_run, cards, dealt, discarded, drew, first_turns, given_state, play, refusal, under, went_down
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Deal,
    Discard,
    DrawStock,
    GoDown,
    LayOff,
    Ready,
    Reshuffle,
    Rules,
    StartGame,
    SwapJoker,
    TakeDiscard,
    TurnTimeout,
)
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.log import decode_event, encode, tag_of
from zioncheck.contracts.reasons import explain, explain_refusal
from zioncheck.domain import GameState, decide
from zioncheck.domain.refusal import REASONS

SEAT_0 = "8C 8D 8H 5S 5H 5D 2C KH QS JK"
SEAT_1 = "AH 4D 6H 9S QC 3D 7H AD 9D 2S"
SEAT_2 = "3S 5C 8S 10H KS 4H 6C 7C 7D JC"
STOCK = "9C 4C 10S JD QD KD 2H 3H"
SETS = [cards("8C 8D 8H"), cards("5S 5H 5D")]


def fresh():
    """Hand 1, three seats; seat 0 is to play first (R8, R11)."""
    return dealt(SEAT_0, SEAT_1, SEAT_2, stock=STOCK)


def seat_0_second_turn():
    """Seat 0 drew 9C and discarded 2C: its second turn (R11), the top discard its own."""
    return fresh() + [drew(0, "9C"), discarded(0, "2C")]


def seat_0_discarded_kh():
    """Seat 0 played both first turns, discarding KH last; seat 1 is to play; the window is open."""
    return fresh() + first_turns(0, "9C", "2C", "4C", "KH")


def seat_0_down():
    """Seat 0 went down with two sets (a joker in the first) in its first turn; its second turn is next."""
    return fresh() + [drew(0, "9C"), went_down(0, "8C 8D 8H JK", "5S 5H 5D"), discarded(0, "2C")]


def seat_0_down_with_a_run():
    """Hand 2: seat 0 went down with 8C 8D 8H and 5S..8S, holds 8S JK and is to draw 9S next."""
    given = dealt("8C 8D 8H 5S 6S 7S 8S 8S JK", SEAT_1, SEAT_2, stock="9C 9S 4C", hand=2)
    return given + [drew(0, "9C"), went_down(0, "8C 8D 8H", "5S 6S 7S 8S"), discarded(0, "9C")]


def seat_0_down_holding(keeps: str, draws: str):
    """Seat 0 went down with two sets of kings and eights, holds `keeps` and draws `draws` next."""
    given = dealt(f"KC KD KH 8C 8D 8H {keeps}", SEAT_1, SEAT_2, stock=f"9C {draws}")
    return given + [drew(0, "9C"), went_down(0, "KC KD KH", "8C 8D 8H"), discarded(0, "9C")]


def seat_1_a_bot_after_kh():
    """As seat_0_discarded_kh, with a house bot in seat 1: a person (seat 2) may claim KH (R22)."""
    given = seat_0_discarded_kh()
    start = given[0]
    return [msgspec.structs.replace(start, seats=["person", "greedy", "person"]), *given[1:]]


def hand_over():
    """Seat 0 went out at once in hand 1 (R15)."""
    given = dealt("8C 8D 8H 5S 5H 5D", SEAT_1, SEAT_2, stock="KH 4C")
    return play(given, [DrawStock(seat=0), GoDown(seat=0, melds=SETS), Discard(seat=0, card="KH")])


def game_over():
    """Seat 0 went out at once in hand 6 (R17)."""
    melds = ["3S 4S 5S 6S", "9H 10H JH QH", "8C 8D 8H", "KC KD KH"]
    given = dealt(" ".join(melds), SEAT_1, SEAT_2, stock="2C 4C", hand=6)
    return play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards(m) for m in melds]),
                        Discard(seat=0, card="2C")])


def liverpool_seat_0_down():
    """R24.9: Liverpool rummy; seat 0 went down in its turn, seats 1 and 2 played theirs, seat 2 discarded 3S."""
    given = under(Rules(preset="liverpool"), fresh())
    return given + [drew(0, "9C"), went_down(0, "8C 8D 8H JK", "5S 5H 5D"), discarded(0, "2C"),
                    drew(1, "4C"), discarded(1, "AH"), drew(2, "10S"), discarded(2, "3S")]


def contract_seat_0_down_with_a_joker():
    """R24.11: Contract rummy, hand 2; seat 0 went down with 8C 8D 8H and 5S 6S JK 8S; seat 1 holds 7S."""
    given = under(Rules(preset="contract"), dealt("8C 8D 8H 5S 6S JK 8S 2C KH", "7S 4D 6H", SEAT_2, stock="9C 4C",
                                                  hand=2))
    return given + [drew(0, "9C"), went_down(0, "8C 8D 8H", as_run("5S 6S JK 8S")), discarded(0, "9C")]


def lay(seat: int, *melds: str) -> GoDown:
    return GoDown(seat=seat, melds=[cards(m) for m in melds])


# One way to reach each reason: (given, commands); the last command is refused for it.
REACHED = {
    "bad_command": (fresh, [DrawStock(seat=0), Discard(seat=0, card="ZZ")]),
    "unknown_seat": (fresh, [DrawStock(seat=3)]),
    "game_over": (game_over, [DrawStock(seat=1)]),
    "hand_over": (hand_over, [DrawStock(seat=1)]),
    "not_your_turn": (fresh, [DrawStock(seat=1)]),
    "cannot_take_own_discard": (seat_0_second_turn, [TakeDiscard(seat=0)]),
    "turn_player_cannot_claim": (seat_0_discarded_kh, [ClaimDiscard(seat=1)]),
    "no_discard": (fresh, [ClaimDiscard(seat=1)]),
    "claim_window_closed": (seat_0_discarded_kh, [DrawStock(seat=1), ClaimDiscard(seat=2)]),
    "already_claimed": (seat_0_discarded_kh, [ClaimDiscard(seat=2), ClaimDiscard(seat=2)]),
    "must_draw_first": (fresh, [Discard(seat=0, card="2C")]),
    "already_drew": (fresh, [DrawStock(seat=0), DrawStock(seat=0)]),
    "already_down": (seat_0_down, [DrawStock(seat=0), lay(0, "KH QS JK", "9C 4C 2C")]),
    "not_down": (fresh, [DrawStock(seat=0), LayOff(seat=0, target=(0, 0), card="8C")]),
    "card_not_in_hand": (fresh, [DrawStock(seat=0), Discard(seat=0, card="AS")]),
    "no_such_meld": (seat_0_down, [DrawStock(seat=0), LayOff(seat=0, target=(1, 0), card="QS")]),
    "invalid_meld": (fresh, [DrawStock(seat=0), lay(0, "8C 8D 8H", "5S 5H 2C")]),
    "contract_not_met": (fresh, [DrawStock(seat=0), lay(0, "8C 8D 8H")]),
    "joker_in_set": (seat_0_down, [SwapJoker(seat=1, target=(0, 0), card="9S")]),
    "no_joker_to_swap": (seat_0_down, [SwapJoker(seat=1, target=(0, 1), card="9S")]),
    "cannot_lay_off": (seat_0_down, [DrawStock(seat=0), LayOff(seat=0, target=(0, 0), card="KH")]),
    "ambiguous_end": (seat_0_down_with_a_run, [DrawStock(seat=0), LayOff(seat=0, target=(0, 1), card="JK")]),
    "must_keep_discard": (lambda: dealt("8C 8D 8H 5S 5H", SEAT_1, stock="5D 4C"),
                          [DrawStock(seat=0), lay(0, "8C 8D 8H", "5S 5H 5D")]),
    "down_cannot_take": (liverpool_seat_0_down, [TakeDiscard(seat=0)]),
    "joker_stays": (contract_seat_0_down_with_a_joker, [SwapJoker(seat=1, target=(0, 1), card="7S")]),
    "window_held": (seat_1_a_bot_after_kh, [DrawStock(seat=1)]),
    "not_paused": (fresh, [Ready(seat=0)]),
    "already_ready": (hand_over, [Ready(seat=0), Ready(seat=0)]),
    # Not a player's reason: a timer come after its turn (R19).
    "timer_stale": (fresh, [TurnTimeout(hand=1, turn=99)]),
    # Not a player's reason: the table reshuffles the pile and passes the draw on (R16).
    "stock_empty": (lambda: dealt(SEAT_0, SEAT_1, discard="2D 3D 4D"), [DrawStock(seat=0)]),
}


def reached(reason: str):
    given, when = REACHED[reason]
    return play(given(), when)


def test_r18_every_reason_is_listed_in_precedence_order():
    assert REASONS[:23] == (
        "bad_command", "unknown_seat", "game_over", "hand_over", "not_your_turn",
        "cannot_take_own_discard", "turn_player_cannot_claim", "no_discard",
        "claim_window_closed", "already_claimed", "must_draw_first", "already_drew",
        "already_down", "not_down", "card_not_in_hand", "no_such_meld", "invalid_meld",
        "contract_not_met", "joker_in_set", "no_joker_to_swap", "cannot_lay_off",
        "ambiguous_end", "must_keep_discard",
    )


def test_r18_every_reason_is_reached_by_some_command():
    assert set(REACHED) == set(REASONS)


def test_r18_the_reasons_are_a_closed_list_that_a_log_keeps():
    for reason in REASONS:
        refused = Rejected(seat=0, command="discard", reason=reason, detail="why")
        assert decode_event(encode(refused)) == refused
    line = encode(Rejected(seat=0, command="discard", reason="bad_command")).replace(b"bad_command", b"bored")
    with pytest.raises(msgspec.ValidationError, match="reason"):
        decode_event(line)


def test_r18_a_refusal_reads_as_its_sentence_then_its_detail():
    assert explain("not_your_turn") == "not your turn"
    assert explain_refusal("not_your_turn", "it is seat 2's turn, not seat 0's") == \
        "not your turn: it is seat 2's turn, not seat 0's"
    assert explain_refusal("no_discard") == "the discard pile is empty"


def test_r18_a_detail_that_opens_with_the_sentence_is_told_once():
    then = reached("card_not_in_hand")
    [rejected] = then.last
    assert explain_refusal(rejected.reason, rejected.detail) == rejected.detail
    assert explain_refusal("game_over", "the game is over") == "the game is over"


@pytest.mark.parametrize("reason", list(REACHED))
def test_r18_each_reason_is_given_when_it_applies(reason):
    assert refusal(reached(reason)) == reason


@pytest.mark.parametrize("reason", list(REACHED))
def test_r18_a_rejected_command_changes_nothing(reason):
    then = reached(reason)
    assert then.state == then.before


@pytest.mark.parametrize("reason", list(REACHED))
def test_r18_a_rejection_is_one_event_naming_seat_command_and_why(reason):
    then = reached(reason)
    [rejected] = then.last
    command = REACHED[reason][1][-1]
    assert isinstance(rejected, Rejected)
    assert rejected.seat == getattr(command, "seat", None)   # a timer's command names no seat
    assert rejected.command == tag_of(command)
    assert rejected.detail


def test_r18_a_card_not_in_hand_is_explained_with_the_hand():
    then = reached("card_not_in_hand")
    assert then.last[0].detail.startswith("card not in hand: AS (seat 0 holds 8C 8D 8H")


# --- precedence: when several reasons apply, the first in R18's list is given -----------

PRECEDENCE = [
    # (first, over, given, commands)
    ("bad_command", "unknown_seat", fresh, [Discard(seat=7, card="ZZ")]),
    ("bad_command", "game_over", game_over, [Discard(seat=1, card="ZZ")]),
    ("bad_command", "not_your_turn", fresh, [lay(1, "8C 8D 8H", "5S 5H XX")]),
    ("unknown_seat", "game_over", game_over, [DrawStock(seat=5)]),
    ("unknown_seat", "hand_over", hand_over, [DrawStock(seat=-1)]),
    ("game_over", "hand_over", game_over, [ClaimDiscard(seat=2)]),
    ("hand_over", "not_your_turn", hand_over, [DrawStock(seat=2)]),
    ("not_your_turn", "must_draw_first", fresh, [Discard(seat=1, card="AH")]),
    ("not_your_turn", "no_discard", fresh, [TakeDiscard(seat=1)]),
    ("not_your_turn", "card_not_in_hand", fresh, [lay(1, "8C 8D 8H", "5S 5H 5D")]),
    ("cannot_take_own_discard", "turn_player_cannot_claim", seat_0_second_turn, [ClaimDiscard(seat=0)]),
    ("cannot_take_own_discard", "claim_window_closed", seat_0_discarded_kh,
     [DrawStock(seat=1), ClaimDiscard(seat=0)]),
    ("cannot_take_own_discard", "already_drew", seat_0_second_turn, [DrawStock(seat=0), TakeDiscard(seat=0)]),
    ("turn_player_cannot_claim", "no_discard", fresh, [ClaimDiscard(seat=0)]),
    ("turn_player_cannot_claim", "claim_window_closed", seat_0_discarded_kh,
     [DrawStock(seat=1), ClaimDiscard(seat=1)]),
    ("no_discard", "claim_window_closed", fresh, [ClaimDiscard(seat=2)]),
    ("no_discard", "already_drew", fresh, [DrawStock(seat=0), TakeDiscard(seat=0)]),
    ("must_draw_first", "already_down", seat_0_down, [lay(0, "KH QS JK", "9C 4C 2C")]),
    ("must_draw_first", "not_down", fresh, [LayOff(seat=0, target=(0, 0), card="8C")]),
    ("must_draw_first", "card_not_in_hand", fresh, [Discard(seat=0, card="AS")]),
    ("already_down", "card_not_in_hand", seat_0_down, [DrawStock(seat=0), lay(0, "AS AS AS", "2S 2S 2S")]),
    ("not_down", "card_not_in_hand", fresh, [DrawStock(seat=0), LayOff(seat=0, target=(0, 0), card="AS")]),
    ("not_down", "no_such_meld", fresh, [DrawStock(seat=0), LayOff(seat=0, target=(2, 0), card="KH")]),
    ("card_not_in_hand", "no_such_meld", seat_0_down,
     [DrawStock(seat=0), LayOff(seat=0, target=(2, 0), card="AS")]),
    ("card_not_in_hand", "no_such_meld", seat_0_down, [SwapJoker(seat=1, target=(2, 5), card="KS")]),
    ("card_not_in_hand", "invalid_meld", fresh, [DrawStock(seat=0), lay(0, "AS 2D 9H", "5S 5H 5D")]),
    ("no_such_meld", "cannot_lay_off", seat_0_down, [DrawStock(seat=0), LayOff(seat=0, target=(0, 9), card="KH")]),
    ("no_such_meld", "no_joker_to_swap", seat_0_down, [SwapJoker(seat=1, target=(0, 9), card="9S")]),
    ("invalid_meld", "contract_not_met", fresh, [DrawStock(seat=0), lay(0, "8C 8D 5S")]),
    ("contract_not_met", "must_keep_discard", lambda: dealt("8C 8D 8H 5S 6S 7S", SEAT_1, stock="8S"),
     [DrawStock(seat=0), lay(0, "8C 8D 8H", "5S 6S 7S 8S")]),
    ("invalid_meld", "must_keep_discard", lambda: dealt("8C 8D 8H 5S 5H", SEAT_1, stock="7D"),
     [DrawStock(seat=0), lay(0, "8C 8D 8H", "5S 5H 7D")]),
    ("joker_in_set", "no_joker_to_swap", seat_0_down, [SwapJoker(seat=1, target=(0, 0), card="AH")]),
    ("cannot_lay_off", "must_keep_discard", lambda: seat_0_down_holding("KS", "QS"),
     [DrawStock(seat=0), LayOff(seat=0, target=(0, 0), card="KS"), LayOff(seat=0, target=(0, 0), card="QS")]),
    ("already_drew", "down_cannot_take", liverpool_seat_0_down, [DrawStock(seat=0), TakeDiscard(seat=0)]),
    ("claim_window_closed", "down_cannot_take", liverpool_seat_0_down,
     [DrawStock(seat=0), Discard(seat=0, card="KH"), DrawStock(seat=1), Discard(seat=1, card="4D"),
      DrawStock(seat=2), ClaimDiscard(seat=0)]),
    ("no_joker_to_swap", "joker_stays", contract_seat_0_down_with_a_joker,
     [SwapJoker(seat=1, target=(0, 1), card="4D")]),
    ("ambiguous_end", "must_keep_discard", seat_0_down_with_a_run,
     [DrawStock(seat=0), LayOff(seat=0, target=(0, 0), card="8S"), LayOff(seat=0, target=(0, 1), card="9S"),
      LayOff(seat=0, target=(0, 1), card="JK")]),
]


@pytest.mark.parametrize("first, over, given, when", PRECEDENCE,
                         ids=[f"{first}-over-{over}" for first, over, *_ in PRECEDENCE])
def test_r18_the_first_applicable_reason_in_the_list_is_given(first, over, given, when):
    assert REASONS.index(first) < REASONS.index(over)
    then = play(given(), when)
    assert refusal(then) == first
    assert then.state == then.before


def test_r18_the_seat_with_one_card_left_really_must_keep_it():
    """The precedence cases above are real: with a fitting card the same seat gets must_keep_discard."""
    then = play(seat_0_down_holding("KS", "QS"), [DrawStock(seat=0), LayOff(seat=0, target=(0, 0), card="KS"),
                                                  LayOff(seat=0, target=(0, 0), card="QS")])
    assert refusal(then) == "cannot_lay_off"
    then = play(seat_0_down_holding("KS", "KS"), [DrawStock(seat=0), LayOff(seat=0, target=(0, 0), card="KS"),
                                                  LayOff(seat=0, target=(0, 0), card="KS")])
    assert refusal(then) == "must_keep_discard"


# --- malformed commands and unknown seats ----------------------------------------------

NOT_CARDS = ["ZZ", "", "1C", "11H", "10", "JKK", "A", "AX", " ", "♠A"]


@pytest.mark.parametrize("text", NOT_CARDS)
def test_r18_a_discard_of_something_that_is_not_a_card_is_a_bad_command(text):
    then = play(fresh(), [DrawStock(seat=0), Discard(seat=0, card=text)])
    assert refusal(then) == "bad_command"


@pytest.mark.parametrize("text", NOT_CARDS)
def test_r18_a_meld_holding_something_that_is_not_a_card_is_a_bad_command(text):
    then = play(fresh(), [DrawStock(seat=0), GoDown(seat=0, melds=[cards("8C 8D 8H"), ["5S", "5H", text]])])
    assert refusal(then) == "bad_command"


@pytest.mark.parametrize("text", NOT_CARDS)
def test_r18_laying_off_something_that_is_not_a_card_is_a_bad_command(text):
    then = play(seat_0_down(), [DrawStock(seat=0), LayOff(seat=0, target=(0, 0), card=text)])
    assert refusal(then) == "bad_command"


@pytest.mark.parametrize("text", NOT_CARDS)
def test_r18_swapping_in_something_that_is_not_a_card_is_a_bad_command(text):
    then = play(seat_0_down(), [SwapJoker(seat=1, target=(0, 0), card=text)])
    assert refusal(then) == "bad_command"


def test_r18_a_deal_holding_something_that_is_not_a_card_is_a_bad_command():
    then = play(hand_over(), [Deal(hand=2, hands=[["2C"], ["3C"], ["4Q"]], stock=["5C"])])
    assert refusal(then) == "bad_command"


def test_r18_a_command_of_no_known_type_is_a_bad_command():
    class Shout(msgspec.Struct, tag="shout"):
        seat: int

    [rejected] = decide(given_state(fresh()), Shout(seat=0))
    assert rejected.reason == "bad_command"
    assert rejected.command == "shout"


def test_r18_a_game_cannot_start_twice():
    then = play(fresh(), [StartGame(game_id="again", players=3)])
    assert refusal(then) == "bad_command"


def test_r18_a_reshuffle_nobody_needs_is_a_bad_command():
    then = play(fresh(), [Reshuffle(hand=1, order=[])])
    assert refusal(then) == "bad_command"


SEAT_COMMANDS = [
    lambda seat: DrawStock(seat=seat),
    lambda seat: TakeDiscard(seat=seat),
    lambda seat: ClaimDiscard(seat=seat),
    lambda seat: GoDown(seat=seat, melds=SETS),
    lambda seat: LayOff(seat=seat, target=(0, 0), card="8S"),
    lambda seat: SwapJoker(seat=seat, target=(0, 0), card="8S"),
    lambda seat: Discard(seat=seat, card="2C"),
]
KINDS = ["draw_stock", "take_discard", "claim_discard", "go_down", "lay_off", "swap_joker", "discard"]


@pytest.mark.parametrize("seat", [-1, 3, 99])
@pytest.mark.parametrize("command", SEAT_COMMANDS, ids=KINDS)
def test_r18_a_seat_that_is_not_at_the_table_is_an_unknown_seat(command, seat):
    assert refusal(play(seat_0_discarded_kh(), [command(seat)])) == "unknown_seat"


@pytest.mark.parametrize("command", SEAT_COMMANDS, ids=KINDS)
def test_r18_every_seat_command_after_the_hand_ended_is_hand_over(command):
    for seat in range(3):
        assert refusal(play(hand_over(), [command(seat)])) == "hand_over"


@pytest.mark.parametrize("command", SEAT_COMMANDS, ids=KINDS)
def test_r18_every_seat_command_after_the_game_ended_is_game_over(command):
    for seat in range(3):
        assert refusal(play(game_over(), [command(seat)])) == "game_over"


def test_r18_a_deal_after_the_game_ended_is_game_over():
    then = play(game_over(), [Deal(hand=7, hands=[["2C"], ["3C"], ["4C"]], stock=["5C"])])
    assert refusal(then) == "game_over"


def test_r18_a_seat_command_before_any_deal_is_hand_over():
    started = play(dealt(SEAT_0, SEAT_1)[:1])
    assert refusal(play(started, [DrawStock(seat=0)])) == "hand_over"


def test_r18_a_seat_command_before_the_game_started_names_an_unknown_seat():
    [rejected] = decide(GameState(), DrawStock(seat=0))
    assert rejected.reason == "unknown_seat"


# --- reasons that concern claims only ------------------------------------------------

def test_r18_the_turn_player_takes_a_pile_that_never_had_a_claim_window():
    then = play(dealt(SEAT_0, SEAT_1, stock=STOCK, discard="QC"), [TakeDiscard(seat=0)])
    assert refusal(then) is None


def test_r18_the_turn_player_takes_a_discard_another_seat_claimed():
    then = play(seat_0_discarded_kh(), [ClaimDiscard(seat=2), TakeDiscard(seat=1)])
    assert refusal(then) is None


def test_r18_claims_are_never_refused_as_not_your_turn():
    for seat in (0, 2):
        assert refusal(play(seat_0_discarded_kh(), [ClaimDiscard(seat=seat)])) != "not_your_turn"


def test_r18_joker_swaps_are_never_refused_as_not_your_turn():
    assert refusal(play(seat_0_down(), [SwapJoker(seat=2, target=(0, 0), card="3S")])) == "joker_in_set"

