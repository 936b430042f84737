"""The strong bot: plays from what its seat may know, counting how far its hand is from the contract.

It reads the game only through `Sight` (bots/sight.py): its own cards, the table, the pile and who threw
each card, the others' hand sizes. Before it is down it keeps the cards that bring the contract nearest
(bots/shortfall.py) and, of those that help equally, the hand with the most unseen cards still able to
help; it takes or claims a discard only when that brings the contract a card nearer; its dearest cards
weigh more as the end of the hand draws near, and a card a seat that is down could lay off weighs against
throwing it. Once down it lays off all it can, takes a discard it can lay off, and sheds its dearest card.
Its choices depend on nothing but the sight, so it needs none of the generator it is given.
"""
import random

from zioncheck.bots.base import swaps_on
from zioncheck.bots.shortfall import shortfall
from zioncheck.bots.sight import Sight, sight_of
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Command,
    Discard,
    DrawStock,
    End,
    GoDown,
    LayOff,
    SwapJoker,
    TakeDiscard,
)
from zioncheck.domain.cards import JOKER, points
from zioncheck.domain.laying_off import fitting_ends
from zioncheck.domain.legal import contract_melds
from zioncheck.domain.state import GameState


class StrongBot:
    name = "strong"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def move(self, state: GameState, seat: int) -> Command:
        return self.decide(sight_of(state, seat))

    def out_of_turn(self, state: GameState, seat: int) -> list[Command]:
        return self.react(sight_of(state, seat))

    # --- from the seat's sight alone -------------------------------------------------------------------

    def decide(self, sight: Sight) -> Command:
        """The turn's next step (R9): draw, swap, go down, lay off or discard."""
        seat, hand = sight.seat, sight.cards
        if not sight.drawn:
            return TakeDiscard(seat=seat) if sight.can_take() and self.takes(sight) else DrawStock(seat=seat)
        swaps = joker_swaps(sight)
        if swaps:
            return swaps[0]
        if not sight.down[seat]:
            melds = contract_melds(hand, sight.contract)
            if melds:
                return GoDown(seat=seat, melds=melds)
        elif len(hand) > 1:
            fits = lay_offs(sight, hand)
            if fits:
                card, meld, end = fits[0]
                return LayOff(seat=seat, target=meld, card=card, end=end)
        return Discard(seat=seat, card=self.shed(sight))

    def react(self, sight: Sight) -> list[Command]:
        """Out of turn, after a discard: a joker swap (R14), and a claim (R11a) on a card that helps."""
        commands: list[Command] = [*joker_swaps(sight)[:1]]
        seat = sight.seat
        if (sight.window_open and sight.can_take() and seat != sight.turn and not sight.down[seat]
                and sight.top is not None and nearer(sight, sight.cards, sight.top)):
            commands.append(ClaimDiscard(seat=seat))
        return commands

    def takes(self, sight: Sight) -> bool:
        """Whether the top discard beats a card from the stock: one it can lay off once down, or one that
        brings the contract nearer before."""
        top = sight.top
        if top is None:
            return False
        if sight.down[sight.seat]:
            return any(fitting_ends(meld, top) for meld in sight.table)
        return nearer(sight, sight.cards, top)

    def shed(self, sight: Sight) -> str:
        """The card to discard."""
        hand = sight.cards
        naturals = [card for card in hand if card != JOKER]
        if not naturals:
            return JOKER
        if sight.down[sight.seat]:
            return max(naturals, key=lambda card: (points(card) - feeds(sight, card), card))
        contract = sight.contract
        unseen = sight.unseen()
        pressure = end_pressure(sight)
        best, best_score = naturals[0], None
        for card in dict.fromkeys(naturals):
            rest = _less(hand, card)
            short, outs = shortfall(rest, contract.sets, contract.runs)
            live = sum(max(0, unseen[out]) for out in outs)
            score = (short, -live + 0.05 * feeds(sight, card) - pressure * points(card), card)
            if best_score is None or score < best_score:
                best, best_score = card, score
        return best


def nearer(sight: Sight, hand: tuple[str, ...], card: str) -> bool:
    """Whether `card` added to `hand` (and the least useful card shed, if it is the turn's draw) brings
    the contract a card nearer."""
    contract = sight.contract
    before, _ = shortfall(hand, contract.sets, contract.runs)
    if before == 0:
        return False
    after, _ = shortfall(hand + (card,), contract.sets, contract.runs)
    return after < before


def end_pressure(sight: Sight) -> float:
    """How much a card's points weigh against its use, by how near another seat is to going out (R15)."""
    others = [s for s in range(sight.players) if s != sight.seat]
    nearest = min((sight.hand_sizes[s] for s in others if sight.down[s]), default=None)
    if nearest is None:
        return 0.02
    return 0.1 if nearest > 3 else 0.3


def feeds(sight: Sight, card: str) -> int:
    """How much discarding `card` would help another seat: a seat that is down could lay it off (R13)."""
    if any(sight.down[s] for s in range(sight.players) if s != sight.seat):
        if any(fitting_ends(meld, card) for meld in sight.table):
            return 10
    return 0


def lay_offs(sight: Sight, hand: tuple[str, ...]) -> list[tuple[str, tuple[int, int], End | None]]:
    """Every (card, meld, end) the seat may lay off (R13): naturals first; a joker goes on a set, where no
    one can take it back (R14), before a run."""
    found = []
    for card in dict.fromkeys(hand):
        for meld in sight.table:
            for end in fitting_ends(meld, card):
                found.append((card, (meld.owner, meld.index), end, card == JOKER and meld.kind == "run"))
    found.sort(key=lambda fit: (fit[0] == JOKER, fit[3]))
    return [(card, meld, end) for card, meld, end, _ in found]


def joker_swaps(sight: Sight) -> list[SwapJoker]:
    """R14: every joker in a run that this seat holds the natural card for."""
    return swaps_on(sight.table, sight.cards, sight.seat)


def _less(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = hand.index(card)
    return hand[:i] + hand[i + 1:]
