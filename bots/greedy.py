"""The greedy bot: goes down at once, lays off, claims and swaps what helps, sheds points."""
import random

from zioncheck.bots.base import SeatBot, dearest, least_useful, makes_meld, related
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
from zioncheck.domain.cards import JOKER
from zioncheck.domain.finder import find_contract, lay_offs_on
from zioncheck.domain.laying_off import fitting_ends
from zioncheck.domain.presets import PRESET_RULES, ZIONCHECK


class GreedyBot(SeatBot):
    """Decides from its seat's sight alone (bots/sight.py)."""
    name = "greedy"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def decide(self, sight: Sight) -> Command:
        seat, hand, moves = sight.seat, sight.cards, sight.moves
        if not sight.drawn:
            if moves.take_discard and self._wants(sight, sight.top):
                return TakeDiscard(seat=seat)
            return DrawStock(seat=seat)
        if moves.swap_joker:
            swap = moves.swap_joker[0]
            return SwapJoker(seat=seat, target=(swap.owner, swap.index), card=swap.card)
        if not sight.down[seat]:
            melds = find_contract(hand, sight.contract)
            if melds:
                return GoDown(seat=seat, melds=melds)
        for fit in moves.lay_off:
            return LayOff(seat=seat, target=(fit.owner, fit.index), card=fit.card, end=fit.end)
        return Discard(seat=seat, card=self._shed(sight))

    def react(self, sight: Sight) -> list[Command]:
        seat, moves = sight.seat, sight.moves
        commands: list[Command] = [SwapJoker(seat=seat, target=(swap.owner, swap.index), card=swap.card)
                                   for swap in moves.swap_joker[:1]]
        if moves.claim and self._wants(sight, sight.top) and self._pays(sight, sight.top):
            commands.append(ClaimDiscard(seat=seat))
        return commands

    def _pays(self, sight: Sight, card: str | None) -> bool:
        """R24.5: where a claim costs the stock's top card too, only a card that makes a meld of the hand
        before it is down is worth the card more; none in a hand laid whole (R24.6), where every card
        must fit."""
        if not PRESET_RULES.get(sight.game, ZIONCHECK).penalty_card:
            return True
        if card is None or sight.down[sight.seat] or sight.contract.whole:
            return False
        contract = sight.contract
        return makes_meld(card, sight.cards, sets=contract.sets > 0, runs=contract.runs > 0)

    def _wants(self, sight: Sight, card: str | None) -> bool:
        if card is None:  # no discard to want
            return False
        if card == JOKER:
            return True
        if sight.down[sight.seat]:
            return any(fitting_ends(meld, card) for meld in sight.table)
        # Taking a card only to shed it again would pass it round the table for ever.
        return related(card, sight.cards) and least_useful(list(sight.cards) + [card]) != card

    def _shed(self, sight: Sight) -> str:
        """The most expensive card that helps least; jokers last (kept out of sets)."""
        hand = list(sight.cards)
        if not sight.down[sight.seat]:
            # Two seats can pass the same cards back and forth, and a hand that outlived its
            # stock is stuck on the same cards: now and then, shake the hand up.
            if self.rng.random() < (0.3 if sight.reshuffles else 0.02):
                return self.rng.choice([c for c in hand if c != JOKER] or hand)
            return least_useful(hand)
        return dearest(hand, {card for card, _, _ in lay_offs_on(sight.table, sight.cards)})
