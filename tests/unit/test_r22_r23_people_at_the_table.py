"""R22 and R23, service rules for people playing with bots: a discard waits for a person's claim before
a bot draws, and a hand's end pauses, its cards shown, before the next is dealt.

The clock is the table service's; here a deadline is only the command it would deliver.
"""
import msgspec

from given import cards, dealt, discarded, drew, first_turns, given_state
from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Discard,
    DrawStock,
    EndPause,
    GoDown,
    Limits,
    Ready,
    ReleaseWindow,
    TakeDiscard,
    TurnTimeout,
)
from zioncheck.domain import GameState, decide, fold
from zioncheck.domain.claims import held
from zioncheck.domain.refusal import refusal_of
from zioncheck.domain.timers import IDLE_SEAT_SECONDS, deadline

SEAT_0 = "8C 8D 8H 5S 5H 5D 2C KH QS JK"
SEAT_1 = "AH 4D 6H 9S QC 3D 7H AD 9D 2S"
SEAT_2 = "3S 5C 8S 10H KS 4H 6C 7C 7D JC"
STOCK = "9C 4C 10S JD QD KD 2H 3H"
DEFAULTS = Limits()


def seated(events: list, seats, limits: Limits = DEFAULTS, stacked: bool = False) -> list:
    """`events` with the game started with these seats, limits and dealing."""
    return [msgspec.structs.replace(events[0], seats=list(seats), limits=limits, stacked=stacked), *events[1:]]


def kh_discarded(seats=("person", "greedy", "person"), limits: Limits = DEFAULTS) -> GameState:
    """Seat 0 played both first turns and discarded KH; seat 1 is to play; the window on KH is open."""
    return given_state(seated(dealt(SEAT_0, SEAT_1, SEAT_2, stock=STOCK)
                              + first_turns(0, "9C", "2C", "4C", "KH"), seats, limits))


def then(state: GameState, *commands) -> tuple[list, GameState]:
    """Decide and apply each command; the last one's events and the state after all."""
    events: list = []
    for command in commands:
        events = decide(state, command)
        state = fold(state, events)
    return events, state


# --- R22: a claim window held for people ------------------------------------------------------

def test_r22_a_bot_does_not_draw_while_a_person_may_still_claim_the_discard():
    state = kh_discarded()
    assert held(state)
    events, _ = then(state, DrawStock(seat=1))
    assert refusal_of(events).reason == "window_held"
    assert refusal_of(decide(state, TakeDiscard(seat=1))).reason == "window_held"


def test_r22_the_held_window_is_the_games_deadline_and_its_release_lets_the_bot_draw():
    state = kh_discarded(limits=Limits(claim_seconds=4))
    due = deadline(state)
    assert due.seconds == 4 and due.command == ReleaseWindow(hand=1, turn=state.turn_no)
    events, after = then(state, due.command)
    assert events == [ev.WindowReleased(hand=1, turn=state.turn_no)] and not held(after)
    assert deadline(after).command == TurnTimeout(hand=1, turn=state.turn_no)
    events, _ = then(after, DrawStock(seat=1))
    assert refusal_of(events) is None


def test_r22_a_person_claims_during_the_hold_and_wins_the_card_when_the_bot_draws():
    state = kh_discarded()
    _, claimed = then(state, ClaimDiscard(seat=2))
    assert held(claimed)   # the window stays held its whole time: another person may claim too
    events, _ = then(claimed, ReleaseWindow(hand=1, turn=state.turn_no), DrawStock(seat=1))
    assert ev.ClaimWon(seat=2, card="KH") in events


def test_r22_a_person_whose_turn_it_is_draws_at_once():
    state = kh_discarded(seats=("greedy", "person", "person"))
    assert not held(state)
    assert refusal_of(decide(state, DrawStock(seat=1))) is None
    assert isinstance(deadline(state).command, TurnTimeout)


def test_r22_bot_only_games_and_a_game_without_the_hold_are_not_slowed():
    for state in (kh_discarded(seats=("greedy", "random", "greedy")),
                  kh_discarded(limits=Limits(claim_seconds=0)),
                  kh_discarded(seats=("person", "greedy", "random"))):   # only the discarder is a person
        assert not held(state)
        assert refusal_of(decide(state, DrawStock(seat=1))) is None


def test_r22_a_seat_a_bot_keeps_for_its_away_person_waits_too_then_plays_at_once():
    away = given_state(seated(dealt(SEAT_0, SEAT_1, SEAT_2, stock=STOCK) + [ev.SeatIdle(seat=1)]
                              + first_turns(0, "9C", "2C", "4C", "KH"), ("person",) * 3))
    assert held(away) and isinstance(deadline(away).command, ReleaseWindow)
    assert refusal_of(decide(away, TurnTimeout(hand=1, turn=away.turn_no))).reason == "timer_stale"
    _, released = then(away, ReleaseWindow(hand=1, turn=away.turn_no))
    assert deadline(released).seconds == IDLE_SEAT_SECONDS
    # The person coming back draws at once: a person's draw is never held.
    assert refusal_of(decide(away, DrawStock(seat=1))) is None


