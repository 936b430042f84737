"""R11a: out-of-turn claims on the top discard, and how their window closes; R22: a window held
open for people before a bot draws."""
from collections.abc import Iterable

from zioncheck.contracts.commands import ClaimDiscard
from zioncheck.contracts.events import AnyEvent, ClaimFailed, ClaimWon, DiscardClaimed, StockDrawn
from zioncheck.domain.gates import seat_in_play
from zioncheck.domain.refusal import Refused
from zioncheck.domain.seats import clockwise
from zioncheck.domain.state import GameState


def claim(state: GameState, command: ClaimDiscard) -> list[AnyEvent]:
    seat, top = command.seat, state.top
    seat_in_play(state, seat)
    if state.discard and state.top_discarder == seat:
        raise Refused("cannot_take_own_discard", f"seat {seat} discarded {top} itself")
    if seat == state.turn:
        raise Refused("turn_player_cannot_claim", "the turn player takes the discard, not claims it (R10)")
    if top is None:
        raise Refused("no_discard", "the discard pile is empty")
    if not state.window_open:
        raise Refused("claim_window_closed", f"the window on {top} closed when seat {state.turn} drew")
    if seat in state.claims:
        raise Refused("already_claimed", f"seat {seat} has already claimed {top}")
    return [DiscardClaimed(seat=seat, card=top)]


def nearest_claimant(discarder: int, claims: Iterable[int], players: int) -> int:
    """R11a: the claimant sitting nearest after the discarder, clockwise."""
    return min(claims, key=lambda seat: clockwise(discarder, seat, players))


def outcomes_on_stock_draw(state: GameState) -> list[ClaimWon | StockDrawn | ClaimFailed]:
    """R11a: the turn player drew from the stock (`state` is before that draw); the nearest claimant
    gets the card. R24.5: where the game says so, a penalty card too, the next of the stock, if any."""
    discarder, top = state.top_discarder, state.top
    # A window opens only on a seat's discard, so an open one always has a top card and its discarder.
    if not (state.window_open and state.claims) or discarder is None or top is None:
        return []
    winner = nearest_claimant(discarder, state.claims, state.players)
    won: list[ClaimWon | StockDrawn | ClaimFailed] = [ClaimWon(seat=winner, card=top)]
    if state.rules.penalty_card and state.stock[1:]:
        won.append(StockDrawn(seat=winner, card=state.stock[1]))
    return won + [
        ClaimFailed(seat=seat, card=top, why="nearer_claimant") for seat in state.claims if seat != winner
    ]


def outcomes_on_take(state: GameState) -> list[ClaimFailed]:
    """R11a: the turn player took the discard; every claim on it fails."""
    top = state.top
    if not state.window_open or top is None:
        return []
    return [ClaimFailed(seat=seat, card=top, why="turn_player_took") for seat in state.claims]


def held(state: GameState) -> bool:
    """R22: the open window waits for a person's claim: a bot has the turn and has not drawn, a person
    at the table other than the discarder may claim, and the window's `claim_seconds` have not run."""
    if not state.window_open or state.released or state.hand_over or state.drawn or state.game_over:
        return False
    if not state.limits.claim_seconds or state.present(state.turn):
        return False
    return any(state.present(seat) for seat in range(state.players) if seat not in (state.turn, state.top_discarder))
