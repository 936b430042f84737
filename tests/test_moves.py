"""Typed moves for terminal play: every command a person can send has a spelling that parses back; melds are
typed counted from 1."""
import pytest

from zioncheck.application.simulation import play_game
from zioncheck.cli.moves import NotAMove, offered, parse, spell, typed_moves
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Discard,
    DrawStock,
    GoDown,
    LayOff,
    Ready,
    SwapJoker,
    TakeDiscard,
)
from zioncheck.domain import GameState, decide, evolve
from zioncheck.domain.legal import legal_moves
from zioncheck.domain.refusal import refusal_of

COMMANDS = [DrawStock(seat=2), TakeDiscard(seat=2), ClaimDiscard(seat=2), Discard(seat=2, card="7C"),
            GoDown(seat=2, melds=[["8C", "8D", "8H"], ["5S", "6S", "JK", "8S"]]),
            LayOff(seat=2, target=(1, 0), card="JK", end="low"), LayOff(seat=2, target=(0, 3), card="9H"),
            SwapJoker(seat=2, target=(3, 1), card="6C"), Ready(seat=2)]


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


def test_melds_are_typed_counted_from_1_and_sent_counted_from_0_as_on_the_wire():
    assert parse("lay 7C on 1.1", seat=0) == LayOff(seat=0, target=(1, 0), card="7C")
    assert parse("swap 6C on 0.2", seat=3) == SwapJoker(seat=3, target=(0, 1), card="6C")
    assert spell(LayOff(seat=0, target=(1, 0), card="7C", end="high")) == "lay 7C on 1.1 high"


def test_a_meld_numbered_0_is_no_move_and_says_melds_count_from_1():
    with pytest.raises(NotAMove, match="numbered from 1: seat 1's first meld is 1.1"):
        parse("lay 7C on 1.0", seat=0)


def test_cards_may_be_typed_with_the_suit_symbols_the_table_shows():
    assert parse("x 10\u2665", seat=1) == Discard(seat=1, card="10H")
    assert parse("down 8\u2663 8\u2666 8\u2660", seat=1) == GoDown(seat=1, melds=[["8C", "8D", "8S"]])


def test_the_moves_help_offers_are_each_accepted_as_typed():
    """R18: what `help` says a seat may type now (its view's moves) parses to commands the table accepts,
    at every state of a whole game of three seats."""
    log = play_game(["greedy", "greedy", "random"], seed=11, game_id="typed").log
    state, offers = GameState(), 0
    for entry in log:
        state = evolve(state, entry.event)
        for seat in range(state.players):
            moves = legal_moves(state, seat)
            for line in typed_moves(moves, seat):
                for one in line.split("|")[:1] if line.startswith("discard") else [line]:
                    refused = refusal_of(decide(state, parse(one, seat)))
                    assert refused is None or refused.reason == "stock_empty", (one, seat)   # R16: reshuffled first
            offers += len(offered(moves, seat))
    assert offers > 1000
