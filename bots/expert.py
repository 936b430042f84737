"""The expert bot: the strong bot's moves, weighed by playing the hand out in worlds its seat's sight allows.

At a choice that matters (take the discard or draw, go down now or wait, which card to shed) it lists the
strong bot's few best moves (bots/strong.py), deals the cards its seat has not seen (`Sight.unseen`) into
the others' hands and the stock a number of times (bots/rollout.py, `hidden_deal`), and in each world plays
each move and then the rest of the hand as the strong bot would, every seat alike. The move that leaves it
the most points ahead of the others at the hand's end (R15), on average over the worlds, is played; the
strong bot's move, unless another does better. Every move searched is one of the seat's legal moves
(`Sight.moves`).

It decides from its seat's sight alone: its worlds are drawn by a generator seeded from that sight, never
from the clock nor from the generator it is given, so the same sight gets the same answer, whatever the
hidden cards really are, and the same seed gives the same game, byte for byte.
"""
import hashlib
import random
from collections.abc import Callable

import msgspec

from zioncheck.bots.base import SeatBot
from zioncheck.bots.rollout import Play, hidden_deal
from zioncheck.bots.sight import Sight
from zioncheck.bots.strong import StrongBot, shed_order
from zioncheck.contracts.commands import Command, Discard, DrawStock, GoDown, TakeDiscard

# Worlds dealt for each choice searched, and the strong bot's best discards weighed against each other.
WORLDS = 12
SHEDS = 3


class ExpertBot(SeatBot):
    name = "expert"

    def __init__(self, rng: random.Random, worlds: int = WORLDS):
        self.rng = rng   # kept as every bot keeps it; its choices are drawn from the sight's own seed
        self.worlds = worlds
        self.strong = StrongBot(rng)

    def decide(self, sight: Sight) -> Command:
        """The strong bot's move, or the one of its few best that the worlds searched find better."""
        default = self.strong.decide(sight)
        options = choices(sight, default)
        if len(options) < 2:
            return default
        return search(sight, options, self.worlds)

    def react(self, sight: Sight) -> list[Command]:
        """Out of turn, the strong bot's claims and joker swaps (R11a, R14)."""
        return self.strong.react(sight)


def choices(sight: Sight, default: Command) -> list[Command]:
    """The moves worth searching at this step, the strong bot's first: before the draw, taking the discard
    and drawing from the stock (R10); after it, going down or waiting (R12), and the strong bot's best few
    discards. A joker swap or a lay-off (R13, R14) the strong bot always makes is not searched."""
    seat, moves = sight.seat, sight.moves
    if not sight.drawn:
        return [default, *[move for move in (TakeDiscard(seat=seat), DrawStock(seat=seat)) if move != default]] \
            if moves.take_discard and moves.draw_stock else [default]
    if not isinstance(default, GoDown | Discard):
        return [default]
    sheds: list[Command] = [Discard(seat=seat, card=card) for card in shed_order(sight)[:SHEDS]
                            if card in moves.discard]
    options = [default, *[move for move in sheds if move != default]]
    return options if sight.contract.whole is False or not isinstance(default, GoDown) else [default]


def search(sight: Sight, options: list[Command], worlds: int) -> Command:
    """The option that, played in each of `worlds` worlds and the hand played out, leaves the seat the most
    points ahead of the other seats on average; the first option (the strong bot's) on a tie."""
    seed = seed_of(sight)
    deals = [hidden_deal(sight, random.Random(f"{seed}/{world}")) for world in range(worlds)]
    totals = [0.0] * len(options)
    for world, deal in enumerate(deals):
        for i, option in enumerate(options):
            play = Play(sight, deal, random.Random(f"{seed}/{world}/play"))
            _apply(play, option)
            totals[i] += ahead(play.finish(), sight.seat)
    best = max(range(len(options)), key=lambda i: (totals[i], -i))
    return options[best]


def ahead(scores: list[int], seat: int) -> float:
    """How far `seat` ends the hand ahead of the others: their points' average less its own (R15, R17)."""
    others = [score for s, score in enumerate(scores) if s != seat]
    return sum(others) / len(others) - scores[seat]


def seed_of(sight: Sight) -> str:
    """A seed of the sight alone: its bytes, hashed."""
    return hashlib.blake2b(msgspec.msgpack.encode(sight), digest_size=16).hexdigest()


def _apply(play: Play, option: Command) -> None:
    """The seat's move in a world, then the rest of its turn as the strong bot plays it."""
    step: dict[type, Callable[[], None]] = {
        TakeDiscard: play.take, DrawStock: play.draw,
    }
    if isinstance(option, TakeDiscard | DrawStock):
        step[type(option)]()
        if not play.over:
            play.after_draw()
    elif isinstance(option, GoDown):
        play.go_down(option.melds)
        if not play.over:
            play.lay_off_all()
        if not play.over:
            play.discard(play.shed())
    elif isinstance(option, Discard):
        play.discard(option.card)
