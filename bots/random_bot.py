"""The random bot: a uniformly random legal move at each step, from its own seeded generator."""
import random

from zioncheck.bots.base import can_take, joker_swaps
from zioncheck.contracts.commands import ClaimDiscard, Command, Discard, DrawStock, GoDown, LayOff, TakeDiscard
from zioncheck.domain.finder import find_contract, lay_offs
from zioncheck.domain.state import GameState


class RandomBot:
    name = "random"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def move(self, state: GameState, seat: int) -> Command:
        hand = state.hands[seat]
        if not state.drawn:
            options: list[Command] = [DrawStock(seat=seat)]
            if can_take(state, seat):
                options.append(TakeDiscard(seat=seat))
            return self.rng.choice(options)
        if not state.down[seat]:
            melds = find_contract(hand, state.contract)
            if melds and self.rng.random() < 0.5:
                return GoDown(seat=seat, melds=melds)
        elif len(hand) > 1:
            fits = list(lay_offs(state, seat))
            if fits and self.rng.random() < 0.5:
                card, meld, end = self.rng.choice(fits)
                return LayOff(seat=seat, target=(meld.owner, meld.index), card=card, end=end)
        return Discard(seat=seat, card=self.rng.choice(hand))

    def out_of_turn(self, state: GameState, seat: int) -> list[Command]:
        commands: list[Command] = []
        swaps = joker_swaps(state, seat)
        if swaps and self.rng.random() < 0.5:
            commands.append(self.rng.choice(swaps))
        if state.window_open and self.rng.random() < 0.1:
            commands.append(ClaimDiscard(seat=seat))
        return commands
