"""Telling a game at the terminal: a refusal says why in words (R18), a seat's cards only to that seat; melds
numbered from 1, suits as symbols where the output can carry them."""
import io

from zioncheck.cli.live import face_for, narrate, table_lines
from zioncheck.contracts import events as ev
from zioncheck.contracts.events import Discarded, LaidOff, Rejected
from zioncheck.contracts.reasons import explain
from zioncheck.domain import GameState
from zioncheck.domain.state import PlacedMeld

REFUSED = Rejected(seat=2, command="swap_joker", reason="no_joker_to_swap",
                   detail="no joker in 4S 5S JK 7S stands for 9S")


def test_r18_a_persons_own_refusal_is_told_with_its_sentence_and_detail():
    assert narrate(REFUSED, GameState(), hide_draws_from=2) == ["  (refused the joker swap from seat 2: "
                                                                 "no joker there stands for that card: "
                                                                 "no joker in 4S 5S JK 7S stands for 9S)"]


def test_r18_another_seats_refusal_is_told_without_the_detail_that_may_name_its_cards():
    assert narrate(REFUSED, GameState(), hide_draws_from=0) == [
        f"  (refused the joker swap from seat 2: {explain('no_joker_to_swap')})"]


def test_r18_a_game_of_bots_only_is_told_with_every_detail():
    [line] = narrate(REFUSED, GameState())
    assert line.endswith(f"{explain('no_joker_to_swap')}: {REFUSED.detail})")


def test_melds_are_numbered_from_1_on_the_table_and_in_the_moves():
    state = GameState(table=(PlacedMeld(owner=1, index=0, kind="set", cards=("8C", "8D", "8H")),))
    assert "seat 1 #1 set: 8C 8D 8H" in table_lines(state)
    [line] = narrate(LaidOff(seat=0, owner=1, index=0, card="8S"), state)
    assert line.endswith("lays off 8S on seat 1's meld 1")


def test_suits_show_as_symbols_where_the_output_can_carry_them_and_as_letters_where_not():
    utf8, ascii_only = io.TextIOWrapper(io.BytesIO(), "utf-8"), io.TextIOWrapper(io.BytesIO(), "ascii")
    assert face_for(utf8)("10H") == "10\u2665" and face_for(utf8)("JK") == "JK"
    assert face_for(ascii_only)("10H") == "10H"
    [line] = narrate(Discarded(seat=1, card="QS"), GameState(hands=((), ("2C",))), face=face_for(utf8))
    assert line == "  seat 1 discards Q\u2660 (1 card left)"


def test_r19_r21_the_terminal_tells_timeouts_idle_seats_returns_and_abandonment():
    told = [line for event in (ev.TurnTimedOut(seat=1, hand=1, turn=3), ev.SeatIdle(seat=1), ev.SeatBack(seat=1),
                               ev.GameAbandoned(hand=2, mid_hand=True))
            for line in narrate(event, GameState())]
    assert told == ["  seat 1's time ran out: a bot plays this turn",
                    "  seat 1 is away: a bot keeps the seat until its player sends a move",
                    "  seat 1 is back", "", "=== Game abandoned in hand 2: no player was left at the table."]
