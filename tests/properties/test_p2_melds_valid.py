"""(b) R4, R5, R6: every meld on the table is always a valid set or run, read as it was laid."""
import pytest
from hypothesis import given
from hypothesis import strategies as st
from moves import PRESETS, Session, modest, play_on

from zioncheck.domain.melds import kinds, run_low, set_rank


def melds_valid(session: Session) -> None:
    for meld in session.state.table:
        assert meld.kind in kinds(meld.cards), meld
        if meld.kind == "set":
            assert set_rank(meld.cards) is not None, meld
        else:
            assert run_low(meld.cards) == meld.low, meld


@pytest.mark.parametrize("preset", PRESETS)
@modest(25)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), first_hand=st.integers(1, 7), data=st.data())
def test_r04_r06_every_meld_on_the_table_is_a_valid_set_or_run(preset, players, seed, first_hand, data):
    session = Session(players, seed, first_hand=first_hand, preset=preset)
    session.deal()
    play_on(data, session, steps=80, after_each=melds_valid)
