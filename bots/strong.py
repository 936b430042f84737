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

import msgspec

from zioncheck.bots.base import SeatBot
from zioncheck.bots.shortfall import shortfall, whole_shortfall
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
from zioncheck.contracts.views import LayOffMove, SeatMoves
from zioncheck.domain.cards import JOKER, points
from zioncheck.domain.laying_off import fitting_ends
from zioncheck.domain.legal import contract_melds
from zioncheck.domain.presets import PRESET_RULES, ZIONCHECK, Ruleset
from zioncheck.domain.state import PlacedMeld


class StrongBot(SeatBot):
    name = "strong"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def decide(self, sight: Sight) -> Command:
        """The turn's next step (R9): draw, swap, go down, lay off or discard; each a move the rules allow."""
        seat, moves = sight.seat, sight.moves
        if not sight.drawn:
            return TakeDiscard(seat=seat) if moves.take_discard and self.takes(sight) else DrawStock(seat=seat)
        if moves.swap_joker:
            swap = moves.swap_joker[0]
            return SwapJoker(seat=seat, target=(swap.owner, swap.index), card=swap.card)
        if moves.go_down:
            return GoDown(seat=seat, melds=moves.go_down)
        fits = lay_offs(moves.lay_off, sight.table)
        if fits:
            fit = fits[0]
            return LayOff(seat=seat, target=(fit.owner, fit.index), card=fit.card, end=fit.end)
        return Discard(seat=seat, card=self.shed(sight))

    def react(self, sight: Sight) -> list[Command]:
        """Out of turn, after a discard: a joker swap (R14), and a claim (R11a) on a card that helps enough to
        pay for it (R24.5)."""
        seat, moves = sight.seat, sight.moves
        commands: list[Command] = [SwapJoker(seat=seat, target=(swap.owner, swap.index), card=swap.card)
                                   for swap in moves.swap_joker[:1]]
        if moves.claim and not sight.down[seat] and sight.top is not None and buys(sight, sight.top):
            commands.append(ClaimDiscard(seat=seat))
        return commands

    def takes(self, sight: Sight) -> bool:
        """Whether the top discard beats a card from the stock: one it can lay off once down; before, one
        that goes out (R24.6) or brings the contract nearer."""
        top = sight.top
        if top is None:
            return False
        if sight.down[sight.seat]:
            return any(fitting_ends(meld, top) for meld in sight.table)
        return nearer(sight, sight.cards, top) and keeps(sight, top)

    def shed(self, sight: Sight) -> str:
        """The card to discard: never one a seat about to go out could lay off, while another will do."""
        return shed_order(sight)[0]


def shed_order(sight: Sight) -> list[str]:
    """The cards the seat may discard, the one it sheds first: once down, the dearest (R3, R24.3), a card
    a seat that is down could lay off weighing against it; before, the card whose loss leaves the hand
    nearest its contract (bots/shortfall.py), with the most unseen cards still able to help, a card's
    points weighing more as another seat nears going out. A card a seat about to go out could lay off
    comes after every other (`unfed`), and a joker last."""
    hand = sight.cards
    choices = [card for card in (sight.moves.discard or dict.fromkeys(hand)) if card != JOKER]
    if not choices:
        return [JOKER]
    first = unfed(sight, choices)
    last = [card for card in choices if card not in first] + [JOKER] * (JOKER in hand)
    pips = rules_of(sight).pips
    if sight.down[sight.seat]:
        return sorted(first, key=lambda card: (points(card, pips) - feeds(sight, card), card), reverse=True) + last
    contract = sight.contract
    unseen = sight.unseen()
    pressure = end_pressure(sight)
    scored = []
    for card in first:
        rest = _less(hand, card)
        short, outs = shortfall(rest, contract.sets, contract.runs)
        if contract.whole:   # R24.6: every card in the melds, the next draw's among them
            short = whole_shortfall(rest, contract.sets, contract.runs, len(rest) + 1)
        live = sum(max(0, unseen[out]) for out in outs)
        scored.append(((short, -live + 0.05 * feeds(sight, card) - pressure * points(card, pips), card), card))
    return [card for _, card in sorted(scored)] + last


