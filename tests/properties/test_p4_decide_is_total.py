"""(d) R18: decide never raises. Any command, however malformed its cards, seats or targets,
is either accepted (with no Rejected among its events) or refused with exactly one Rejected
whose reason is one of domain.refusal.REASONS; a refused command changes nothing."""
from hypothesis import given
from hypothesis import strategies as st
from moves import Session, any_command, modest, play_on

from zioncheck.contracts.events import Rejected
from zioncheck.domain import GameState, decide, evolve, fold
from zioncheck.domain.refusal import REASONS


def judged(state: GameState, command) -> GameState:
    events = decide(state, command)
    rejected = [e for e in events if isinstance(e, Rejected)]
    if rejected:
        assert len(events) == 1, events
        assert rejected[0].reason in REASONS
        assert evolve(state, rejected[0]) == state
        return state
    assert events, command
    return fold(state, events)


@modest(60)
@given(commands=st.lists(any_command(4), max_size=30))
def test_r18_any_command_stream_from_scratch_is_judged_without_raising(commands):
    state = GameState()
    for command in commands:
        state = judged(state, command)


@modest(40)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), first_hand=st.integers(1, 6), data=st.data())
def test_r18_any_command_in_the_middle_of_a_hand_is_judged_without_raising(players, seed, first_hand, data):
    session = Session(players, seed, first_hand=first_hand)
    session.deal()
    play_on(data, session, steps=data.draw(st.integers(0, 40), label="steps"))
    state = session.state
    held = tuple(c for hand in state.hands for c in hand)
    for command in data.draw(st.lists(any_command(players, held), min_size=1, max_size=25), label="stream"):
        state = judged(state, command)
