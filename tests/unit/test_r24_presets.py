"""R24: Contract rummy and Liverpool rummy as presets of a game's rules, and house options over them.

The points a scenario cannot show (tests/scenarios/r24_*.json show the others): the decks and jokers a
preset shuffles, the upcard the deal turns, the number of hands, what a start refuses, and that
Zioncheck's log and state are what they always were.
"""
from collections import Counter

import msgspec
import pytest

from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import play_game
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, HandRule, Rules, StartGame
from zioncheck.contracts.events import ClaimWon, GameEnded, GameStarted, HandDealt, HandEnded, StockDrawn
from zioncheck.contracts.log import encode
from zioncheck.domain import GameState, decide, evolve, fold
from zioncheck.domain.cards import JOKER, full_decks, hand_points, points
from zioncheck.domain.presets import CONTRACT_RUMMY, LIVERPOOL, ZIONCHECK, ruleset_of
from zioncheck.domain.refusal import refusal_of

CONTRACT = Rules(preset="contract")
LIVERPOOL_RULES = Rules(preset="liverpool")


def started(players: int, rules: Rules = Rules(), **options) -> GameState:  # noqa: B008 (a frozen Struct)
    [event] = decide(GameState(), StartGame(game_id="g", players=players, rules=rules, **options))
    return evolve(GameState(), event)


def refused(players: int, rules: Rules, **options) -> str:
    rejected = refusal_of(decide(GameState(), StartGame(game_id="g", players=players, rules=rules, **options)))
    return "" if rejected is None else rejected.reason


# --- the default is Zioncheck, written as it always was --------------------------------------

def test_r24_a_zioncheck_start_writes_no_rules_into_its_log():
    [event] = decide(GameState(), StartGame(game_id="g", players=3))
    assert b'"rules"' not in encode(event)
    [named] = decide(GameState(), StartGame(game_id="g", players=3, rules=Rules(preset="zioncheck")))
    assert named == event


def test_r24_a_log_without_rules_is_zioncheck():
    old = msgspec.json.decode(b'{"type":"game_started","game_id":"g","players":3,"decks":2,"dealer":0}',
                              type=GameStarted)
    assert fold(GameState(), [old]).rules == ZIONCHECK


def test_r24_a_preset_is_carried_in_the_games_start_so_a_replay_knows_it():
    [event] = decide(GameState(), StartGame(game_id="g", players=3, rules=LIVERPOOL_RULES))
    assert isinstance(event, GameStarted) and event.rules == LIVERPOOL_RULES
    assert b'"rules":{"preset":"liverpool"}' in encode(event)
    assert evolve(GameState(), event).rules == LIVERPOOL


# --- R24.1 seven hands --------------------------------------------------------------------------

@pytest.mark.parametrize("rules", [CONTRACT, LIVERPOOL_RULES])
def test_r24_1_contract_and_liverpool_rummy_play_seven_hands_of_ten_then_twelve_cards(rules):
    ruleset = ruleset_of(rules)
    assert ruleset.hands == 7
    assert [c.dealt for c in ruleset.contracts] == [10, 10, 10, 10, 12, 12, 12]
    assert [(c.sets, c.runs) for c in ruleset.contracts] == [(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3)]


@pytest.mark.parametrize("preset", ["contract", "liverpool"])
def test_r24_1_a_whole_game_of_bots_ends_after_the_seventh_hand(preset):
    table = play_game(["greedy", "greedy", "random"], 5, f"seven-{preset}", Rules(preset=preset))
    ended = [e.event for e in table.log if isinstance(e.event, HandEnded)]
    assert [e.hand for e in ended] == [1, 2, 3, 4, 5, 6, 7]
    assert isinstance(table.log[-2].event, GameEnded) or isinstance(table.log[-1].event, GameEnded)


def test_r24_1_a_start_at_hand_7_is_refused_in_zioncheck_and_taken_in_contract_rummy():
    assert refused(3, Rules(), first_hand=7) == "bad_command"
    assert refused(3, CONTRACT, first_hand=7) == ""


# --- R24.2 decks and jokers ---------------------------------------------------------------------

@pytest.mark.parametrize(("players", "decks", "jokers"), [(2, 2, 1), (3, 2, 1), (4, 2, 1), (5, 3, 2), (8, 3, 2),
                                                         (9, 4, 3)])
