"""R9 and R10: the turn's draw, from the stock or the discard pile; R16 a dry stock; R24.9 no discard taken
once down, where the game says so."""
from zioncheck.contracts.commands import DrawStock, TakeDiscard
from zioncheck.contracts.events import AnyEvent, DiscardTaken, StockDrawn, StockExhausted
from zioncheck.domain.claims import held, may_take, outcomes_on_stock_draw, outcomes_on_take
from zioncheck.domain.evolve import fold
from zioncheck.domain.gates import own_turn, seat_in_play
from zioncheck.domain.going_out import end_of_hand
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import GameState


def draw_stock(state: GameState, command: DrawStock) -> list[AnyEvent]:
    seat = command.seat
    _may_draw(state, seat)
    if reshuffle_due(state):
        raise Refused("stock_empty", "the stock is empty: the dealer reshuffles the pile first (R16)")
    drawn = StockDrawn(seat=seat, card=state.stock[0]) if state.stock else StockExhausted(seat=seat)
    events: list[AnyEvent] = [*outcomes_on_stock_draw(state, drawn)]
    if isinstance(drawn, StockExhausted):
        events += end_of_hand(fold(state, events), winner=None)
    return events


def take_discard(state: GameState, command: TakeDiscard) -> list[AnyEvent]:
    seat, top = command.seat, state.top
    seat_in_play(state, seat)
    own_turn(state, seat)
    if state.discard and state.top_discarder == seat:
        raise Refused("cannot_take_own_discard", f"{top} is seat {seat}'s own discard (R10)")
    if top is None:
        raise Refused("no_discard", "the discard pile is empty")
    if state.drawn:
        raise Refused("already_drew", "this turn's card is already drawn (R10)")
    may_take(state, seat, "take")
    _not_held(state, seat)
    return [DiscardTaken(seat=seat, card=top), *outcomes_on_take(state)]


# R16a (decided): a hand that has rebuilt its stock this often is going nowhere (every
# seat can be down with cards nothing on the table takes); the next dry stock ends it.
MAX_RESHUFFLES = 20


def reshuffle_due(state: GameState) -> bool:
    """R16, R16a: the stock is empty and the pile holds cards below its top to reshuffle."""
    return not state.stock and len(state.discard) > 1 and state.reshuffles < MAX_RESHUFFLES


def _may_draw(state: GameState, seat: int) -> None:
    seat_in_play(state, seat)
    own_turn(state, seat)
    if state.drawn:
        raise Refused("already_drew", "this turn's card is already drawn (R10)")
    _not_held(state, seat)


def _not_held(state: GameState, seat: int) -> None:
    """R22: a bot seat draws only once the window held for people is released; a person draws at once."""
    if held(state) and not state.person(seat):
        raise Refused("window_held", f"seat {state.top_discarder}'s discard waits "
                                     f"{state.limits.claim_seconds:g} s for a person's claim (R22)")
