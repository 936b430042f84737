"""(c) The log is the truth: folding it from scratch gives the live state, it survives its
own JSON lines, the views tell each command's outcome as the log holds it, and the same
seed gives the same log byte for byte."""
import pytest
from hypothesis import given
from hypothesis import strategies as st
from moves import PRESETS, Session, modest, play_on

from zioncheck.application.simulation import play_game
from zioncheck.application.turns import InProcessTable
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.log import Batch, read_jsonl, write_jsonl
from zioncheck.contracts.views import REFUSALS_KEPT, SeatRefusal
from zioncheck.domain import GameState, fold
from zioncheck.domain.views import project, public_view, seat_view


def folded(log) -> GameState:
    return fold(GameState(), [entry.event for entry in log])


@pytest.mark.parametrize("preset", PRESETS)
@modest(25)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), first_hand=st.integers(1, 7), data=st.data())
def test_r18_folding_the_log_from_scratch_gives_the_live_state(preset, players, seed, first_hand, data):
    session = Session(players, seed, first_hand=first_hand, preset=preset)
    session.deal()
    play_on(data, session, steps=60)
    assert folded(session.table.log) == session.state
    assert folded(read_jsonl(write_jsonl(session.table.log).decode())) == session.state


def batches(log) -> list[Batch]:
    """The log's entries grouped back into the batches the table appended, one per command."""
    return [Batch(cause=cause, events=[e.event for e in log if e.cause == cause])
            for cause in dict.fromkeys(e.cause for e in log)]


@modest(25)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), data=st.data())
def test_r18_the_views_tell_each_commands_outcome_as_the_log_holds_it(players, seed, data):
    session = Session(players, seed)
    session.deal()
    play_on(data, session, steps=60)
    log = session.table.log
    projection = project(batches(log))
    assert public_view(projection).applied == log[-1].cause
    for seat in range(players):
        refused = [SeatRefusal(cause=e.cause, command=e.event.command, reason=e.event.reason, detail=e.event.detail)
                   for e in log if isinstance(e.event, Rejected) and e.event.seat == seat]
        assert seat_view(projection, seat).refusals == refused[-REFUSALS_KEPT:]


@modest(15)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), data=st.data())
def test_r16_the_same_seed_and_commands_give_a_byte_identical_log(players, seed, data):
    session = Session(players, seed, short=(4, 3, 2))
    session.deal()
    play_on(data, session, steps=60)
    again = InProcessTable(dealer=Session(players, seed).dealer)
    for command in session.commands:
        again.handle(command)
    assert write_jsonl(again.log) == write_jsonl(session.table.log)


@pytest.mark.parametrize("bots, seed", [
    (["greedy", "random", "greedy"], 1),
    (["random", "greedy", "random", "greedy"], 2),
    (["greedy", "random", "random", "greedy", "random"], 3),
])
def test_r17_the_same_seed_plays_a_byte_identical_game(bots, seed):
    first = play_game(bots, seed, "same-seed")
    second = play_game(bots, seed, "same-seed")
    assert write_jsonl(first.log) == write_jsonl(second.log)
    assert folded(first.log) == first.state


def test_r17_another_seed_plays_another_game():
    first = play_game(["greedy", "random", "greedy"], 1, "same-seed")
    other = play_game(["greedy", "random", "greedy"], 2, "same-seed")
    assert write_jsonl(first.log) != write_jsonl(other.log)