def test_r24_2_contract_rummy_shuffles_one_joker_fewer_than_its_decks(players, decks, jokers):
    state = started(players, CONTRACT)
    assert (state.decks, state.rules.jokers_for(state.decks)) == (decks, jokers)
    dealt = Dealer(seeded(1, "g")).deal(state)
    pack = [c for hand in dealt.hands for c in hand] + dealt.stock + dealt.discard
    assert len(pack) == 52 * decks + jokers
    assert Counter(pack)[JOKER] == jokers


@pytest.mark.parametrize(("players", "decks"), [(4, 2), (5, 3), (8, 3)])
def test_r24_2_liverpool_rummy_has_two_decks_to_four_players_then_three_with_two_jokers_each(players, decks):
    state = started(players, LIVERPOOL_RULES)
    assert state.decks == decks
    assert state.rules.jokers_for(decks) == 2 * decks


def test_r24_2_two_jokers_a_deck_keep_the_pack_in_its_old_order():
    assert full_decks(3, 6) == full_decks(3)


def test_r24_7_a_house_may_set_its_jokers_and_decks():
    state = started(4, Rules(preset="contract", jokers=6), decks=3)
    assert (state.decks, state.rules.jokers_for(3)) == (3, 6)
    assert Counter(full_decks(3, 6))[JOKER] == 6


# --- R24.3 values --------------------------------------------------------------------------------

def test_r24_3_two_to_ten_score_their_face_value():
    assert [points(c, pips=True) for c in ("2C", "9D", "10H", "JS", "KS", "AS", JOKER)] == [2, 9, 10, 10, 10, 15, 15]
    assert hand_points(["2D", "9S", "KH", "AS", JOKER, "10C"], pips=True) == 61
    assert hand_points(["2D", "9S", "KH", "AS", JOKER, "10C"]) == 60


# --- R24.4 the upcard ------------------------------------------------------------------------------

@pytest.mark.parametrize("rules", [CONTRACT, LIVERPOOL_RULES])
def test_r24_4_the_deal_turns_the_stocks_top_card_up_and_the_first_player_plays_once(rules):
    state = started(3, rules)
    deal = Dealer(seeded(2, "g")).deal(state)
    assert len(deal.discard) == 1 and all(len(h) == 10 for h in deal.hands)
    state = fold(state, decide(state, deal))
    assert not state.extra_turn and state.top == deal.discard[0] and state.top_discarder is None


def test_r24_4_zioncheck_deals_no_upcard():
    state = started(3)
    assert Dealer(seeded(2, "g")).deal(state).discard == []


# --- R24.5 the penalty card -----------------------------------------------------------------------

def dealt_contract(stock: list[str]) -> GameState:
    state = started(3, CONTRACT)
    return evolve(state, HandDealt(hand=1, dealer=2, hands=[["3C", "KH"], ["4H"], ["6S"]], stock=stock))


def test_r24_5_the_buyer_takes_the_penalty_card_before_the_turn_player_draws():
    state = fold(dealt_contract(["2C", "3S", "4D", "5H"]), [StockDrawn(seat=0, card="2C")])
    state = fold(state, decide(state, Discard(seat=0, card="KH")))
    state = fold(state, decide(state, ClaimDiscard(seat=2)))
    events = decide(state, DrawStock(seat=1))
    assert events == [ClaimWon(seat=2, card="KH"), StockDrawn(seat=2, card="3S"), StockDrawn(seat=1, card="4D")]
    after = fold(state, events)
    assert Counter(after.hands[2]) == Counter(["6S", "KH", "3S"])
    assert Counter(after.hands[1]) == Counter(["4H", "4D"]) and after.turn == 1 and after.drawn


def test_r24_5_a_stock_of_one_card_goes_to_the_turn_players_draw_with_no_penalty_card():
    state = fold(dealt_contract(["2C", "3S"]), [StockDrawn(seat=0, card="2C")])
    state = fold(state, decide(state, Discard(seat=0, card="KH")))
    state = fold(state, decide(state, ClaimDiscard(seat=2)))
    events = decide(state, DrawStock(seat=1))
    assert events == [StockDrawn(seat=1, card="3S"), ClaimWon(seat=2, card="KH")]


