"""Typed moves for terminal play: every command a person can send has a spelling that parses back."""
import pytest

from zioncheck.cli.moves import NotAMove, parse, spell
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, GoDown, LayOff, SwapJoker, TakeDiscard

COMMANDS = [DrawStock(seat=2), TakeDiscard(seat=2), ClaimDiscard(seat=2), Discard(seat=2, card="7C"),
            GoDown(seat=2, melds=[["8C", "8D", "8H"], ["5S", "6S", "JK", "8S"]]),
            LayOff(seat=2, target=(1, 0), card="JK", end="low"), LayOff(seat=2, target=(0, 3), card="9H"),
            SwapJoker(seat=2, target=(3, 1), card="6C")]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: type(c).__name__)
def test_a_spelled_move_parses_back_to_the_same_command(command):
    assert parse(spell(command), seat=2) == command


@pytest.mark.parametrize("line", ["", "fly", "lay 7C 1.0", "lay 7C on one", "discard", "lay 7C on 1.0 middle",
                                  "down / 8C"])
def test_a_line_that_is_no_move_says_why(line):
    with pytest.raises(NotAMove):
        parse(line, seat=0)


def test_short_forms_and_any_case_are_accepted():
    assert parse("D", seat=1) == DrawStock(seat=1)
    assert parse("x qh", seat=1) == Discard(seat=1, card="qh")
