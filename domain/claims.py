"""R11a: out-of-turn claims on the top discard, and how their window closes; R22: a window held
open for people before a bot draws; R24.5 buying, R24.9 no buying once down where the game says so."""
from collections.abc import Iterable

from zioncheck.contracts.commands import ClaimDiscard
from zioncheck.contracts.events import AnyEvent, ClaimFailed, ClaimWon, DiscardClaimed, StockDrawn, StockExhausted
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
    may_take(state, seat, "claim")
    return [DiscardClaimed(seat=seat, card=top)]


def may_take(state: GameState, seat: int, what: str) -> None:
    """R24.9: where the game says so (Liverpool rummy), a seat that has gone down takes no more cards from the
    discard pile, on its turn or by a claim."""
    if not state.rules.buy_when_down and state.down[seat]:
        raise Refused("down_cannot_take", f"seat {seat} has gone down: it may not {what} {state.top} (R24.9)")


def nearest_claimant(discarder: int, claims: Iterable[int], players: int) -> int:
    """R11a: the claimant sitting nearest after the discarder, clockwise."""
    return min(claims, key=lambda seat: clockwise(discarder, seat, players))


def winning_claimant(state: GameState) -> int:
    """R11a, R24.5: the claim that wins the open window's card: the first the commands stream brought
    (`state.claims` is in its order) where the game buys so, else the nearest after the discarder."""
    if state.rules.buys == "first":
        return state.claims[0]
    return nearest_claimant(state.top_discarder or 0, state.claims, state.players)


def outcomes_on_stock_draw(state: GameState, drawn: StockDrawn | StockExhausted
                           ) -> list[StockDrawn | StockExhausted | ClaimWon | ClaimFailed]:
    """R11a: the turn player draws from the stock (`state` is before that draw, `drawn` the draw as it would
    be with no claim, or R16's draw that finds no card): the winning claimant gets the card, and the others'
    claims fail.

    R24.5: where a won claim costs a card, the buyer takes the discard and the stock's top card before the
    turn player goes on, whose draw then takes the next card; a stock of one card goes to the turn player's
    draw, with no penalty card (decided)."""
    top = state.top
    # A window opens only on a seat's discard, so an open one always has a top card and its discarder.
    if not (state.window_open and state.claims) or state.top_discarder is None or top is None:
        return [drawn]
    winner = winning_claimant(state)
    won = ClaimWon(seat=winner, card=top)
    failed = [ClaimFailed(seat=seat, card=top, why="nearer_claimant") for seat in state.claims if seat != winner]
    if isinstance(drawn, StockDrawn) and state.rules.penalty_card and state.stock[1:]:
        return [won, StockDrawn(seat=winner, card=state.stock[0]), StockDrawn(seat=drawn.seat, card=state.stock[1]),
                *failed]
    return [drawn, won, *failed]


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
    return any(state.present(seat) and (state.rules.buy_when_down or not state.down[seat])   # R24.9
               for seat in range(state.players) if seat not in (state.turn, state.top_discarder))
