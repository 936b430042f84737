"""R24.5, R24.6, R24.9, R24.10, R24.11: where the presets follow their published sources rather than
Zioncheck, and the house options that play Zioncheck's reading instead (contracts Rules).

The scenarios tests/scenarios/r24_*.json show the same from outside; these add the house options, the
moves a seat's view lists, and what the log and a state's hash keep.
"""
from collections import Counter

import msgspec
import pytest

from given import as_run, cards, dealt, discarded, drew, play, refusal, under, went_down
from zioncheck.application.replay import state_hash
from zioncheck.application.turns import play_turn
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Discard,
    DrawStock,
    GoDown,
    HandRule,
    LayOff,
    Limits,
    Rules,
    StartGame,
    SwapJoker,
    TakeDiscard,
    TurnTimeout,
)
from zioncheck.contracts.events import (
    ClaimFailed,
    ClaimWon,
    Discarded,
    GameStarted,
    HandEnded,
    LaidOff,
    Rejected,
    StockDrawn,
)
from zioncheck.contracts.log import decode_event, encode
from zioncheck.domain import GameState, decide, evolve
from zioncheck.domain.claims import held
from zioncheck.domain.legal import legal_moves
from zioncheck.domain.presets import CONTRACT_RUMMY, LIVERPOOL, ZIONCHECK, hashed, ruleset_of
from zioncheck.domain.refusal import refusal_of

CONTRACT = Rules(preset="contract")
LIVERPOOL_RULES = Rules(preset="liverpool")
SEAT_0 = "8C 8D 8H 5S 5H 5D 2C KH QS JK"
SEAT_1 = "AH 4D 6H 9S QC 3D 7H AD 9D 2S"
SEAT_2 = "3S 5C 8S 10H KS 4H 6C 7C 7D JC"
SEAT_3 = "2H 2D 6D 10C JS QH KC 4S 9H 3C"
STOCK = "9C 4C 10S JD QD KD 2H 3H"


# --- R24.5 who wins a buy: the first call ----------------------------------------------------------

def kh_on_the_pile(rules: Rules):
    """Four seats; seat 0 drew 9C and discarded KH (no second turn where an upcard starts the pile); seat 1
    is to play. Under Zioncheck, seat 0 plays twice first (R11)."""
    given = under(rules, dealt(SEAT_0, SEAT_1, SEAT_2, SEAT_3, stock=STOCK))
    if ruleset_of(rules).first_twice:
        return given + [drew(0, "9C"), discarded(0, "2C"), drew(0, "4C"), discarded(0, "KH")]
    return given + [drew(0, "9C"), discarded(0, "KH")]


