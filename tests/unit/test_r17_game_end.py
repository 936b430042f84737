"""R17: after hand 6 the lowest total wins; a tie is shared."""
import pytest

from given import cards, dealt, events_of, play, refusal
from zioncheck.application.simulation import play_game
from zioncheck.contracts.commands import Deal, Discard, DrawStock, GoDown
from zioncheck.contracts.events import GameEnded, HandDealt, HandEnded

LAST_CONTRACT = ["3S 4S 5S 6S", "9H 10H JH QH", "8C 8D 8H", "KC KD KH"]


def seat_0_goes_out_in(hand: int, *others: str, totals=None):
    """Seat 0 holds exactly `hand`'s contract (hand 5 or 6), draws 2C, lays it and discards 2C."""
    melds = LAST_CONTRACT if hand == 6 else LAST_CONTRACT[:3]
    given = dealt(" ".join(melds), *others, stock="2C 4C", hand=hand, totals=totals)
    return play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards(m) for m in melds]),
                        Discard(seat=0, card="2C")])


@pytest.fixture(scope="module")
def whole_game():
    return play_game(["greedy", "random", "greedy"], 11, "r17-whole-game")


def logged(table, kind) -> list:
    return [entry.event for entry in table.log if isinstance(entry.event, kind)]


# --- a whole game --------------------------------------------------------------------

def test_r17_a_game_plays_six_hands(whole_game):
    assert [e.hand for e in logged(whole_game, HandEnded)] == [1, 2, 3, 4, 5, 6]


def test_r17_a_game_ends_once_after_its_sixth_hand(whole_game):
    [ended] = logged(whole_game, GameEnded)
    events = [entry.event for entry in whole_game.log]
    assert events.index(ended) > events.index(logged(whole_game, HandEnded)[-1])
    assert not any(isinstance(e, HandDealt) for e in events[events.index(ended):])


def test_r17_each_hands_totals_add_its_scores_to_the_last(whole_game):
    running = [0, 0, 0]
    for ended in logged(whole_game, HandEnded):
        running = [t + s for t, s in zip(running, ended.scores, strict=True)]
        assert ended.totals == running


def test_r17_the_games_totals_are_the_sixth_hands_totals(whole_game):
    [ended] = logged(whole_game, GameEnded)
    assert ended.totals == logged(whole_game, HandEnded)[-1].totals


def test_r17_the_lowest_total_wins_the_game(whole_game):
    [ended] = logged(whole_game, GameEnded)
    assert ended.winners == [s for s, t in enumerate(ended.totals) if t == min(ended.totals)]
    assert whole_game.state.game_over is True


# --- stacked last hands --------------------------------------------------------------

def test_r17_the_game_ends_with_the_sixth_hand():
    then = seat_0_goes_out_in(6, "AH 4D", "3C 5C", totals=[30, 10, 40])
    assert [type(e) for e in then.last][-2:] == [HandEnded, GameEnded]
    assert then.state.game_over is True


def test_r17_the_game_does_not_end_with_the_fifth_hand():
    then = seat_0_goes_out_in(5, "AH 4D", "3C 5C", totals=[30, 10, 40])
    assert events_of(then, GameEnded) == []
    assert then.state.game_over is False


def test_r17_the_lowest_total_wins_even_if_another_seat_went_out_last():
    then = seat_0_goes_out_in(6, "2D", "3C 5C", totals=[30, 10, 40])
    assert events_of(then, GameEnded) == [GameEnded(totals=[30, 15, 50], winners=[1])]


def test_r17_a_tie_for_the_lowest_total_is_shared():
    then = seat_0_goes_out_in(6, "10D 9D 8D", "3C 5C", totals=[30, 10, 40])
    assert events_of(then, GameEnded) == [GameEnded(totals=[30, 30, 50], winners=[0, 1])]


def test_r17_a_tie_may_be_shared_by_every_seat():
    then = seat_0_goes_out_in(6, "5D", "5C", totals=[5, 0, 0])
    assert then.state.winners == (0, 1, 2)


def test_r17_no_seventh_hand_is_dealt():
    ended = seat_0_goes_out_in(6, "5D", "5C", totals=[5, 0, 0])
    then = play(ended, [Deal(hand=7, hands=[["2D"], ["3D"], ["4D"]], stock=["5D"])])
    assert refusal(then) == "game_over"
