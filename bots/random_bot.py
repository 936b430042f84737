"""The random bot: a uniformly random legal move at each step (of its sight's legal moves), from its own seeded
generator."""
import random

from zioncheck.bots.base import SeatBot
from zioncheck.bots.sight import Sight
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Command,
    Discard,
    DrawStock,
    GoDown,
    LayOff,
    SwapJoker,
    TakeDiscard,
)
from zioncheck.domain.finder import find_contract


class RandomBot(SeatBot):
    """Decides from its seat's sight alone (bots/sight.py)."""
    name = "random"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def decide(self, sight: Sight) -> Command:
        seat, hand, moves = sight.seat, sight.cards, sight.moves
        if not sight.drawn:
            options: list[Command] = [DrawStock(seat=seat)]
            if moves.take_discard:
                options.append(TakeDiscard(seat=seat))
            return self.rng.choice(options)
        if not sight.down[seat]:
            melds = find_contract(hand, sight.contract)
            if melds and self.rng.random() < 0.5:
                return GoDown(seat=seat, melds=melds)
        elif moves.lay_off and self.rng.random() < 0.5:
            fit = self.rng.choice(moves.lay_off)
            return LayOff(seat=seat, target=(fit.owner, fit.index), card=fit.card, end=fit.end)
        return Discard(seat=seat, card=self.rng.choice(hand))

    def react(self, sight: Sight) -> list[Command]:
        seat, moves = sight.seat, sight.moves
        commands: list[Command] = []
        if moves.swap_joker and self.rng.random() < 0.5:
            swap = self.rng.choice(moves.swap_joker)
            commands.append(SwapJoker(seat=seat, target=(swap.owner, swap.index), card=swap.card))
        if moves.claim and self.rng.random() < 0.1:
            commands.append(ClaimDiscard(seat=seat))
        return commands
