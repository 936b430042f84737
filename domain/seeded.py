"""What a hand's seed gives: its deal (R1, R7, R8) and its reshuffles (R16), and when one is due.

Pure: the seed comes from outside (the dealer service's CSPRNG, or a simulation's
master seed); domain.fairness turns it into an order anyone can re-derive.
"""
from typing import NamedTuple

from zioncheck.domain.cards import full_decks
from zioncheck.domain.dealing import deal_out, dealer_of
from zioncheck.domain.fairness import permutation
from zioncheck.domain.state import GameState


class Dealt(NamedTuple):
    """A hand's cards as a seed deals them (R8): each seat's, then the stock, top first, and the pile
    (R24.4: the upcard, where the game turns one)."""
    hands: list[list[str]]
    stock: list[str]
    discard: list[str] = []


def deal_from_seed(seed: str, state: GameState, hand: int) -> Dealt:
    """R1, R7, R8: the decks shuffled by the seed, dealt out from the dealer's left; R24.4: then the
    stock's top card turned up to start the pile, where the game's rules say so."""
    rules = state.rules
    deck = full_decks(state.decks, rules.jokers_for(state.decks))
    contract = rules.contract(hand)
    if contract is None:
        raise ValueError(f"the game has no hand {hand}")
    per_seat = contract.dealt
    if per_seat * state.players + rules.upcard > len(deck):
        raise ValueError(f"{state.decks} decks cannot deal {per_seat} cards to {state.players} players")
    shuffled = [deck[i] for i in permutation(seed, "deal", len(deck))]
    hands, stock = deal_out(shuffled, state.players, dealer_of(state.first_dealer, hand, state.players), per_seat)
    if rules.upcard:
        return Dealt(hands=hands, stock=stock[1:], discard=stock[:1])
    return Dealt(hands=hands, stock=stock)


def reshuffle_order(seed: str, number: int, count: int) -> list[int]:
    """R16: the hand's `number`-th reshuffle of `count` cards uses the label reshuffle-<number>."""
    return permutation(seed, f"reshuffle-{number}", count)


def reshuffle_refusal(state: GameState, hand: int, number: int, count: int) -> str:
    """Why the dealer must not answer a reshuffle request for this game state, or "".

    A reshuffle order tells which card each next draw gives, so it is handed out only
    for the draw that needs it: a live hand, its stock empty, the next reshuffle's
    number, and exactly the cards below the top of the pile (R16).
    """
    if not state.started or state.game_over:
        return "no live game"
    if state.hand_over or hand != state.hand:
        return f"hand {hand} is not in play (hand {state.hand} is{' over' if state.hand_over else ''})"
    if state.stock:
        return f"the stock still holds {len(state.stock)} cards"
    if number != state.reshuffles + 1:
        return f"reshuffle {number} asked, the next is {state.reshuffles + 1}"
    if count != len(state.discard) - 1:
        return f"{count} cards asked, the pile has {len(state.discard) - 1} below its top"
    return ""
