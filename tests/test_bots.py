"""The bots: greedy beats random, no bot move is ever refused, and a full table of 20 can play."""
import pytest

from zioncheck.application.simulation import play_game

# About 10 four-seat games a second today: 100 games stay well under 20 seconds.
GAMES = 100


def alternating(players: int, first: str = "greedy") -> list[str]:
    other = "random" if first == "greedy" else "greedy"
    return [first if seat % 2 == 0 else other for seat in range(players)]


def test_the_greedy_bot_beats_the_random_bot_in_nine_games_of_ten():
    greedy_seats = {0, 2}
    won = 0
    for seed in range(GAMES):
        table = play_game(["greedy", "random", "greedy", "random"], seed, f"greedy-vs-random-{seed}")
        won += set(table.state.winners) <= greedy_seats
    assert won >= 0.9 * GAMES, f"greedy seats won {won} of {GAMES} games"


@pytest.mark.parametrize("players", range(2, 9))
@pytest.mark.parametrize("seed", [1, 2])
def test_bots_never_send_a_refused_command(players, seed):
    """play_game raises on the first refused bot move (R18), so a finished game had none."""
    first = "greedy" if seed % 2 else "random"
    table = play_game(alternating(players, first), seed, f"never-refused-{players}")
    assert table.state.game_over


@pytest.mark.parametrize("players", [3, 4, 6])
def test_greedy_bots_alone_finish_their_games(players):
    """Greedy bots once passed one card round the table for ever, taking it and shedding it again."""
    table = play_game(["greedy"] * players, 7, f"greedy-only-{players}")
    assert table.state.game_over


def test_twenty_players_can_play_a_game():
    table = play_game(alternating(20), 20, "twenty")
    assert table.state.game_over
    assert table.state.decks == 7
    assert len(table.state.totals) == 20
