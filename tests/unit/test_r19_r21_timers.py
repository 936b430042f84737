"""R19-R21, service rules: a turn's deadline, seats a bot keeps for people away, abandoned games.

The clock is the table service's; here a deadline is only the command it would deliver.
"""
import msgspec
import pytest

from given import dealt, given_state
from zioncheck.application.reading import read_command
from zioncheck.application.replay import fold_log, state_hash
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.turns import InProcessTable
from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import (
    AbandonGame,
    Deal,
    Discard,
    DrawStock,
    Limits,
    StartGame,
    TurnTimeout,
)
from zioncheck.contracts.log import encode
from zioncheck.domain import GameState, decide, fold
from zioncheck.domain.refusal import refusal_of
from zioncheck.domain.timers import IDLE_SEAT_SECONDS, deadline

# No seat can go down with these (R12): a timed-out turn is a draw and a discard.
SEAT_0, SEAT_1 = "2C 5D 9H KS 3S 7D JC 4H 8S QD", "AH 6C 10S 3D 7H JS 4C 9D KH 2S"
SEAT_2 = "5H 8C QS 6D 10C AS 2D 9S JH 4D"
STOCK = "3C 6H 10D KC 7S AC 5C 8D QH JD 4S 9C 2H 6S 10H KD 7C AD 5S 8H QC JK 3H"


DEFAULTS = Limits()


def game(seats=("person", "person", "person"), limits: Limits = DEFAULTS) -> GameState:
    """Hand 1 of three seats dealt, seat 0 to play first, who sits where as `seats` says."""
    events = dealt(SEAT_0, SEAT_1, SEAT_2, stock=STOCK)
    opened = events[0]
    events[0] = ev.GameStarted(game_id=opened.game_id, players=3, decks=opened.decks, dealer=opened.dealer,
                               seats=list(seats), limits=limits)
    return given_state(events)


def timed_out(state: GameState) -> tuple[list, GameState]:
    """The turn in play runs out: what the table does with its timeout, and the state after."""
    table = InProcessTable(state=state)
    events = table.handle(deadline(state).command)
    return events, table.state


def test_r19_a_turn_that_runs_out_is_played_by_a_bot_and_the_next_turn_begins():
    before = game()
    events, after = timed_out(before)
    assert events[0] == ev.TurnTimedOut(seat=0, hand=1, turn=before.turn_no)
    assert [type(e) for e in events[1:]] == [ev.StockDrawn, ev.Discarded]
    assert after.turn_no == before.turn_no + 1 and len(after.hands[0]) == 10


def test_r19_the_deadline_names_the_turn_and_lasts_the_games_turn_seconds():
    state = game(limits=Limits(turn_seconds=45))
    due = deadline(state)
    assert due.seconds == 45 and due.command == TurnTimeout(hand=1, turn=state.turn_no)


def test_r19_a_timeout_that_comes_after_its_turn_is_refused_as_stale_and_changes_nothing():
    state = game()
    late = TurnTimeout(hand=1, turn=state.turn_no)
    moved = fold(state, decide(state, DrawStock(seat=0)))
    moved = fold(moved, decide(moved, Discard(seat=0, card="3C")))
    [rejected] = decide(moved, late)
    assert rejected.reason == "timer_stale"
    table = InProcessTable(state=moved)
    table.handle(late)
    assert table.log == [], "a stale timer leaves no trace in the log"


def test_r19_the_same_timeout_decided_again_gives_the_same_moves():
    state = game()
    assert timed_out(state)[0] == timed_out(state)[0]


def test_r19_only_the_games_timer_sends_timeouts_and_the_timer_sends_nothing_else():
    timeout = encode(TurnTimeout(hand=1, turn=1))
    assert read_command(timeout, "play").reason == "bad_command"
    assert read_command(timeout, "timer") == TurnTimeout(hand=1, turn=1)
    assert read_command(encode(Deal(hand=1, hands=[["AS"]], stock=[])), "timer").reason == "bad_command"
    assert read_command(encode(DrawStock(seat=0)), "timer").reason == "bad_command"


@pytest.mark.parametrize("limits", [Limits(turn_seconds=1), Limits(idle_turns=0), Limits(abandon_seconds=5),
                                    Limits(bot_seconds=11)])
def test_r19_a_start_with_limits_out_of_bounds_is_refused(limits):
    [rejected] = decide(GameState(), StartGame(game_id="g", players=2, limits=limits))
    assert rejected.reason == "bad_command" and rejected.detail.split()[0] in msgspec.structs.asdict(limits)


def test_r19_a_start_names_a_person_or_a_known_bot_in_every_seat_or_in_none():
    assert refusal_of(decide(GameState(), StartGame(game_id="g", players=2, seats=["person", "deep-blue"])))
    assert refusal_of(decide(GameState(), StartGame(game_id="g", players=3, seats=["person", "greedy"])))
    [started] = decide(GameState(), StartGame(game_id="g", players=2, seats=["person", "random"]))
    assert started.seats == ["person", "random"]


