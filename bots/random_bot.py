"""The random bot: a uniformly random legal move at each step, from its own seeded generator."""
import random

from zioncheck.bots.base import SeatBot, joker_swaps
from zioncheck.bots.sight import Sight
from zioncheck.contracts.commands import ClaimDiscard, Command, Discard, DrawStock, GoDown, LayOff, TakeDiscard
from zioncheck.domain.finder import find_contract, lay_offs_on


class RandomBot(SeatBot):
    """Decides from its seat's sight alone (bots/sight.py)."""
    name = "random"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def decide(self, sight: Sight) -> Command:
        seat, hand = sight.seat, sight.cards
        if not sight.drawn:
            options: list[Command] = [DrawStock(seat=seat)]
            if sight.can_take():
                options.append(TakeDiscard(seat=seat))
            return self.rng.choice(options)
        if not sight.down[seat]:
            melds = find_contract(hand, sight.contract)
            if melds and self.rng.random() < 0.5:
                return GoDown(seat=seat, melds=melds)
        elif len(hand) > 1:
            fits = list(lay_offs_on(sight.table, hand))
            if fits and self.rng.random() < 0.5:
                card, meld, end = self.rng.choice(fits)
                return LayOff(seat=seat, target=(meld.owner, meld.index), card=card, end=end)
        return Discard(seat=seat, card=self.rng.choice(hand))

    def react(self, sight: Sight) -> list[Command]:
        commands: list[Command] = []
        swaps = joker_swaps(sight)
        if swaps and self.rng.random() < 0.5:
            commands.append(self.rng.choice(swaps))
        if sight.window_open and self.rng.random() < 0.1:
            commands.append(ClaimDiscard(seat=sight.seat))
        return commands
