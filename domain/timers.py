"""R19-R23, service rules rather than card rules: a turn's deadline, idle seats, abandoned games, a
claim window held for people, the pause between hands.

No clock here. `deadline` says which timer should run after a state and for how many
seconds; the table service reads the clock and asks the server to deliver the timer's
command when that time comes (services/table). The command names the turn or absence it
is for, so a timer that comes late changes nothing (`timer_stale`), and a replay decides
exactly as the table did.
"""
from dataclasses import dataclass

from zioncheck.contracts.commands import (
    BOT_NAMES,
    PERSON,
    AbandonGame,
    ClaimDiscard,
    Command,
    Discard,
    DrawStock,
    EndPause,
    GoDown,
    LayOff,
    Limits,
    Ready,
    ReleaseWindow,
    SwapJoker,
    TakeDiscard,
    TurnTimeout,
)
from zioncheck.contracts.events import (
    AnyEvent,
    GameAbandoned,
    GameEnded,
    PauseEnded,
    SeatBack,
    SeatIdle,
    SeatReady,
    TurnTimedOut,
    WindowReleased,
)
from zioncheck.domain.claims import held
from zioncheck.domain.going_out import game_winners, pausing
from zioncheck.domain.refusal import Refused, refusal_of
from zioncheck.domain.state import GameState

# (least, most) each limit may be. A turn of 5 seconds is a blitz game; a week without anyone is long.
LIMIT_BOUNDS: dict[str, tuple[float, float]] = {
    "turn_seconds": (5, 3600),
    "idle_turns": (1, 20),
    "abandon_seconds": (60, 7 * 24 * 3600),
    "bot_seconds": (0, 10),
    "claim_seconds": (0, 30),
    "pause_seconds": (0, 120),
}
# R20: an idle seat's turn is the bot's at once; the second leaves its person a moment to come back.
IDLE_SEAT_SECONDS = 1.0
SEAT_COMMANDS = (DrawStock, TakeDiscard, ClaimDiscard, GoDown, LayOff, SwapJoker, Discard, Ready)


def check_limits(limits: Limits) -> None:
    """A start's limits within LIMIT_BOUNDS, or bad_command naming the first that is not."""
    for name, (least, most) in LIMIT_BOUNDS.items():
        value = getattr(limits, name)
        if not least <= value <= most:
            raise Refused("bad_command", f"{name} must be {least:g} to {most:g}, not {value:g}")


def check_seats(seats: list[str], players: int) -> None:
    """R20: a start names who sits in every seat, or in none (then a person sits in each)."""
    if seats and len(seats) != players:
        raise Refused("bad_command", f"seats names {len(seats)} seats at a table of {players}")
    for seat, who in enumerate(seats):
        if who != PERSON and who not in BOT_NAMES:
            raise Refused("bad_command", f"seat {seat}: {who[:40]!r} is neither {PERSON!r} nor a bot "
                                         f"({', '.join(BOT_NAMES)})")


def nobody_left(state: GameState) -> bool:
    """R21: persons were seated, and a bot keeps every one of their seats."""
    persons = [seat for seat in range(state.players) if state.person(seat)]
    return bool(persons) and all(state.idle[seat] for seat in persons)


def turn_timeout(state: GameState, command: TurnTimeout) -> list[AnyEvent]:
    """R19: the turn ran out: a bot plays it (application/turns.py); R20: the seat's person is idle
    once `idle_turns` of its turns in a row have run out."""
    if state.game_over or state.hand_over or (command.hand, command.turn) != (state.hand, state.turn_no):
        raise Refused("timer_stale", f"turn {command.turn} of hand {command.hand} is over "
                                     f"(now turn {state.turn_no} of hand {state.hand})")
    if held(state):   # R22: its window still waits for a claim (no such timer is set meanwhile)
        raise Refused("timer_stale", f"turn {command.turn} waits on its claim window")
    seat = state.turn
    events: list[AnyEvent] = [TurnTimedOut(seat=seat, hand=state.hand, turn=state.turn_no)]
    if state.person(seat) and not state.idle[seat] and state.timeouts[seat] + 1 >= state.limits.idle_turns:
        events.append(SeatIdle(seat=seat))
    return events


