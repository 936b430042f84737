"""What the table logs of a command's outcome, and what it tells the sender alone (application/turns.py),
as the live table and the check of a stored game (services/intact.py) both reckon it."""
from zioncheck.application import turns
from zioncheck.application.turns import told_not_logged
from zioncheck.contracts.commands import TIMER, DrawStock, StartGame, TurnTimeout
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.log import encode
from zioncheck.domain import GameState, fold
from zioncheck.services.intact import uninterrupted

START = StartGame(game_id="g", players=2, stacked=True)
REFUSED = [Rejected(seat=0, command="draw_stock", reason="not_your_turn", detail="")]


def started() -> GameState:
    return fold(GameState(), turns.InProcessTable().handle(START))


def test_a_refusal_for_a_game_not_started_is_told_and_not_logged_and_a_start_is_logged():
    assert told_not_logged(GameState(), REFUSED, 0)
    assert not told_not_logged(GameState(), turns.InProcessTable().handle(START), 0)


def test_refusals_are_logged_up_to_the_games_fill_and_moves_always():
    state = started()
    assert not told_not_logged(state, REFUSED, turns.LOGGED_REFUSALS - 1)
    assert told_not_logged(state, REFUSED, turns.LOGGED_REFUSALS)
    accepted = turns.InProcessTable().handle(START)   # events that are no refusal
    assert not told_not_logged(state, accepted, turns.LOGGED_REFUSALS)


def test_r19_what_one_table_writes_leaves_out_a_stale_timeout_and_refusals_past_the_fill(monkeypatch):
    monkeypatch.setattr(turns, "LOGGED_REFUSALS", 1)
    commands = [(encode(START), "play"), (encode(DrawStock(seat=1)), "play"), (encode(DrawStock(seat=1)), "play"),
                (encode(TurnTimeout(hand=1, turn=0)), TIMER)]
    logged = uninterrupted(commands, {})
    assert [type(event).__name__ for event in logged] == ["GameStarted", "Rejected"]
