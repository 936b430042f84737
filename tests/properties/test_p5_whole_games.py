"""(e) R15, R17: whole simulated games end with their hands (six in Zioncheck, seven in its cousins, R24.1)
and a game won by the lowest total."""
import pytest
from hypothesis import given
from hypothesis import strategies as st
from moves import PRESETS, Session, modest, play_on, short_deals

from zioncheck.application.simulation import play_game
from zioncheck.contracts.commands import Rules
from zioncheck.contracts.events import GameEnded, HandEnded
from zioncheck.domain.cards import hand_points

GAMES = [
    (["greedy", "random", "greedy"], 1),
    (["random", "greedy", "random"], 2),
    (["greedy", "random", "greedy", "random"], 3),
    (["greedy", "random", "random", "greedy", "random"], 4),
    (["random", "random", "greedy", "random", "greedy", "greedy"], 5),
]


@pytest.fixture(scope="module", params=[(*game, preset) for preset in PRESETS for game in GAMES],
                ids=lambda game: f"{game[2]}-{len(game[0])}-seats-seed-{game[1]}")
def game(request):
    bots, seed, preset = request.param
    return play_game(bots, seed, f"whole-{seed}", Rules(preset=preset))


def logged(table, kind) -> list:
    return [entry.event for entry in table.log if isinstance(entry.event, kind)]


def test_r17_a_whole_game_ends_with_all_its_hands_ended(game):
    assert [e.hand for e in logged(game, HandEnded)] == list(range(1, game.state.rules.hands + 1))


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


def scored_as_left(session: Session) -> None:
    """R3, R15, R16: a hand that just ended scored each seat's cards left in hand, 0 for going out."""
    state = session.state
    if state.hand_over and state.scores is not None:
        expected = tuple(0 if seat == state.winner else hand_points(hand, state.rules.pips)
                         for seat, hand in enumerate(state.hands))
        assert state.scores == expected
        assert state.stuck == tuple(seat for seat, down in enumerate(state.down) if not down)


@pytest.mark.parametrize("preset", PRESETS)
@modest(30)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), first_hand=st.integers(1, 7), data=st.data())
def test_r15_every_hand_ends_scoring_the_cards_left_in_hand(preset, players, seed, first_hand, data):
    session = Session(players, seed, first_hand=first_hand, short=data.draw(short_deals(), label="short"),
                      preset=preset)
    session.deal()
    play_on(data, session, steps=60, after_each=scored_as_left)
