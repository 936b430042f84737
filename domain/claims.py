"""R11a: out-of-turn claims on the top discard, and how their window closes."""
from contracts.commands import ClaimDiscard
from contracts.events import ClaimFailed, ClaimWon, DiscardClaimed
from domain.gates import seat_in_play
from domain.refusal import Refused
from domain.state import GameState


def claim(state: GameState, command: ClaimDiscard) -> list:
    seat = command.seat
    seat_in_play(state, seat)
    if state.discard and state.top_discarder == seat:
        raise Refused("cannot_take_own_discard", f"seat {seat} discarded {state.top} itself")
    if seat == state.turn:
        raise Refused("turn_player_cannot_claim", "the turn player takes the discard, not claims it (R10)")
    if not state.discard:
        raise Refused("no_discard", "the discard pile is empty")
    if not state.window_open:
        raise Refused("claim_window_closed", f"the window on {state.top} closed when seat {state.turn} drew")
    if seat in state.claims:
        raise Refused("already_claimed", f"seat {seat} has already claimed {state.top}")
    return [DiscardClaimed(seat=seat, card=state.top)]


def nearest_claimant(discarder: int, claims, players: int) -> int:
    """R11a: the claimant sitting nearest after the discarder, clockwise."""
    return min(claims, key=lambda seat: (seat - discarder) % players)


def outcomes_on_stock_draw(state: GameState) -> list:
    """R11a: the turn player drew from the stock; the nearest claimant gets the card."""
    if not (state.window_open and state.claims):
        return []
    winner = nearest_claimant(state.top_discarder, state.claims, state.players)
    return [ClaimWon(seat=winner, card=state.top)] + [
        ClaimFailed(seat=seat, card=state.top, why="nearer_claimant") for seat in state.claims if seat != winner
    ]


def outcomes_on_take(state: GameState) -> list:
    """R11a: the turn player took the discard; every claim on it fails."""
    if not state.window_open:
        return []
    return [ClaimFailed(seat=seat, card=state.top, why="turn_player_took") for seat in state.claims]