@pytest.mark.parametrize("rules", [CONTRACT, LIVERPOOL_RULES])
def test_r24_5_the_first_claim_in_the_commands_stream_buys_the_card(rules):
    then = play(kh_on_the_pile(rules), [ClaimDiscard(seat=3), ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert ClaimWon(seat=3, card="KH") in then.last
    assert ClaimFailed(seat=2, card="KH", why="nearer_claimant") in then.last
    assert "KH" in then.state.hands[3] and "KH" not in then.state.hands[2]


def test_r24_5_a_house_may_give_the_buy_to_the_nearest_seat_as_zioncheck_does():
    then = play(kh_on_the_pile(Rules(preset="contract", buys="nearest")),
                [ClaimDiscard(seat=3), ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert ClaimWon(seat=2, card="KH") in then.last


def test_r24_5_zioncheck_may_take_the_first_call_as_a_house_option_and_still_charges_nothing():
    then = play(kh_on_the_pile(Rules(buys="first")), [ClaimDiscard(seat=3), ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert [type(e).__name__ for e in then.last] == ["StockDrawn", "ClaimWon", "ClaimFailed"]
    assert then.last[1] == ClaimWon(seat=3, card="KH")


def test_r24_5_the_turn_player_keeps_first_refusal_over_the_first_call():
    then = play(kh_on_the_pile(CONTRACT), [ClaimDiscard(seat=3), TakeDiscard(seat=1)])
    assert "KH" in then.state.hands[1]
    assert then.last[1:] == [ClaimFailed(seat=3, card="KH", why="turn_player_took")]


def test_r24_5_a_claim_after_the_draw_is_too_late_whoever_called_first():
    then = play(kh_on_the_pile(CONTRACT), [DrawStock(seat=1), ClaimDiscard(seat=3)])
    assert refusal(then) == "claim_window_closed"


def test_r24_5_the_buyer_takes_the_stocks_top_card_and_the_turn_player_the_next():
    then = play(kh_on_the_pile(CONTRACT), [ClaimDiscard(seat=2), DrawStock(seat=1)])
    assert Counter(then.state.hands[2]) == Counter(cards(SEAT_2) + ["KH", "4C"])
    assert Counter(then.state.hands[1]) == Counter(cards(SEAT_1) + ["10S"])
    assert list(then.state.stock) == cards("JD QD KD 2H 3H")


# --- R24.9 Liverpool: a seat that has gone down takes nothing from the pile -----------------------------

def seat_0_down(rules: Rules):
    """Seat 0 went down in its first turn; seats 1 and 2 played theirs; seat 2's 3S is on the pile."""
    given = under(rules, dealt(SEAT_0, SEAT_1, SEAT_2, stock=STOCK))
    return given + [drew(0, "9C"), went_down(0, "8C 8D 8H JK", "5S 5H 5D"), discarded(0, "2C"),
                    drew(1, "4C"), discarded(1, "AH"), drew(2, "10S"), discarded(2, "3S")]


def test_r24_9_in_liverpool_a_seat_that_is_down_may_not_take_the_discard():
    then = play(seat_0_down(LIVERPOOL_RULES), [TakeDiscard(seat=0)])
    assert refusal(then) == "down_cannot_take"
    assert not legal_moves(then.state, 0).take_discard and legal_moves(then.state, 0).draw_stock


def test_r24_9_in_liverpool_a_seat_that_is_down_may_not_buy_the_discard():
    given = play(seat_0_down(LIVERPOOL_RULES), [DrawStock(seat=0), Discard(seat=0, card="KH")])
    assert not legal_moves(given.state, 0).claim and legal_moves(given.state, 2).claim
    then = play(given.state, [DrawStock(seat=1), Discard(seat=1, card="4D"), ClaimDiscard(seat=0)])
    assert refusal(then) == "down_cannot_take"


def test_r24_9_a_seat_not_yet_down_still_takes_and_buys_in_liverpool():
    then = play(seat_0_down(LIVERPOOL_RULES), [ClaimDiscard(seat=1), DrawStock(seat=0)])
    assert ClaimWon(seat=1, card="3S") in then.last


@pytest.mark.parametrize("rules", [CONTRACT, Rules(), Rules(preset="liverpool", buy_when_down=True)])
def test_r24_9_contract_rummy_zioncheck_and_a_house_option_let_a_seat_that_is_down_take(rules):
    given = seat_0_down(rules)
    if ruleset_of(rules).first_twice:   # Zioncheck's seat 0 owes its second turn first (R11)
        given = given[:5] + [drew(0, "4C"), discarded(0, "KH")] + [
            drew(1, "10S"), discarded(1, "AH"), drew(2, "JD"), discarded(2, "3S")]
    assert refusal(play(given, [TakeDiscard(seat=0)])) is None


@pytest.mark.parametrize(("rules", "holds"), [(LIVERPOOL_RULES, False), (Rules(preset="liverpool", buy_when_down=True),
                                                                        True)])
def test_r24_9_a_person_who_is_down_holds_no_claim_window_in_liverpool(rules, holds):
    """R22: a bot's draw waits for a person who could claim; in Liverpool, one who is down cannot."""
    given = under(rules, dealt(SEAT_0, SEAT_1, SEAT_2, stock=STOCK))
    given[0] = msgspec.structs.replace(given[0], seats=["person", "greedy", "greedy"], limits=Limits())
    state = play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards("8C 8D 8H JK"), cards("5S 5H 5D")]),
                         Discard(seat=0, card="KH"), DrawStock(seat=1), Discard(seat=1, card="AH")]).state
    assert state.turn == 2 and held(state) == holds


# --- R24.10 Contract: laying off the last card goes out ----------------------------------------------

def holding_8s(rules: Rules):
    """Three seats; seat 0 went down with KC KD KH and 8C 8D 8H and holds 8S alone; KS is the stock's top."""
    given = under(rules, dealt("KC KD KH 8C 8D 8H 8S", SEAT_1, SEAT_2, stock="4S 5D 6D KS 2D"))
    return given + [drew(0, "4S"), went_down(0, "KC KD KH", "8C 8D 8H"), discarded(0, "4S"),
                    drew(1, "5D"), discarded(1, "AH"), drew(2, "6D"), discarded(2, "3S")]


LAY_BOTH = [DrawStock(seat=0), LayOff(seat=0, target=(0, 1), card="8S"), LayOff(seat=0, target=(0, 0), card="KS")]


def test_r24_10_in_contract_rummy_laying_off_the_last_card_goes_out():
    then = play(holding_8s(CONTRACT), LAY_BOTH)
    assert [type(e) for e in then.last] == [LaidOff, HandEnded]
    assert then.state.hand_over and then.state.winner == 0 and then.state.scores[0] == 0
    assert then.state.hands[0] == ()


def test_r24_10_the_last_card_a_seat_may_lay_off_is_among_its_moves():
    then = play(holding_8s(CONTRACT), LAY_BOTH[:2])
    assert [move.card for move in legal_moves(then.state, 0).lay_off] == ["KS"]
    assert legal_moves(play(holding_8s(LIVERPOOL_RULES), LAY_BOTH[:2]).state, 0).lay_off == []


@pytest.mark.parametrize("rules", [LIVERPOOL_RULES, Rules(preset="contract", out_by_laying_off=False)])
def test_r24_10_liverpool_and_a_house_option_keep_the_last_card_to_discard(rules):
    assert refusal(play(holding_8s(rules), LAY_BOTH)) == "must_keep_discard"


def test_r24_10_a_house_may_let_liverpool_go_out_by_laying_off():
    assert play(holding_8s(Rules(preset="liverpool", out_by_laying_off=True)), LAY_BOTH).state.winner == 0


def test_r24_10_going_down_still_keeps_a_card_to_discard_in_contract_rummy():
    given = under(CONTRACT, dealt("KC KD KH 8C 8D 8H", SEAT_1, SEAT_2, stock="8S 5D"))
    then = play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards("KC KD KH"), cards("8C 8D 8H 8S")])])
    assert refusal(then) == "must_keep_discard"