def abandon_game(state: GameState, command: AbandonGame) -> list[AnyEvent]:
    """R21: no person came back in `abandon_seconds`: the game ends with the hands played so far."""
    if state.game_over or command.presence != state.presence or not nobody_left(state):
        raise Refused("timer_stale", "a person came back to the game" if not nobody_left(state)
                      else "the game is over" if state.game_over else "the seats changed since that deadline")
    totals = list(state.totals)
    return [GameAbandoned(hand=state.hand, mid_hand=not state.hand_over),
            GameEnded(totals=totals, winners=game_winners(totals))]


def release_window(state: GameState, command: ReleaseWindow) -> list[AnyEvent]:
    """R22: the window has waited its `claim_seconds` for a person's claim: the bot may draw."""
    if not held(state) or (command.hand, command.turn) != (state.hand, state.turn_no):
        raise Refused("timer_stale", f"the window of turn {command.turn} of hand {command.hand} is not held")
    return [WindowReleased(hand=command.hand, turn=command.turn)]


def end_pause(state: GameState, command: EndPause) -> list[AnyEvent]:
    """R23: the pause after the hand ran its `pause_seconds`: the next hand may be dealt."""
    if not pausing(state) or command.hand != state.hand:
        raise Refused("timer_stale", f"no pause after hand {command.hand} is running")
    return [PauseEnded(hand=command.hand, why="timer")]


def ready(state: GameState, command: Ready) -> list[AnyEvent]:
    """R23: a person ready for the next hand; once every person at the table is, the pause ends."""
    seat = command.seat
    if not 0 <= seat < state.players:
        raise Refused("unknown_seat", f"no seat {seat} at a table of {state.players}")
    if state.game_over:
        raise Refused("game_over", "the game is over")
    if not pausing(state):
        raise Refused("not_paused", "a hand is in play" if not state.hand_over else "the next hand is being dealt")
    if state.is_ready(seat):
        raise Refused("already_ready", f"seat {seat} is ready already")
    events: list[AnyEvent] = [SeatReady(seat=seat)]
    if all(state.is_ready(s) for s in range(state.players) if s != seat and state.present(s)):
        events.append(PauseEnded(hand=state.hand, why="ready"))
    return events


def back(state: GameState, command: Command, events: list[AnyEvent]) -> list[AnyEvent]:
    """R20: a seat's own accepted command brings its person back: the seat is theirs again (and a hand
    it ends pauses for them, R23)."""
    if not isinstance(command, SEAT_COMMANDS) or refusal_of(events) is not None:
        return events
    seat = command.seat
    if state.idle[seat] or (state.person(seat) and state.timeouts[seat]):
        if state.idle[seat]:
            events = [e for e in events if not (isinstance(e, PauseEnded) and e.why == "nobody")]
        return [SeatBack(seat=seat), *events]
    return events


@dataclass(frozen=True)
class Deadline:
    """The timer a state calls for: its command, delivered `seconds` after the state began."""
    seconds: float
    command: TurnTimeout | AbandonGame | ReleaseWindow | EndPause


def deadline(state: GameState) -> Deadline | None:
    """The one timer that should run after `state` (R19-R23); None while nothing waits on a seat."""
    if not state.started or state.game_over:
        return None
    if nobody_left(state):
        return Deadline(float(state.limits.abandon_seconds), AbandonGame(presence=state.presence))
    if state.hand_over:
        return Deadline(float(state.limits.pause_seconds), EndPause(hand=state.hand)) if pausing(state) else None
    if held(state):
        return Deadline(float(state.limits.claim_seconds), ReleaseWindow(hand=state.hand, turn=state.turn_no))
    seconds = IDLE_SEAT_SECONDS if state.idle[state.turn] else float(state.limits.turn_seconds)
    return Deadline(seconds, TurnTimeout(hand=state.hand, turn=state.turn_no))
