"""A command's turn at the table: decide, and when R16 empties the stock, ask for a reshuffle
and decide again. This step exists once; the table in process (below) and the table service
(services/table) both drive it, one asking a Dealer in process, the other the dealer service.
"""
import random
from collections.abc import Awaitable, Callable, Generator

from zioncheck.application.reading import read_command, stock_empty
from zioncheck.application.seeds import Dealer
from zioncheck.bots.greedy import GreedyBot
from zioncheck.contracts.commands import PLAY, Command, Discard, DrawStock, Reshuffle, TurnTimeout
from zioncheck.contracts.dealer import ReshuffleRequest
from zioncheck.contracts.events import AnyEvent, GameStarted, Rejected, TurnTimedOut
from zioncheck.contracts.log import Entry
from zioncheck.domain import GameState, decide, evolve, fold
from zioncheck.domain.decide import decide_move
from zioncheck.domain.refusal import refusal_of

# A turn yields the reshuffle it needs and is sent the dealer's answer (None: no dealer here).
Turn = Generator[ReshuffleRequest, Reshuffle | None, list[AnyEvent]]


def turn(state: GameState, command: Command, decider: Callable[[GameState, Command], list[AnyEvent]] = decide) -> Turn:
    """The events `command` causes in `state`, reshuffling first if its draw finds the stock empty;
    after a turn's timeout (R19), the moves of the bot that plays that turn."""
    events = decider(state, command)
    if isinstance(command, TurnTimeout) and events and isinstance(events[0], TurnTimedOut):
        return events + (yield from stand_in(fold(state, events), events[0].seat))
    if not stock_empty(events):
        return events
    reshuffle = yield ReshuffleRequest(game_id=state.game_id, hand=state.hand, reshuffle=state.reshuffles + 1,
                                       count=len(state.discard) - 1)
    if reshuffle is None:  # no dealer to ask (a scenario stacks its own stock): the draw stays refused
        return events
    reshuffled = decide(state, reshuffle)
    return reshuffled + decider(fold(state, reshuffled), command)


STAND_IN_STEPS = 60   # far more than any turn takes: a draw, a going down, lay-offs, swaps, a discard


def stand_in(state: GameState, seat: int) -> Turn:
    """R19: the greedy bot plays the rest of `seat`'s turn, its choices seeded by the game, hand and
    turn alone, so deciding the same timeout again gives the same moves. Its refused moves are left
    out (it then draws from the stock, or once drawn discards its first card); its moves never bring the
    seat's person back (R20)."""
    bot = GreedyBot(random.Random(f"{state.game_id}/{state.hand}/{state.turn_no}/{seat}"))
    played: list[AnyEvent] = []
    started = state.turn_no
    for _ in range(STAND_IN_STEPS):
        if state.game_over or state.hand_over or state.turn_no != started:
            break
        events = yield from turn(state, bot.move(state, seat), decide_move)
        if refusal_of(events) is not None and not state.drawn:   # say, a take R24.9 refuses a seat that is down
            events = yield from turn(state, DrawStock(seat=seat), decide_move)
        elif refusal_of(events) is not None and state.hands[seat]:
            events = yield from turn(state, Discard(seat=seat, card=state.hands[seat][0]), decide_move)
        if refusal_of(events) is not None:
            break   # nothing it may do: the turn waits for its next timeout
        played += events
        state = fold(state, events)
    return played


def stale_timer(events: list[AnyEvent]) -> bool:
    """A timeout come after the turn or absence it was for (R19, R21): the log need not say so."""
    rejected = refusal_of(events)
    return rejected is not None and rejected.reason == "timer_stale"


# The refusals a game's log keeps: far more than people make in a game (a whole game is about 1,500
# batches), so a seat that sends refused commands without end cannot fill its game's log to the
# store's limit and stop the game. Past it a refusal is told to its sender alone.
LOGGED_REFUSALS = 2_000


def told_not_logged(state: GameState, events: list[AnyEvent], refusals: int) -> bool:
    """Whether the table tells a command's outcome to its sender alone and leaves it out of the game's
    log: the refusal of a command for a game not started (there is no log to land in), and any refusal
    once the log holds `refusals` >= LOGGED_REFUSALS. A refusal changes nothing in the game, so the
    log folds the same either way."""
    if not state.started:
        return not isinstance(events[0], GameStarted)
    return refusals >= LOGGED_REFUSALS and refusal_of(events) is not None


def play_turn(state: GameState, command: Command,
              dealer: Callable[[ReshuffleRequest], Reshuffle | None]) -> list[AnyEvent]:
    """Drive a turn to its end, answering its reshuffle requests at once."""
    steps = turn(state, command)
    try:
        request = next(steps)
        while True:
            request = steps.send(dealer(request))
    except StopIteration as done:
        return done.value


async def play_turn_async(state: GameState, command: Command,
                          dealer: Callable[[ReshuffleRequest], Awaitable[Reshuffle]]) -> list[AnyEvent]:
    """Drive a turn to its end, awaiting each reshuffle the dealer sends back."""
    steps = turn(state, command)
    try:
        request = next(steps)
        while True:
            request = steps.send(await dealer(request))
    except StopIteration as done:
        return done.value


class InProcessTable:
    """One game's state and log in process, fed commands one at a time: the scenario oracle's
    and the simulator's table."""

    def __init__(self, dealer: Dealer | None = None, state: GameState | None = None):
        self.dealer = dealer
        self.state = state or GameState()
        self.log: list[Entry] = []

    def handle(self, command: Command, cause: int | None = None) -> list[AnyEvent]:
        """Apply one command; returns the events it produced (a Rejected when refused)."""
        cause = len(self.log) if cause is None else cause
        events = play_turn(self.state, command, self._reshuffle)
        if stale_timer(events):
            return events   # as the table service: a timer come after its turn leaves no trace in the log
        return self.record(events, cause)

    def handle_bytes(self, data: bytes, origin: str = PLAY, cause: int | None = None) -> list[AnyEvent]:
        """Read a command off the wire and apply it; bytes that are no command are refused, as the
        table service refuses them (the refusal is returned, not recorded)."""
        command = read_command(data, origin)
        return [command] if isinstance(command, Rejected) else self.handle(command, cause)

    def _reshuffle(self, request: ReshuffleRequest) -> Reshuffle | None:
        return None if self.dealer is None else self.dealer.reshuffle(self.state)

    def record(self, events: list[AnyEvent], cause: int) -> list[AnyEvent]:
        for event in events:
            self.state = evolve(self.state, event)
            self.log.append(Entry(seq=len(self.log) + 1, cause=cause, event=event))
        return events
