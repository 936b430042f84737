"""R14: taking a joker out of a run by covering it with the card it stands for; R24.11 not where the game
moves the joker to an end of the run instead (domain/laying_off.py)."""
from zioncheck.contracts.commands import SwapJoker
from zioncheck.contracts.events import AnyEvent, JokerSwapped
from zioncheck.domain.cards import JOKER, card_at
from zioncheck.domain.gates import card, holds, seat_in_play
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import GameState, PlacedMeld, find_meld


def swap_joker(state: GameState, command: SwapJoker) -> list[AnyEvent]:
    card_ = card(command.card)
    seat = command.seat
    seat_in_play(state, seat)
    holds(state, seat, card_)
    owner, index = command.target
    meld = find_meld(state, owner, index)
    if meld is None:
        raise Refused("no_such_meld", f"seat {owner} has no meld {index} on the table")
    position = joker_standing_for(meld, card_)
    if state.rules.joker_swaps == "move":
        raise Refused("joker_stays", f"the joker in {' '.join(meld.cards)} is not taken back: lay {card_} off in "
                                     f"its place, and the joker moves to an end of the run (R24.11)")
    return [JokerSwapped(seat=seat, owner=owner, index=index, card=card_, position=position)]


def joker_standing_for(meld: PlacedMeld, card_: str) -> int:
    """The position of the run's joker that stands for `card_` (R6), or a refusal."""
    shown = " ".join(meld.cards)
    if meld.kind == "set":
        if JOKER in meld.cards:
            raise Refused("joker_in_set", f"a joker in a set can never be taken: {shown} (R14)")
        raise Refused("no_joker_to_swap", f"the set {shown} holds no joker")
    for position, placed in enumerate(meld.cards):
        if placed == JOKER and stands_for(meld, position) == card_:
            return position
    raise Refused("no_joker_to_swap", f"no joker in {shown} stands for {card_}")


def stands_for(run: PlacedMeld, position: int) -> str:
    """R6: the natural card that the place `position` of a run calls for, the card a joker there stands for."""
    return card_at(run.low + position, run.suit)
