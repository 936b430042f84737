"""(a) R1: cards are conserved. Across stock, pile, hands and table, the cards in play are
always exactly the cards the hand was dealt; a real deal deals every card of R1's decks."""
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from moves import PRESETS, Session, modest, play_on, short_deals

from zioncheck.domain.cards import full_decks


def conserved(session: Session) -> None:
    if session.state.hand >= 1:
        assert session.cards_in_play() == session.dealt


def pack(session: Session) -> Counter:
    """R1, R24.2: the game's decks with its jokers."""
    decks = session.state.decks
    return Counter(full_decks(decks, session.state.rules.jokers_for(decks)))


@pytest.mark.parametrize("preset", PRESETS)
@modest(25)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), data=st.data())
def test_r01_a_real_deal_conserves_the_full_decks_through_any_commands(preset, players, seed, data):
    session = Session(players, seed, preset=preset)
    session.deal()
    assert session.dealt == pack(session)
    play_on(data, session, steps=80, after_each=conserved)
    if not session.state.hand_over:
        assert session.cards_in_play() == pack(session)


@pytest.mark.parametrize("preset", PRESETS)
@modest(40)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), first_hand=st.integers(1, 7), data=st.data())
def test_r16_short_stacked_hands_conserve_their_cards_through_reshuffles_and_dry_ends(preset, players, seed,
                                                                                       first_hand, data):
    short = data.draw(short_deals(), label="short deal")
    session = Session(players, seed, first_hand=first_hand, short=short, preset=preset)
    session.deal()
    play_on(data, session, steps=60, after_each=conserved)
