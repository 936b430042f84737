"""Telling a game at the terminal: a refusal says why in words (R18), a seat's cards only to that seat."""
from zioncheck.cli.live import narrate
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.reasons import explain
from zioncheck.domain import GameState

REFUSED = Rejected(seat=2, command="swap_joker", reason="no_joker_to_swap",
                   detail="no joker in 4S 5S JK 7S stands for 9S")


def test_r18_a_persons_own_refusal_is_told_with_its_sentence_and_detail():
    assert narrate(REFUSED, GameState(), hide_draws_from=2) == ["  (refused swap_joker from seat 2: "
                                                                 "no joker there stands for that card: "
                                                                 "no joker in 4S 5S JK 7S stands for 9S)"]


def test_r18_another_seats_refusal_is_told_without_the_detail_that_may_name_its_cards():
    assert narrate(REFUSED, GameState(), hide_draws_from=0) == [
        f"  (refused swap_joker from seat 2: {explain('no_joker_to_swap')})"]


def test_r18_a_game_of_bots_only_is_told_with_every_detail():
    [line] = narrate(REFUSED, GameState())
    assert line.endswith(f"{explain('no_joker_to_swap')}: {REFUSED.detail})")