# --- R24.11 Contract: a card laid in a joker's place moves the joker to an end -------------------------

def joker_in_a_run(rules: Rules, run: str = "5S 6S JK 8S", holds: str = "7S KH 2C"):
    """Hand 2 (a set and a run): seat 0 went down with 8C 8D 8H and `run`, holds `holds`, and is to draw; seat
    1 holds 7S too."""
    run_cards = cards(run)
    given = under(rules, dealt(" ".join(["8C", "8D", "8H", *run_cards, *cards(holds)]), "7S 4D 6H", SEAT_2,
                               stock="9C 4C 10S JD QD", hand=2))
    return given + [drew(0, "9C"), went_down(0, "8C 8D 8H", as_run(run)), discarded(0, "9C"),
                    drew(1, "4C"), discarded(1, "4D"), drew(2, "10S"), discarded(2, "3S")]


@pytest.mark.parametrize(("end", "run"), [("high", ["5S", "6S", "7S", "8S", "JK"]),
                                          ("low", ["JK", "5S", "6S", "7S", "8S"])])
def test_r24_11_a_card_laid_in_the_jokers_place_moves_the_joker_to_the_end_named(end, run):
    then = play(joker_in_a_run(CONTRACT), [DrawStock(seat=0), LayOff(seat=0, target=(0, 1), card="7S", end=end)])
    assert then.last == [LaidOff(seat=0, owner=0, index=1, card="7S", end=end, position=2)]
    assert list(then.state.table[1].cards) == run
    assert "JK" not in then.state.hands[0] and "7S" not in then.state.hands[0]


