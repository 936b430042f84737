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
from collections.abc import Callable, Iterable

import msgspec

from zioncheck.bots.base import SeatBot
from zioncheck.bots.rollout import Play, hidden_deal
from zioncheck.bots.sight import Sight
from zioncheck.bots.strong import StrongBot, shed_order
from zioncheck.contracts.commands import Command, Discard, DrawStock, GoDown, TakeDiscard

# Worlds dealt for each of a search's two rounds, and the strong bot's best discards weighed against each other.
WORLDS = 12
SHEDS = 3
SURE = 1.5      # standard errors a move must beat the strong bot's by in the first round's worlds
CONFIRM = 1.0   # and again in the second round's, fresh worlds, to be played


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
    """The strong bot's move (the first option), unless another beats it twice: by more than SURE standard
    errors in `worlds` worlds, each option played and the hand played out, then by more than CONFIRM in as many
    fresh worlds. Of the moves that do, the one that gains most over both rounds.

    A move picked from a handful of noisy means is lucky as often as it is good; the second round, on worlds
    its pick did not see, plays only the moves that still look better when asked again."""
    seed = seed_of(sight)
    first = _gains(sight, options, range(1, len(options)), seed, range(worlds))
    picked = [i for i, found in first.items() if _beats(found, SURE)]
    if not picked:
        return options[0]
    second = _gains(sight, options, picked, seed, range(worlds, 2 * worlds))
    confirmed = [i for i in picked if _beats(second[i], CONFIRM)]
    if not confirmed:
        return options[0]
    return options[max(confirmed, key=lambda i: (_margin(first[i] + second[i])[0], -i))]


def _gains(sight: Sight, options: list[Command], searched: Iterable[int], seed: str,
           worlds: range) -> dict[int, list[float]]:
    """Each searched option's gain over the strong bot's move (options[0]) in each of `worlds`, the same
    worlds for every option."""
    gains: dict[int, list[float]] = {i: [] for i in searched}
    for world in worlds:
        deal = hidden_deal(sight, random.Random(f"{seed}/{world}"))
        base = _value(sight, deal, options[0], f"{seed}/{world}/play")
        for i in gains:
            gains[i].append(_value(sight, deal, options[i], f"{seed}/{world}/play") - base)
    return gains


def _beats(gains: list[float], errors: float) -> bool:
    """Whether the mean gain is more than `errors` standard errors above nothing."""
    mean, spread = _margin(gains)
    return mean - errors * spread > 0


def _value(sight: Sight, deal: list[str], option: Command, seed: str) -> float:
    """What `option` is worth in one world: how far ahead the hand played out leaves the seat."""
    play = Play(sight, deal, random.Random(seed))
    _apply(play, option)
    return ahead(play.finish(), sight.seat)


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