def test_r20_a_person_whose_turns_run_out_idle_turns_in_a_row_leaves_the_seat_to_a_bot():
    state = game(limits=Limits(idle_turns=2))
    first, state = timed_out(state)          # seat 0's first turn (R11: it plays two)
    assert not any(isinstance(e, ev.SeatIdle) for e in first)
    second, state = timed_out(state)
    assert ev.SeatIdle(seat=0) in second and state.idle[0]
    assert deadline(fold(state, [])).seconds == float(Limits().turn_seconds)   # seat 1, present, to play


def test_r20_a_seat_a_bot_keeps_times_out_at_once():
    state = fold(game(), [ev.SeatIdle(seat=0)])
    assert deadline(state).seconds == IDLE_SEAT_SECONDS


def test_r20_a_command_of_the_seat_brings_its_person_back():
    state = fold(game(), [ev.TurnTimedOut(seat=0, hand=1, turn=1), ev.SeatIdle(seat=0)])
    events = decide(state, DrawStock(seat=0))
    assert events[0] == ev.SeatBack(seat=0) and isinstance(events[1], ev.StockDrawn)
    back = fold(state, events)
    assert not back.idle[0] and back.timeouts[0] == 0


def test_r20_a_refused_command_does_not_bring_the_person_back():
    state = fold(game(), [ev.SeatIdle(seat=1)])
    assert refusal_of(decide(state, DrawStock(seat=1)))   # not seat 1's turn


def test_r20_the_bot_playing_a_timed_out_turn_does_not_bring_the_person_back():
    events, state = timed_out(game())
    assert not any(isinstance(e, ev.SeatBack) for e in events) and state.timeouts[0] == 1


def test_r20_a_bot_seat_whose_turn_runs_out_never_goes_idle():
    state = game(seats=("greedy", "person", "person"), limits=Limits(idle_turns=1))
    events, state = timed_out(state)
    assert not any(isinstance(e, ev.SeatIdle) for e in events) and not state.idle[0]


def test_r21_with_no_person_left_the_only_deadline_is_the_games_abandonment():
    state = fold(game(seats=("person", "greedy", "person"), limits=Limits(abandon_seconds=900)),
                 [ev.SeatIdle(seat=0), ev.SeatIdle(seat=2)])
    due = deadline(state)
    assert due.seconds == 900 and due.command == AbandonGame(presence=state.presence)


def test_r21_an_abandoned_game_ends_with_the_totals_of_the_hands_played():
    events = dealt(SEAT_0, SEAT_1, SEAT_2, stock=STOCK, hand=3, totals=[30, 10, 20])
    state = fold(given_state(events), [ev.SeatIdle(seat=0), ev.SeatIdle(seat=1), ev.SeatIdle(seat=2)])
    abandoned = decide(state, AbandonGame(presence=state.presence))
    assert abandoned == [ev.GameAbandoned(hand=3, mid_hand=True), ev.GameEnded(totals=[30, 10, 20], winners=[1])]
    after = fold(state, abandoned)
    assert after.game_over and after.abandoned and deadline(after) is None


def test_r21_a_person_back_before_the_deadline_keeps_the_game_going():
    state = fold(game(), [ev.SeatIdle(seat=0), ev.SeatIdle(seat=1), ev.SeatIdle(seat=2)])
    due = deadline(state).command
    state = fold(state, decide(state, DrawStock(seat=0)))
    [rejected] = decide(state, due)
    assert rejected.reason == "timer_stale" and not state.game_over


def test_r21_a_game_of_bots_only_is_never_abandoned():
    state = game(seats=("greedy", "random", "greedy"))
    assert isinstance(deadline(state).command, TurnTimeout)
    [rejected] = decide(state, AbandonGame(presence=0))
    assert rejected.reason == "timer_stale"


def whole_game_of_timeouts(seats: list[str]) -> InProcessTable:
    """A whole game in which no seat ever moves: every turn runs out, the dealer deals and reveals."""
    dealer, table = Dealer(seeded(11, "timeouts")), InProcessTable()
    table.dealer = dealer
    table.handle(StartGame(game_id="timeouts", players=len(seats), seats=seats))
    while not table.state.game_over:
        state = table.state
        if state.seeds and not state.seeds[-1] and state.hand_over:
            table.handle(dealer.reveal(state.hand))
        elif state.hand_over:
            table.handle(dealer.deal(state))
        else:
            table.handle(deadline(state).command)
    return table


def test_r19_a_game_of_timeouts_replays_from_its_log_to_the_same_hash_and_plays_again_the_same():
    table = whole_game_of_timeouts(["person", "person"])
    assert table.state.abandoned, "both people gone: the game is abandoned (R21)"
    assert state_hash(fold_log(table.log)) == state_hash(table.state)
    assert whole_game_of_timeouts(["person", "person"]).log == table.log