def test_r24_11_the_joker_then_stands_for_the_card_past_its_new_end():
    then = play(joker_in_a_run(CONTRACT), [DrawStock(seat=0), LayOff(seat=0, target=(0, 1), card="7S", end="low")])
    meld = then.state.table[1]
    assert (meld.low, meld.high) == (4, 8)   # JK is the 4 of spades now


def test_r24_11_with_both_ends_open_the_end_must_be_named():
    then = play(joker_in_a_run(CONTRACT), [DrawStock(seat=0), LayOff(seat=0, target=(0, 1), card="7S")])
    assert refusal(then) == "ambiguous_end"


def test_r24_11_a_run_that_ends_with_an_ace_sends_the_joker_to_its_other_end():
    then = play(joker_in_a_run(CONTRACT, run="JS QS JK AS", holds="KS KH 2C"),
                [DrawStock(seat=0), LayOff(seat=0, target=(0, 1), card="KS")])
    assert list(then.state.table[1].cards) == ["JK", "JS", "QS", "KS", "AS"]


def test_r24_11_a_run_from_ace_to_ace_has_no_room_for_its_joker_and_takes_no_card_in_its_place():
    run = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS JK AS"
    then = play(joker_in_a_run(CONTRACT, run=run, holds="KS KH 2C"),
                [DrawStock(seat=0), LayOff(seat=0, target=(0, 1), card="KS", end="high")])
    assert refusal(then) == "cannot_lay_off"


def test_r24_11_the_joker_cannot_be_taken_into_a_hand_in_contract_rummy():
    then = play(joker_in_a_run(CONTRACT), [SwapJoker(seat=1, target=(0, 1), card="7S")])
    assert refusal(then) == "joker_stays"
    assert legal_moves(then.state, 1).swap_joker == []


def test_r24_11_a_seat_not_yet_down_lays_nothing_in_a_jokers_place():
    then = play(joker_in_a_run(CONTRACT), [DrawStock(seat=0), Discard(seat=0, card="2C"), DrawStock(seat=1),
                                           LayOff(seat=1, target=(0, 1), card="7S", end="high")])
    assert refusal(then) == "not_down"


def test_r24_11_each_end_the_joker_may_move_to_is_a_move_the_seat_is_offered():
    state = play(joker_in_a_run(CONTRACT), [DrawStock(seat=0)]).state
    offered = [(m.card, m.owner, m.index, m.end) for m in legal_moves(state, 0).lay_off]
    assert offered == [("7S", 0, 1, "low"), ("7S", 0, 1, "high")]


@pytest.mark.parametrize("rules", [Rules(preset="contract", joker_swaps="take"), LIVERPOOL_RULES, Rules()])
def test_r24_11_a_house_option_liverpool_and_zioncheck_swap_the_joker_into_a_hand_as_r14_says(rules):
    given = joker_in_a_run(rules)
    if ruleset_of(rules).first_twice:   # Zioncheck's seat 0 owes its second turn first (R11)
        given = given[:-4]
    then = play(given, [SwapJoker(seat=1, target=(0, 1), card="7S")])
    assert refusal(then) is None and "JK" in then.state.hands[1]
    assert list(then.state.table[1].cards) == ["5S", "6S", "7S", "8S"]


def test_r24_11_a_plain_lay_off_is_logged_as_it_always_was():
    assert b"position" not in encode(LaidOff(seat=0, owner=0, index=1, card="9S", end="high"))
    moved = LaidOff(seat=0, owner=0, index=1, card="7S", end="high", position=2)
    assert b'"position":2' in encode(moved) and decode_event(encode(moved)) == moved


# --- R24.6 a house may lay Contract rummy's last hand whole -----------------------------------------------

def test_r24_6_a_house_may_lay_contract_rummys_last_hand_whole_and_play_liverpools_as_any_other():
    assert ruleset_of(Rules(preset="contract", last_whole=True)).contracts[-1].whole
    assert not ruleset_of(Rules(preset="liverpool", last_whole=False)).contracts[-1].whole
    assert ruleset_of(Rules(preset="contract", last_whole=True)).contracts[:-1] == CONTRACT_RUMMY.contracts[:-1]


