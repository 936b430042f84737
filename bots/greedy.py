"""The greedy bot: goes down at once, lays off, claims and swaps what helps, sheds points."""
import random

from zioncheck.bots.base import can_take, dearest, joker_swaps, least_useful, related
from zioncheck.contracts.commands import ClaimDiscard, Command, Discard, DrawStock, GoDown, LayOff, TakeDiscard
from zioncheck.domain.cards import JOKER
from zioncheck.domain.finder import find_contract, lay_offs
from zioncheck.domain.laying_off import fitting_ends
from zioncheck.domain.state import GameState


class GreedyBot:
    name = "greedy"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def move(self, state: GameState, seat: int) -> Command:
        hand = state.hands[seat]
        if not state.drawn:
            if can_take(state, seat) and self._wants(state, seat, state.top):
                return TakeDiscard(seat=seat)
            return DrawStock(seat=seat)
        swaps = joker_swaps(state, seat)
        if swaps:
            return swaps[0]
        if not state.down[seat]:
            melds = find_contract(hand, state.contract)
            if melds:
                return GoDown(seat=seat, melds=melds)
        elif len(hand) > 1:
            for card, meld, end in lay_offs(state, seat):
                return LayOff(seat=seat, target=(meld.owner, meld.index), card=card, end=end)
        return Discard(seat=seat, card=self._shed(state, seat))

    def out_of_turn(self, state: GameState, seat: int) -> list[Command]:
        commands: list[Command] = [*joker_swaps(state, seat)[:1]]
        if state.window_open and self._wants(state, seat, state.top):
            commands.append(ClaimDiscard(seat=seat))
        return commands

    def _wants(self, state: GameState, seat: int, card: str | None) -> bool:
        if card is None:  # no discard to want
            return False
        if card == JOKER:
            return True
        if state.down[seat]:
            return any(fitting_ends(meld, card) for meld in state.table)
        # Taking a card only to shed it again would pass it round the table for ever.
        return related(card, state.hands[seat]) and least_useful(list(state.hands[seat]) + [card]) != card

    def _shed(self, state: GameState, seat: int) -> str:
        """The most expensive card that helps least; jokers last (kept out of sets)."""
        hand = list(state.hands[seat])
        if not state.down[seat]:
            # Two seats can pass the same cards back and forth, and a hand that outlived its
            # stock is stuck on the same cards: now and then, shake the hand up.
            if self.rng.random() < (0.3 if state.reshuffles else 0.02):
                return self.rng.choice([c for c in hand if c != JOKER] or hand)
            return least_useful(hand)
        return dearest(hand, {card for card, _, _ in lay_offs(state, seat)})