def keeps(sight: Sight, top: str) -> bool:
    """Whether, having taken the pile's top card, the seat would keep it: goes down with it, or sheds
    another card. Taking a card only to throw it back is no draw at all, and two seats doing it would pass
    it to and fro for ever."""
    taken = msgspec.structs.replace(sight, cards=sight.cards + (top,), discard=sight.discard[:-1],
                                    discarder=None, drawn=True, moves=SeatMoves())
    if contract_melds(taken.cards, sight.contract):
        return True
    return shed_order(taken)[0] != top


def rules_of(sight: Sight) -> Ruleset:
    """R24: the rules of the game the seat plays, as its preset reads them (a house's own options are not in
    a seat's sight; its legal moves, `Sight.moves`, follow them all the same)."""
    return PRESET_RULES.get(sight.game, ZIONCHECK)


def nearer(sight: Sight, hand: tuple[str, ...], card: str, extra: int = 0) -> bool:
    """Whether `card` added to `hand` brings the contract a card nearer: where the turn's draw is, the least
    useful card shed after it. R24.6: a contract laid whole counts every card of the hand and a place for
    the next draw; a claim, which comes with no discard, `extra` places more (1, and 1 for R24.5's penalty
    card, unseen): the card must go out at once or fill more places than it adds."""
    contract = sight.contract
    if contract.whole:
        places = len(hand) + 1
        if extra == 0 and contract_melds(hand + (card,), contract):
            return True   # it goes out at once
        before = whole_shortfall(hand, contract.sets, contract.runs, places)
        return whole_shortfall(hand + (card,), contract.sets, contract.runs, places + extra) < before
    before, _ = shortfall(hand, contract.sets, contract.runs)
    if before == 0:
        return False
    after, _ = shortfall(hand + (card,), contract.sets, contract.runs)
    return after < before


# R24.5: a buy brings the card and the stock's top card, one card more to lay off or to score. It is
# worth that card when it leaves the contract this near (or a hand laid whole no further off).
BUY_NEAR = 1


def buys(sight: Sight, card: str) -> bool:
    """R11a, R24.5: whether to claim `card` out of turn. It must bring the contract nearer; where a claim
    costs the stock's top card too, only when that leaves the contract at most BUY_NEAR cards away. In a
    hand laid whole (R24.6) every card claimed is a card more to fit, the penalty card among them."""
    rules, contract = rules_of(sight), sight.contract
    if contract.whole:
        return nearer(sight, sight.cards, card, extra=1 + rules.penalty_card)
    if not nearer(sight, sight.cards, card):
        return False
    return not rules.penalty_card or shortfall(sight.cards + (card,), contract.sets, contract.runs)[0] <= BUY_NEAR


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


# A seat that is down with this many cards or fewer goes out on the card it can lay off (R13, R15).
GOING_OUT = 2


def unfed(sight: Sight, choices: list[str]) -> list[str]:
    """The cards of `choices` that no seat about to go out could lay off: a seat down with GOING_OUT cards
    or fewer that may take the discard (R10, R11a; R24.9 where the game lets it); all of them, if every one
    feeds it."""
    may_take = rules_of(sight).buy_when_down
    hungry = [s for s in range(sight.players) if s != sight.seat and sight.down[s] and may_take
              and sight.hand_sizes[s] <= GOING_OUT]
    if not hungry:
        return choices
    safe = [card for card in choices if not any(fitting_ends(meld, card) for meld in sight.table)]
    return safe or choices


def lay_offs(moves: list[LayOffMove], table: tuple[PlacedMeld, ...]) -> list[LayOffMove]:
    """The lay-offs the rules allow (R13), naturals first; a joker goes on a set, where no one can take it
    back (R14), before a run."""
    kinds = {(meld.owner, meld.index): meld.kind for meld in table}
    return sorted(moves, key=lambda move: (move.card == JOKER, move.card == JOKER and
                                           kinds.get((move.owner, move.index)) == "run"))


def _less(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = hand.index(card)
    return hand[:i] + hand[i + 1:]
