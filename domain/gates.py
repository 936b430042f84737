"""The checks every seat command shares, in R18's order."""
from collections.abc import Iterable

from zioncheck.domain.cards import canonical
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import GameState


def card(text: object) -> str:
    """R2, R18 bad_command: the canonical card, or a refusal naming what was sent."""
    found = canonical(text)
    if found is None:
        raise Refused("bad_command", f"not a card: {text!r} (cards look like 10C, AS, QH, JK)")
    return found


def seat_in_play(state: GameState, seat: int) -> None:
    """R18: unknown_seat, then game_over, then hand_over."""
    if not 0 <= seat < state.players:
        raise Refused("unknown_seat", f"no seat {seat} at a table of {state.players}")
    if state.game_over:
        raise Refused("game_over", "the game is over")
    if state.hand_over:
        raise Refused("hand_over", "no hand is in play")


def own_turn(state: GameState, seat: int) -> None:
    if seat != state.turn:
        raise Refused("not_your_turn", f"it is seat {state.turn}'s turn, not seat {seat}'s")


def has_drawn(state: GameState) -> None:
    if not state.drawn:
        raise Refused("must_draw_first", "draw a card first (R9)")


def after_the_draw(state: GameState, seat: int) -> None:
    """R18 for a move between the turn's draw and its discard (R9): the seat is in play, it is its
    turn, and it has drawn."""
    seat_in_play(state, seat)
    own_turn(state, seat)
    has_drawn(state)


def holds(state: GameState, seat: int, card_: str) -> None:
    if card_ not in state.hands[seat]:
        raise Refused("card_not_in_hand", not_held(state, seat, [card_]))


def not_held(state: GameState, seat: int, cards: Iterable[str]) -> str:
    return f"card not in hand: {' '.join(cards)} (seat {seat} holds {' '.join(state.hands[seat])})"
