"""The expert bot: the strong bot's moves, weighed by playing the hand out in worlds its seat's sight allows.

At a choice that matters (take the discard or draw, go down now or wait, which card to shed) it lists the
strong bot's few best moves (bots/strong.py), deals the cards its seat has not seen (`Sight.unseen`) into
the others' hands and the stock a number of times (bots/rollout.py, `hidden_deal`), and in each world plays
each move and then the rest of the hand as the strong bot would, every seat alike. The move that leaves it
the most points ahead of the others at the hand's end (R15), on average over the worlds, is played; the
strong bot's move, unless another does better. Every move searched is one of the seat's legal moves
(`Sight.moves`).

It decides from its seat's sights alone: its worlds are drawn by a generator seeded from the sight asked
about (and, in a two-seat game, the cards its earlier sights showed the other seat taking, `Taken`), never
from the clock nor from the generator it is given, so the same sight gets the same answer, whatever the
hidden cards really are, and the same seed gives the same game, byte for byte.
"""
import hashlib
import random
from collections import Counter
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
        self.taken = Taken()

    def decide(self, sight: Sight) -> Command:
        """The strong bot's move, or the one of its few best that the worlds searched find better."""
        self.taken.see(sight)
        options = self.weighed(sight)
        move = options[0] if len(options) < 2 else search(sight, options, self.worlds, self.taken.known)
        self.taken.did(sight, move)
        return move

    def weighed(self, sight: Sight) -> list[Command]:
        """The moves this sight is searched for, the strong bot's first (`choices`)."""
        return choices(sight, self.strong.decide(sight))

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


def search(sight: Sight, options: list[Command], worlds: int, known: Counter[str] | None = None,
           sure: float = SURE, confirm: float = CONFIRM) -> Command:
    """The strong bot's move (the first option), unless another beats it twice: by more than `sure` standard
    errors in `worlds` worlds, each option played and the hand played out, then by more than `confirm` in as
    many fresh worlds. Of the moves that do, the one that gains most over both rounds.

    A move picked from a handful of noisy means is lucky as often as it is good; the second round, on worlds
    its pick did not see, plays only the moves that still look better when asked again. `known`: the cards the
    other seat of a two-seat game is known to hold (Taken), dealt to it in every world."""
    seed = seed_of(sight, known)
    first = _gains(sight, options, range(1, len(options)), seed, range(worlds), known)
    picked = [i for i, found in first.items() if _beats(found, sure)]
    if not picked:
        return options[0]
    second = _gains(sight, options, picked, seed, range(worlds, 2 * worlds), known)
    confirmed = [i for i in picked if _beats(second[i], confirm)]
    if not confirmed:
        return options[0]
    return options[max(confirmed, key=lambda i: (_margin(first[i] + second[i])[0], -i))]


def _gains(sight: Sight, options: list[Command], searched: Iterable[int], seed: str, worlds: range,
           known: Counter[str] | None = None) -> dict[int, list[float]]:
    """Each searched option's gain over the strong bot's move (options[0]) in each of `worlds`, the same
    worlds for every option."""
    gains: dict[int, list[float]] = {i: [] for i in searched}
    for world in worlds:
        deal = hidden_deal(sight, random.Random(f"{seed}/{world}"), known)
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
    apply_move(play, option)
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


def seed_of(sight: Sight, known: Counter[str] | None = None) -> str:
    """A seed of the sight alone (and of the cards known to be held, if any): its bytes, hashed."""
    data = msgspec.msgpack.encode(sight) + (msgspec.msgpack.encode(sorted(known.items())) if known else b"")
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Taken:
    """The cards the other seat of a two-seat game is known to hold: each it was seen to take from the pile
    (R10) or from the table (a joker swapped out, R14), until it is seen to lay it down or throw it. Read from
    this seat's own sights, one after another, never from a hidden card: the pile and the table as this seat
    left them at its discard, against what it finds at its next turn. Where more seats play, who took what
    is not followed, and nothing is known."""

    def __init__(self) -> None:
        self.known: Counter[str] = Counter()
        self.hand = 0
        self.pile: tuple[str, ...] | None = None    # the pile as this seat's discard left it
        self.table: Counter[str] = Counter()      # and the cards on the table then
        self.reshuffles = 0                       # and the pile's reshuffles into the stock so far (R16)

    def see(self, sight: Sight) -> None:
        """What the other seat did since this seat's discard, once its turn comes again."""
        if sight.players != 2 or sight.hand_no != self.hand:
            self.known, self.hand, self.pile = Counter(), sight.hand_no, None
            return
        if self.pile is None or sight.turn != sight.seat or sight.drawn:
            return
        pile, left = sight.discard, self.pile
        if (sight.reshuffles == self.reshuffles and len(pile) == len(left) and pile[:-1] == left[:-1]
                and pile[-1] != left[-1]):
            self.known[left[-1]] += 1   # it took the card this seat threw, and threw another (no reshuffle between)
        table = _on_table(sight)
        self.known += self.table - table   # what left the table went to its hand (R14)
        self.known -= table - self.table   # what it laid down is held no more
        if pile and sight.top_discarder == 1 - sight.seat:
            self.known -= Counter((pile[-1],))   # nor what it threw
        self.pile = None

    def did(self, sight: Sight, move: Command) -> None:
        """This seat's move: a discard ends its turn, and the other seat's begins from what it leaves."""
        if sight.players == 2 and isinstance(move, Discard):
            self.pile = (*sight.discard, move.card)
            self.table = _on_table(sight)
            self.reshuffles = sight.reshuffles


def _on_table(sight: Sight) -> Counter[str]:
    return Counter(card for meld in sight.table for card in meld.cards)


def apply_move(play: Play, option: Command) -> None:
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
