"""The dealer's side of a game: seeds, commitments, deals (R8) and reshuffles (R16).

Each hand has its own secret seed; the deal and every reshuffle of that hand are
derived from it (domain.fairness), so revealing the seed lets anyone check them.
"""
import hashlib
import secrets
from collections.abc import Callable
from typing import NamedTuple

from contracts.commands import Deal, Reshuffle, RevealSeed
from domain.cards import full_decks
from domain.dealing import deal_out, dealer_of
from domain.fairness import commitment, permutation
from domain.hands import CONTRACTS
from domain.state import GameState

SeedSource = Callable[[int], str]


def random_seeds() -> SeedSource:
    """A fresh CSPRNG seed per hand: for real games."""
    chosen: dict[int, str] = {}
    return lambda hand: chosen.setdefault(hand, secrets.token_hex(32))


def seeded(master: int | str, game_id: str) -> SeedSource:
    """Seeds that follow from one master seed: the same seed gives the same game."""
    return lambda hand: hashlib.sha256(f"{master}/{game_id}/{hand}".encode()).hexdigest()


class Dealer:
    def __init__(self, seeds: SeedSource):
        self._seeds = seeds

    def deal(self, state: GameState) -> Deal:
        hand = state.hand + 1
        seed = self._seeds(hand)
        dealt = deal_from_seed(seed, state, hand)
        return Deal(hand=hand, hands=dealt.hands, stock=dealt.stock, commitment=commitment(seed))

    def reshuffle(self, state: GameState) -> Reshuffle:
        order = reshuffle_order(self._seeds(state.hand), state.reshuffles + 1, len(state.discard) - 1)
        return Reshuffle(hand=state.hand, order=order)

    def reveal(self, hand: int) -> RevealSeed:
        return RevealSeed(hand=hand, seed=self._seeds(hand))


class Dealt(NamedTuple):
    """A hand's cards as a seed deals them (R8): each seat's, then the stock, top first."""
    hands: list[list[str]]
    stock: list[str]


def deal_from_seed(seed: str, state: GameState, hand: int) -> Dealt:
    """R1, R7, R8: the decks shuffled by the seed, dealt out from the dealer's left."""
    deck = full_decks(state.decks)
    per_seat = CONTRACTS[hand].dealt
    if per_seat * state.players > len(deck):
        raise ValueError(f"{state.decks} decks cannot deal {per_seat} cards to {state.players} players")
    shuffled = [deck[i] for i in permutation(seed, "deal", len(deck))]
    hands, stock = deal_out(shuffled, state.players, dealer_of(state.first_dealer, hand, state.players), per_seat)
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
