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
BATCH = 12
TURNS = 6000   # turns played out a choice at most, whatever the worlds: its search's bound in time
DROP = 1.0   # a choice whose mean gain is this many spreads below nothing is dropped
SURE = 1.5   # and one this many spreads above nothing is sure enough to play


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
    if not sight.drawn:   # only a card the strong bot takes, and so keeps, is worth weighing against the stock
        return [default, DrawStock(seat=seat)] if isinstance(default, TakeDiscard) and moves.draw_stock else [default]
    if not isinstance(default, GoDown | Discard) or isinstance(default, GoDown) and sight.contract.whole:
        return [default]   # a swap, a lay-off, or a going down that goes out (R24.6)
    sheds = [Discard(seat=seat, card=card) for card in shed_order(sight)[:SHEDS] if card in moves.discard]
    return [default, *[move for move in sheds if move != default]]


def search(sight: Sight, options: list[Command], worlds: int) -> Command:
    """The strong bot's move (the first option), unless another beats it by more than SURE standard errors
    in the same worlds, each option played and the hand played out: the one that beats it by most.

    The worlds are dealt a batch at a time, up to `worlds`: after each, an option that falls behind the
    strong bot's by more than DROP standard errors is no longer played, and the search stops once none is
    left, or once the batches have found one sure enough."""
    seed = seed_of(sight)
    gains: dict[int, list[float]] = {i: [] for i in range(1, len(options))}
    played = 0
    for world in range(worlds):
        deal = hidden_deal(sight, random.Random(f"{seed}/{world}"))
        first, turns = _value(sight, deal, options[0], f"{seed}/{world}/play")
        played += turns
        for i in gains:
            value, turns = _value(sight, deal, options[i], f"{seed}/{world}/play")
            gains[i].append(value - first)
            played += turns
        last = world + 1 >= worlds or played >= TURNS
        if (world + 1) % BATCH and not last:
            continue
        margins = {i: _margin(found) for i, found in gains.items()}
        sure = {i: mean - SURE * spread for i, (mean, spread) in margins.items() if mean - SURE * spread > 0}
        if sure and (last or world + 1 >= 2 * BATCH):
            return options[max(sure, key=lambda i: (sure[i], -i))]
        gains = {i: found for i, found in gains.items() if margins[i][0] + DROP * margins[i][1] >= 0}
        if not gains or last:
            break
    return options[0]


def _value(sight: Sight, deal: list[str], option: Command, seed: str) -> tuple[float, int]:
    """What `option` is worth in one world: how far ahead the hand played out leaves the seat; and the
    turns that took."""
    play = Play(sight, deal, random.Random(seed))
    _apply(play, option)
    return ahead(play.finish(), sight.seat), play.turns + 1


def _margin(gains: list[float]) -> tuple[float, float]:
    """The mean of `gains` and its standard error."""
    mean = sum(gains) / len(gains)
    spread = (sum((gain - mean) ** 2 for gain in gains) / max(1, len(gains) - 1) / len(gains)) ** 0.5
    return mean, spread


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
