"""R1 decks, R2 notation, R3 values."""
from collections import Counter

import pytest

from given import cards, dealt, hand_of, pile, play, refusal
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.contracts.commands import Discard, DrawStock, GoDown, StartGame
from zioncheck.contracts.events import GameStarted
from zioncheck.domain import GameState, decide, fold
from zioncheck.domain.cards import NATURALS, canonical, decks_for, full_decks, hand_points, points

DECKS_BY_PLAYERS = {
    2: 2, 3: 2, 4: 2, 5: 2,
    6: 3, 7: 3, 8: 3,
    9: 4, 10: 4, 11: 4,
    12: 5, 13: 5, 14: 5,
    15: 6, 16: 6, 17: 6,
    18: 7, 19: 7, 20: 7,
}


def started(players: int, decks: int | None = None) -> list:
    return decide(GameState(), StartGame(game_id="g", players=players, decks=decks))


# --- R1 decks ------------------------------------------------------------------------

def test_r01_a_deck_is_the_52_naturals_and_two_jokers():
    deck = full_decks(1)
    assert len(deck) == 54
    assert Counter(deck) == Counter({**{card: 1 for card in NATURALS}, "JK": 2})


def test_r01_every_natural_card_of_a_deck_is_different():
    assert len(set(NATURALS)) == 52


@pytest.mark.parametrize("players, decks", sorted(DECKS_BY_PLAYERS.items()))
def test_r01_the_decks_follow_the_player_count(players, decks):
    assert decks_for(players) == decks


@pytest.mark.parametrize("players", [12, 13, 14])
def test_r01_twelve_to_fourteen_players_play_with_five_decks(players):
    [event] = started(players)
    assert event.decks == 5


@pytest.mark.parametrize("players", [15, 16, 17])
def test_r01_fifteen_to_seventeen_players_play_with_six_decks(players):
    [event] = started(players)
    assert event.decks == 6


@pytest.mark.parametrize("players", [2, 5, 6, 8, 9, 11])
def test_r01_a_started_game_records_the_decks_for_its_player_count(players):
    [event] = started(players)
    assert isinstance(event, GameStarted)
    assert event.decks == DECKS_BY_PLAYERS[players]


def test_r01_a_game_config_may_override_the_deck_count():
    [event] = started(4, decks=5)
    assert event.decks == 5


@pytest.mark.parametrize("players", [1, 0, -3])
def test_r01_a_game_of_fewer_than_two_players_is_refused(players):
    [event] = started(players)
    assert event.reason == "bad_command"


@pytest.mark.parametrize("players", [1, 0])
def test_r01_there_are_no_decks_for_fewer_than_two_players(players):
    with pytest.raises(ValueError, match="at least 2 players"):
        decks_for(players)


@pytest.mark.parametrize("players", [2, 6, 9, 12, 15])
def test_r01_a_real_deal_holds_exactly_the_cards_of_its_decks(players):
    state = fold(GameState(), started(players))
    deal = Dealer(seeded(7, "decks")).deal(state)
    dealt_cards = [c for hand in deal.hands for c in hand] + deal.stock + deal.discard
    assert Counter(dealt_cards) == Counter(full_decks(DECKS_BY_PLAYERS[players]))


def test_r01_cards_of_different_decks_are_interchangeable():
    given = dealt("4C 4C 9H", "5D 6D 7D", stock="KS")
    then = play(given, [DrawStock(seat=0), Discard(seat=0, card="4C")])
    assert sorted(hand_of(then, 0)) == sorted(cards("4C 9H KS"))
    assert pile(then) == ["4C"]


# --- R2 notation ---------------------------------------------------------------------

@pytest.mark.parametrize("written, card", [
    ("10C", "10C"), ("TC", "10C"), ("tc", "10C"), ("Tc", "10C"), ("10c", "10C"), ("th", "10H"),
    ("AS", "AS"), ("as", "AS"), ("qh", "QH"), ("Kd", "KD"), ("2c", "2C"), ("9S", "9S"), ("jc", "JC"),
    ("JK", "JK"), ("jk", "JK"), ("Jk", "JK"),
])
def test_r02_cards_are_read_in_any_case_with_t_for_10_and_written_canonically(written, card):
    assert canonical(written) == card


@pytest.mark.parametrize("written", [
    "", "1C", "11C", "0C", "ZZ", "10X", "J", "C", "10", "T", "KHH", "JKR", "JJ", "A S", "AC,", "1OC", "TT",
    None, 10, ["AC"],
])
def test_r02_anything_else_is_not_a_card(written):
    assert canonical(written) is None


def test_r02_a_card_written_with_t_is_recorded_as_10():
    given = dealt("10C 9H 8D", "5D 6D 7D", stock="KS")
    then = play(given, [DrawStock(seat=0), Discard(seat=0, card="tc")])
    assert pile(then) == ["10C"]
    assert then.last[0].card == "10C"


def test_r02_a_joker_written_in_lower_case_is_recorded_as_jk():
    given = dealt("JK 9H 8D", "5D 6D 7D", stock="KS")
    then = play(given, [DrawStock(seat=0), Discard(seat=0, card="jk")])
    assert pile(then) == ["JK"]


def test_r02_a_command_with_a_card_that_is_not_a_card_is_refused():
    given = dealt("10C 9H 8D", "5D 6D 7D", stock="KS")
    then = play(given, [DrawStock(seat=0), Discard(seat=0, card="1C")])
    assert refusal(then) == "bad_command"


# --- R3 values -----------------------------------------------------------------------

@pytest.mark.parametrize("card, value", [
    ("AC", 15), ("AS", 15), ("JK", 15),
    ("10D", 10), ("JH", 10), ("QS", 10), ("KC", 10),
    ("2C", 5), ("3D", 5), ("4H", 5), ("5S", 5), ("6C", 5), ("7D", 5), ("8H", 5), ("9S", 5),
])
def test_r03_each_card_has_its_value(card, value):
    assert points(card) == value


def test_r03_a_hand_is_worth_the_sum_of_its_cards():
    assert hand_points(cards("AC JK 10D 2C 9S")) == 15 + 15 + 10 + 5 + 5


def test_r03_a_hand_left_at_the_end_scores_its_card_values():
    given = dealt("8C 8D 8H 5S 5H 5D", "AH JK 10D 2C", stock="KH")
    melds = [cards("8C 8D 8H"), cards("5S 5H 5D")]
    then = play(given, [DrawStock(seat=0), GoDown(seat=0, melds=melds), Discard(seat=0, card="KH")])
    assert then.state.scores == (0, 15 + 15 + 10 + 5)
