"""R9 the turn's discard, which ends it; R15 going out on it, which ends the hand."""
from zioncheck.contracts.commands import Discard
from zioncheck.contracts.events import AnyEvent, Discarded
from zioncheck.domain.evolve import evolve
from zioncheck.domain.gates import after_the_draw, card, holds
from zioncheck.domain.going_out import end_of_hand
from zioncheck.domain.state import GameState


def discard(state: GameState, command: Discard) -> list[AnyEvent]:
    card_ = card(command.card)
    seat = command.seat
    after_the_draw(state, seat)
    holds(state, seat, card_)
    discarded = Discarded(seat=seat, card=card_)
    events: list[AnyEvent] = [discarded]
    if len(state.hands[seat]) == 1:
        events += end_of_hand(evolve(state, discarded), winner=seat)
    return events