def test_r24_5_zioncheck_claims_cost_nothing():
    state = started(3)
    state = evolve(state, HandDealt(hand=1, dealer=2, hands=[["3C", "KH"], ["4H"], ["6S"]], stock=["2C", "3S", "4D"]))
    state = fold(state, [StockDrawn(seat=0, card="2C")])
    state = fold(state, decide(state, Discard(seat=0, card="KH")))   # R11: seat 0 plays again
    state = fold(state, decide(state, ClaimDiscard(seat=2)))
    assert [type(e).__name__ for e in decide(state, DrawStock(seat=0))] == ["StockDrawn", "ClaimWon"]


# --- R24.7 house options and their bounds --------------------------------------------------------

def test_r24_7_a_house_plays_its_own_hands_and_contracts():
    hands = (HandRule(dealt=8, sets=1, runs=0), HandRule(dealt=9, sets=0, runs=1))
    state = started(3, Rules(preset="contract", hands=hands))
    assert state.rules.hands == 2 and state.rules.contract(2).runs == 1
    assert state.rules.pips   # the preset's other rules stand


@pytest.mark.parametrize("rules", [
    Rules(preset="contract", hands=(HandRule(dealt=5, sets=2, runs=0),)),            # too few cards for 2 sets
    Rules(preset="contract", hands=(HandRule(dealt=10, sets=0, runs=0),)),           # no meld at all
    Rules(preset="contract", hands=(HandRule(dealt=20, sets=1, runs=4),)),           # more runs than searched
    Rules(preset="contract", hands=tuple(HandRule(dealt=10, sets=2, runs=0) for _ in range(13))),
    Rules(preset="zioncheck", jokers=-1),
])
def test_r24_7_house_options_outside_their_bounds_are_refused(rules):
    assert refused(3, rules) == "bad_command"


def test_r24_7_a_pack_too_small_for_the_biggest_hand_is_refused():
    assert refused(8, Rules(preset="contract"), decks=1) == "bad_command"


def test_r24_an_unknown_preset_is_refused():
    start = msgspec.structs.replace(StartGame(game_id="g", players=3), rules=Rules(preset="canasta"))  # type: ignore[arg-type]
    assert refusal_of(decide(GameState(), start)).reason == "bad_command"


def differences(rules) -> tuple:
    return (rules.pips, rules.upcard, rules.first_twice, rules.penalty_card, rules.buys, rules.buy_when_down,
            rules.out_by_laying_off, rules.joker_swaps)


def test_r24_the_presets_differ_from_zioncheck_only_where_r24_says():
    assert differences(ZIONCHECK) == (False, False, True, False, "nearest", True, False, "take")
    assert differences(CONTRACT_RUMMY) == (True, True, False, True, "first", True, True, "move")
    assert differences(LIVERPOOL) == (True, True, False, True, "first", False, False, "take")
    assert [c.whole for c in LIVERPOOL.contracts] == [False] * 6 + [True]
    assert not any(c.whole for c in CONTRACT_RUMMY.contracts)


# --- the faces: the terminal tells the game and its contracts --------------------------------------

def test_r24_the_terminal_tells_the_game_its_hands_and_the_upcard(monkeypatch):
    from zioncheck.cli import live, words
    monkeypatch.setattr(words, "language", "en")
    state = started(3, LIVERPOOL_RULES)
    [start] = decide(GameState(), StartGame(game_id="g", players=3, rules=LIVERPOOL_RULES))
    assert live.narrate(start, state) == ["Game g: Liverpool rummy, 7 hands, 3 players, 2 decks."]
    deal = HandDealt(hand=7, dealer=2, hands=[["2C"] * 12] * 3, stock=["3C"], discard=["9D"])
    [_, line] = live.narrate(deal, evolve(state, deal))
    assert line.startswith("=== Hand 7: 3 runs, every card at once; seat 2 deals, 12 cards each, 9D turned up; "
                           "seat 0 plays first.")


def test_r24_a_zioncheck_game_is_told_as_it_always_was(monkeypatch):
    from zioncheck.cli import live, words
    monkeypatch.setattr(words, "language", "en")
    [start] = decide(GameState(), StartGame(game_id="g", players=3))
    assert live.narrate(start, evolve(GameState(), start)) == ["Game g: 3 players, 2 decks."]


def test_r24_a_games_state_hash_names_its_rules_unless_it_is_zioncheck():
    from zioncheck.application.replay import state_hash
    zioncheck, liverpool = started(3), started(3, LIVERPOOL_RULES)
    assert state_hash(zioncheck) != state_hash(liverpool)
    assert state_hash(zioncheck) == state_hash(msgspec.structs.replace(liverpool, rules=ZIONCHECK))