def test_r24_6_a_last_hand_no_longer_laid_whole_must_deal_a_card_to_discard():
    short = Rules(preset="liverpool", hands=(HandRule(dealt=11, sets=0, runs=3, whole=True),), last_whole=False)
    start = StartGame(game_id="g", players=3, rules=short)
    assert refusal_of(decide(GameState(), start)).reason == "bad_command"


# --- the log keeps the house options, and a state's hash what it was ---------------------------------------

@pytest.mark.parametrize("rules", [Rules(preset="contract", buys="loudest"),  # type: ignore[arg-type]
                                   Rules(preset="liverpool", joker_swaps="keep"),  # type: ignore[arg-type]
                                   Rules(preset="liverpool", buy_when_down="yes")])  # type: ignore[arg-type]
def test_r24_7_a_house_option_of_no_known_value_is_refused(rules):
    rejected = refusal_of(decide(GameState(), StartGame(game_id="g", players=3, rules=rules)))
    assert rejected is not None and rejected.reason == "bad_command"


def test_r24_house_options_left_out_are_not_written():
    assert encode(Rules(preset="contract")) == b'{"preset":"contract"}'
    assert msgspec.json.decode(b'{"preset":"liverpool"}', type=Rules) == LIVERPOOL_RULES


def test_r24_house_options_are_carried_in_the_games_start():
    rules = Rules(preset="contract", buys="nearest", joker_swaps="take", out_by_laying_off=False, last_whole=True)
    [event] = decide(GameState(), StartGame(game_id="g", players=3, rules=rules))
    assert isinstance(event, GameStarted) and decode_event(encode(event)) == event
    state = evolve(GameState(), event)
    assert (state.rules.buys, state.rules.joker_swaps, state.rules.out_by_laying_off) == ("nearest", "take", False)


def test_r24_a_presets_hash_names_what_it_named_before_its_published_readings():
    before = {"preset", "contracts", "third_deck_from", "jokers", "joker_count", "pips", "upcard", "first_twice",
              "penalty_card"}
    assert set(hashed(CONTRACT_RUMMY)) == set(hashed(LIVERPOOL)) == before
    assert set(hashed(ruleset_of(Rules(preset="contract", buys="nearest")))) == before | {"buys"}


def test_r24_a_house_option_changes_a_games_hash():
    def started(rules: Rules) -> GameState:
        [event] = decide(GameState(), StartGame(game_id="g", players=3, rules=rules))
        return evolve(GameState(), event)
    assert state_hash(started(CONTRACT)) != state_hash(started(Rules(preset="contract", buys="nearest")))
    assert started(Rules(buys="nearest")).rules == ZIONCHECK


# --- the bot that plays a timed-out turn (R19) and the terminal know these readings ---------------------

def test_r19_r24_9_a_timed_out_turn_of_a_seat_that_is_down_draws_from_the_stock_in_liverpool():
    """The greedy bot would take a discard that fits a meld on the table; R24.9 refuses it, so it draws."""
    given = under(LIVERPOOL_RULES, dealt(SEAT_0, SEAT_1, "3S 5C 8S 10H KS 4H 6C 7C 7D 8S", stock=STOCK))
    state = play(given + [drew(0, "9C"), went_down(0, "8C 8D 8H JK", "5S 5H 5D"), discarded(0, "2C"),
                          drew(1, "4C"), discarded(1, "AH"), drew(2, "10S"), discarded(2, "8S")], []).state
    events = play_turn(state, TurnTimeout(hand=1, turn=state.turn_no), lambda request: None)
    assert not [e for e in events if isinstance(e, Rejected)]
    assert events[1] == StockDrawn(seat=0, card="JD") and isinstance(events[-1], Discarded)


def test_r24_11_the_terminal_tells_a_joker_moved_to_an_end(monkeypatch):
    from zioncheck.cli import live, words
    monkeypatch.setattr(words, "language", "en")
    moved = LaidOff(seat=0, owner=1, index=0, card="7S", end="high", position=2)
    assert live.narrate(moved, GameState()) == [
        "  seat 0 lays 7S in the joker's place in seat 1's meld 1; the joker moves to its high end"]