def test_r22_a_release_that_comes_late_changes_nothing():
    state = kh_discarded()
    _, released = then(state, ReleaseWindow(hand=1, turn=state.turn_no))
    assert refusal_of(decide(released, ReleaseWindow(hand=1, turn=state.turn_no))).reason == "timer_stale"
    assert refusal_of(decide(state, ReleaseWindow(hand=1, turn=state.turn_no - 1))).reason == "timer_stale"


def test_r22_the_next_discard_holds_its_own_window_again():
    state = kh_discarded(seats=("person", "greedy", "person"))
    _, state = then(state, ReleaseWindow(hand=1, turn=state.turn_no), DrawStock(seat=1), Discard(seat=1, card="AH"))
    # Seat 2, a person, has the turn: nothing held. Its discard puts seat 0 (a person) next: nothing held.
    assert not held(state)


# --- R23: the pause between hands -----------------------------------------------------------

def seat_0_goes_out(seats=("person", "greedy", "person"), limits: Limits = DEFAULTS, stacked=False):
    """Seat 0 goes down with two sets and discards its last card: hand 1 ends (R15)."""
    state = given_state(seated(dealt("8C 8D 8H 5S 5H 5D", SEAT_1, SEAT_2, stock="KH 4C"), seats, limits, stacked))
    return then(state, DrawStock(seat=0), GoDown(seat=0, melds=[cards("8C 8D 8H"), cards("5S 5H 5D")]),
                Discard(seat=0, card="KH"))


def test_r23_a_hands_end_shows_every_seats_cards_and_pauses_for_the_people():
    events, state = seat_0_goes_out(limits=Limits(pause_seconds=12))
    ended = next(e for e in events if isinstance(e, ev.HandEnded))
    assert ended.hands == [[], cards(SEAT_1), cards(SEAT_2)]
    assert not any(isinstance(e, ev.PauseEnded) for e in events)
    assert deadline(state).seconds == 12 and deadline(state).command == EndPause(hand=1)


def test_r23_the_pause_ends_when_every_person_says_ready():
    _, state = seat_0_goes_out()
    events, state = then(state, Ready(seat=0))
    assert events == [ev.SeatReady(seat=0)]
    events, state = then(state, Ready(seat=2))
    assert events == [ev.SeatReady(seat=2), ev.PauseEnded(hand=1, why="ready")]
    assert deadline(state) is None   # the dealer deals now
    assert refusal_of(decide(state, Ready(seat=0))).reason == "not_paused"


def test_r23_the_pause_ends_when_its_time_runs_out_and_a_late_end_changes_nothing():
    _, state = seat_0_goes_out()
    events, after = then(state, EndPause(hand=1))
    assert events == [ev.PauseEnded(hand=1, why="timer")]
    assert refusal_of(decide(after, EndPause(hand=1))).reason == "timer_stale"


def test_r23_games_of_bots_and_games_with_no_pause_go_on_at_once():
    events, state = seat_0_goes_out(seats=("greedy", "random", "greedy"))
    assert events[-1] == ev.PauseEnded(hand=1, why="nobody") and deadline(state) is None
    events, state = seat_0_goes_out(limits=Limits(pause_seconds=0))
    assert events[-1] == ev.PauseEnded(hand=1, why="timer") and deadline(state) is None


def test_r23_a_game_its_starter_deals_has_no_pause():
    events, state = seat_0_goes_out(stacked=True)
    assert not any(isinstance(e, ev.PauseEnded) for e in events) and deadline(state) is None


def test_r23_an_away_person_who_says_ready_is_back():
    given = seated(dealt("8C 8D 8H 5S 5H 5D", SEAT_1, SEAT_2, stock="KH 4C"), ("person", "greedy", "person"))
    state = given_state(given + [ev.SeatIdle(seat=2)])
    _, state = then(state, DrawStock(seat=0), GoDown(seat=0, melds=[cards("8C 8D 8H"), cards("5S 5H 5D")]),
                    Discard(seat=0, card="KH"))
    events, _ = then(state, Ready(seat=2))
    assert events[0] == ev.SeatBack(seat=2) and ev.SeatReady(seat=2) in events
    assert not any(isinstance(e, ev.PauseEnded) for e in events)   # seat 0 has not said ready yet


def test_r23_a_person_who_comes_back_by_going_out_gets_the_pause():
    given = seated(dealt("8C 8D 8H 5S 5H 5D", SEAT_1, SEAT_2, stock="KH 4C"), ("person", "greedy", "greedy"))
    state = given_state(given + [ev.SeatIdle(seat=0)])
    events, state = then(state, DrawStock(seat=0), GoDown(seat=0, melds=[cards("8C 8D 8H"), cards("5S 5H 5D")]),
                         Discard(seat=0, card="KH"))
    assert not any(isinstance(e, ev.PauseEnded) for e in events)
    assert isinstance(deadline(state).command, EndPause)


def test_r23_ready_is_refused_while_a_hand_is_in_play():
    state = given_state(dealt(SEAT_0, SEAT_1, SEAT_2, stock=STOCK) + [drew(0, "9C"), discarded(0, "2C")])
    assert refusal_of(decide(state, Ready(seat=1))).reason == "not_paused"
