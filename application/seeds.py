"""Where a hand's secret seed comes from, and a dealer in process that deals from it.

Each hand has its own seed; its deal and every reshuffle follow from it
(domain.seeded), so revealing the seed lets anyone check them. Seeds are the one
thing the rules cannot make themselves: a CSPRNG for real games, or a master seed
for simulations that must repeat.
"""
import hashlib
import secrets
from collections.abc import Callable

from zioncheck.contracts.commands import Deal, Reshuffle, RevealSeed
from zioncheck.domain.fairness import commitment
from zioncheck.domain.seeded import deal_from_seed, reshuffle_order
from zioncheck.domain.state import GameState

SeedSource = Callable[[int], str]


def random_seeds() -> SeedSource:
    """A fresh CSPRNG seed per hand: for real games."""
    chosen: dict[int, str] = {}
    return lambda hand: chosen.setdefault(hand, secrets.token_hex(32))


def seeded(master: int | str, game_id: str) -> SeedSource:
    """Seeds that follow from one master seed: the same seed gives the same game."""
    return lambda hand: hashlib.sha256(f"{master}/{game_id}/{hand}".encode()).hexdigest()


class Dealer:
    """Deals, reshuffles and reveals for a game played in process, from its seeds."""

    def __init__(self, seeds: SeedSource):
        self._seeds = seeds

    def deal(self, state: GameState) -> Deal:
        hand = state.hand + 1
        seed = self._seeds(hand)
        dealt = deal_from_seed(seed, state, hand)
        return Deal(hand=hand, hands=dealt.hands, stock=dealt.stock, discard=dealt.discard,
                    commitment=commitment(seed))

    def reshuffle(self, state: GameState) -> Reshuffle:
        order = reshuffle_order(self._seeds(state.hand), state.reshuffles + 1, len(state.discard) - 1)
        return Reshuffle(hand=state.hand, order=order)

    def reveal(self, hand: int) -> RevealSeed:
        return RevealSeed(hand=hand, seed=self._seeds(hand))
