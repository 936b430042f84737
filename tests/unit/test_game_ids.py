"""A game id is one safe subject token: 1 to 64 ASCII letters, digits, - and _."""
from hypothesis import given
from hypothesis import strategies as st

from zioncheck.services.bus.topology import GAME_ID_LETTERS, GAME_ID_MAX, valid_game_id


def by_letters(game: str) -> bool:
    return 0 < len(game) <= GAME_ID_MAX and all(c in GAME_ID_LETTERS for c in game)


def test_ids_that_would_break_a_subject_are_refused():
    for bad in ("", "a" * 65, "a.b", "a*", "a>", "a b", "a\n", "é", "$KV"):
        assert not valid_game_id(bad), bad
    assert valid_game_id("game-1a2b_C") and valid_game_id("a" * 64)


@given(st.text(alphabet=GAME_ID_LETTERS + ".*> \n\té$", max_size=70))
def test_any_text_is_a_game_id_exactly_when_each_letter_is_allowed(game):
    assert valid_game_id(game) == by_letters(game)
