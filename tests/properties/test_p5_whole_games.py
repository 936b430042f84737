"""(e) R15, R17: whole simulated games end with six hands and a game won by the lowest total."""
import pytest

from contracts.events import GameEnded, HandEnded
from domain.cards import hand_points
from engine.game import play_game

GAMES = [
    (["greedy", "random", "greedy"], 1),
    (["random", "greedy", "random"], 2),
    (["greedy", "random", "greedy", "random"], 3),
    (["greedy", "random", "random", "greedy", "random"], 4),
    (["random", "random", "greedy", "random", "greedy", "greedy"], 5),
]


@pytest.fixture(scope="module", params=GAMES, ids=lambda game: f"{len(game[0])}-seats-seed-{game[1]}")
def game(request):
    bots, seed = request.param
    return play_game(bots, seed, f"whole-{seed}")


def logged(table, kind) -> list:
    return [entry.event for entry in table.log if isinstance(entry.event, kind)]


def test_r17_a_whole_game_ends_with_six_hands_ended(game):
    assert [e.hand for e in logged(game, HandEnded)] == [1, 2, 3, 4, 5, 6]


def test_r17_a_whole_game_ends_once_won_by_the_lowest_total(game):
    [ended] = logged(game, GameEnded)
    assert ended.totals == logged(game, HandEnded)[-1].totals
    assert ended.winners == [s for s, t in enumerate(ended.totals) if t == min(ended.totals)]


def test_r15_each_hand_scores_every_seat_but_the_one_that_went_out(game):
    for ended in logged(game, HandEnded):
        if ended.winner is not None:
            assert ended.scores[ended.winner] == 0
        assert all(score >= 0 for score in ended.scores)


def test_r15_the_totals_add_up_the_hands_scores(game):
    hands = logged(game, HandEnded)
    assert hands[-1].totals == [sum(e.scores[s] for e in hands) for s in range(len(hands[-1].totals))]
