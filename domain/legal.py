"""What a seat may do now: the moves decide accepts, listed for the seat's view (docs/rules.md, after R18).

Every move is found by the checks decide itself makes (domain/gates.py, the deciders, R13's
`fitting_ends`, R14's `stands_for`, R12's `read_contract`), so a move listed here is never refused.
Only R18's first check of a turn's steps, that the turn is the seat's, is asked here as a question
rather than met as a refusal: most seats are not the turn seat, and this runs for every seat after
every move at the table.
"""
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

from zioncheck.contracts.commands import ClaimDiscard, Command, DrawStock, Ready, TakeDiscard
from zioncheck.contracts.events import AnyEvent
from zioncheck.contracts.views import JokerSwapMove, LayOffMove, SeatMoves
from zioncheck.domain.cards import JOKER
from zioncheck.domain.claims import claim
from zioncheck.domain.drawing import draw_stock, take_discard
from zioncheck.domain.finder import find_contract, least_contract
from zioncheck.domain.gates import seat_in_play
from zioncheck.domain.hands import Contract
from zioncheck.domain.joker_swap import stands_for
from zioncheck.domain.laying_off import fitting_cards, fitting_ends, open_ends
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import GameState
from zioncheck.domain.timers import ready

C = TypeVar("C", bound=Command)


def legal_moves(state: GameState, seat: int) -> SeatMoves:
    """What `seat` may do now (R9-R15, R18): each move listed is one `decide` accepts.

    A seat with no hand in play (an unknown seat, a game over, between hands) may do nothing, but say
    it is ready for the next hand while the game pauses after one (R23).
    """
    if not _passes(seat_in_play, state, seat):
        return SeatMoves(ready=_accepted(ready, state, Ready(seat=seat)))
    hand = state.hands[seat]
    turn = seat == state.turn   # R18 not_your_turn: the steps of a turn are the turn seat's alone
    step = turn and state.drawn   # R9: between the turn's draw and its discard (after_the_draw)
    down = state.down[seat]
    return SeatMoves(
        draw_stock=turn and _draws(state, seat),
        take_discard=turn and _accepted(take_discard, state, TakeDiscard(seat=seat)),
        claim=_accepted(claim, state, ClaimDiscard(seat=seat)),
        go_down=contract_melds(hand, state.contract) if step and not down else [],
        # R15: the last card is kept to discard; R24.10: unless laying it off goes out
        lay_off=lay_off_moves(state, seat) if step and down and (len(hand) > 1 or state.rules.out_by_laying_off)
        else [],
        swap_joker=joker_swap_moves(state, seat),
        discard=list(dict.fromkeys(hand)) if step else [],
    )


def _passes(check: Callable[[GameState, int], None], state: GameState, seat: int) -> bool:
    try:
        check(state, seat)
        return True
    except Refused:
        return False


def _accepted(decider: Callable[[GameState, C], list[AnyEvent]], state: GameState, command: C) -> bool:
    try:
        decider(state, command)
        return True
    except Refused:
        return False


def _draws(state: GameState, seat: int) -> bool:
    """R9, R16: a draw from the stock; one that finds it empty is the table's to reshuffle first."""
    try:
        draw_stock(state, DrawStock(seat=seat))
        return True
    except Refused as refusal:
        return refusal.reason == "stock_empty"


def contract_melds(hand: tuple[str, ...], contract: int | Contract) -> list[list[str]]:
    """R12, R12a, R15: melds of `hand` that meet the contract (or Zioncheck hand `contract`'s) and leave a
    card to discard, or none when no melds of the hand do. The exact search says whether any do; then
    whole sets and long runs where the bots' quick search finds them, else the exact search's short
    melds. R24.6: a contract laid whole, melds of every card its search finds."""
    return [list(meld) for meld in _contract_melds(hand, contract)]


@lru_cache(maxsize=1 << 12)
def _contract_melds(hand: tuple[str, ...], contract: int | Contract) -> tuple[tuple[str, ...], ...]:
    """contract_melds, kept: a seat's view is worked out again after every move at the table, and the
    seat's cards stay the same through most of them."""
    least = least_contract(hand, contract)
    if not least:   # the exact search finds none, so the quick one cannot either
        return ()
    return tuple(tuple(meld) for meld in find_contract(hand, contract) or least)


def lay_off_moves(state: GameState, seat: int) -> list[LayOffMove]:
    """R13: every card of the seat's and every meld end that takes it, in the order of the seat's
    cards, then of the table; a run's end named even where only one takes the card. R24.11: where the
    game moves a run's joker, the card it stands for too, with each end the joker may move to."""
    held = dict.fromkeys(state.hands[seat])
    moving = state.rules.joker_swaps == "move"
    fits: dict[str, list[LayOffMove]] = {}
    for meld in state.table:
        for card in fitting_cards(meld).intersection(held):
            for end in fitting_ends(meld, card):
                fits.setdefault(card, []).append(LayOffMove(card=card, owner=meld.owner, index=meld.index, end=end))
        if moving and meld.kind == "run" and JOKER in meld.cards:
            for position, placed in enumerate(meld.cards):
                card = stands_for(meld, position)
                if placed == JOKER and card in held:
                    fits.setdefault(card, []).extend(
                        LayOffMove(card=card, owner=meld.owner, index=meld.index, end=end) for end in open_ends(meld))
    return [move for card in held for move in fits.get(card, [])]


def joker_swap_moves(state: GameState, seat: int) -> list[JokerSwapMove]:
    """R14: every joker in a run on the table whose card the seat holds, once per card and run, in the
    order of the table. Jokers in sets stay there; R24.11: so do all, where the game moves them instead."""
    if state.rules.joker_swaps == "move":
        return []
    hand = state.hands[seat]
    found: list[JokerSwapMove] = []
    for meld in state.table:
        if meld.kind != "run" or JOKER not in meld.cards:
            continue
        for position, placed in enumerate(meld.cards):
            if placed != JOKER:
                continue
            move = JokerSwapMove(card=stands_for(meld, position), owner=meld.owner, index=meld.index)
            if move.card in hand and move not in found:
                found.append(move)
    return found
