"""A hand played out fast in one world a seat's sight allows: what the expert bot (bots/expert.py) searches.

A `Play` is made of a `Sight` and a deal of the cards that seat cannot see (the others' hands, the stock),
drawn from those it has not seen (`Sight.unseen`): the same table, pile, melds and hand sizes, and hidden
cards that fit them. Every seat then plays as the strong bot plays (bots/strong.py), in a quicker reading:
it takes a discard that brings its contract nearer or that it can lay off, goes down as soon as it can, lays
off all it can and sheds the card that keeps its hand nearest the contract, the dearest first; R16's
reshuffles are made with the play's own generator. It is the rules' reading, not their referee: claims (R11a)
and joker swaps (R14) are left out, and it plays a game's rules as its preset reads them (R24). The seat's
own moves are checked against the table's legal moves before they are searched (bots/expert.py), never here.
"""
import random
from collections import Counter

from zioncheck.bots.base import least_useful
from zioncheck.bots.shortfall import plan, whole_plan, whole_shortfall
from zioncheck.bots.sight import Sight
from zioncheck.domain.cards import JOKER, hand_points, points
from zioncheck.domain.drawing import MAX_RESHUFFLES
from zioncheck.domain.going_down import read_contract
from zioncheck.domain.laying_off import fitting_cards, fitting_ends
from zioncheck.domain.legal import contract_melds
from zioncheck.domain.melds import run_start
from zioncheck.domain.presets import PRESET_RULES, ZIONCHECK
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import PlacedMeld

# A hand searched goes on for at most this many turns more; one that has not ended by then is scored as
# it stands, every seat its cards (R15).
MAX_TURNS = 80


def hidden_deal(sight: Sight, rng: random.Random, known: Counter[str] | None = None) -> list[str]:
    """The cards `sight`'s seat has not seen, in a random order: one world of the others' hands and the stock.
    `known`: cards the other seat of a two-seat game is known to hold (seen taken from the pile), dealt to it
    in every world; the rest at random."""
    unseen = sight.unseen()
    other = 1 - sight.seat   # a two-seat game's other seat: its hand is the deal's first cards (Play)
    held = list((Counter() if known is None else known & +unseen).elements())[:sight.hand_sizes[other]]
    cards = [card for card, copies in sorted((unseen - Counter(held)).items()) for _ in range(copies)]
    rng.shuffle(cards)
    return held + cards


class Play:
    """One hand in one world, from a seat's sight on: mutable, and played out by `finish`."""

    __slots__ = ("players", "seat", "contract", "pips", "penalty", "take_when_down", "out_by_laying_off",
                 "hands", "stock", "pile", "owner", "table", "laid", "down", "turn", "drawn", "reshuffles",
                 "rng", "winner", "over", "turns", "plans", "whole", "fitting")

    def __init__(self, sight: Sight, deal: list[str], rng: random.Random):
        rules = PRESET_RULES.get(sight.game, ZIONCHECK)
        self.players, self.seat, self.contract = sight.players, sight.seat, sight.contract
        self.pips, self.penalty = rules.pips, rules.penalty_card
        self.take_when_down, self.out_by_laying_off = rules.buy_when_down, rules.out_by_laying_off
        deal = list(deal)
        self.hands: list[list[str]] = []
        for seat, size in enumerate(sight.hand_sizes):
            if seat == sight.seat:
                self.hands.append(list(sight.cards))
            else:
                self.hands.append(deal[:size])
                del deal[:size]
        self.stock = deal                       # drawn from its end
        self.pile = list(sight.discard)
        self.owner = sight.top_discarder        # who threw the pile's top card (R10)
        self.table = list(sight.table)
        self.fitting: frozenset[str] | None = None   # the cards that fit a meld on the table (R13)
        self.laid = Counter(meld.owner for meld in sight.table)   # each seat's melds, to number the next
        self.down = list(sight.down)
        self.turn, self.drawn, self.reshuffles = sight.turn, sight.drawn, sight.reshuffles
        self.rng = rng
        self.winner: int | None = None
        self.over = False
        self.turns = 0
        self.plans: list[tuple[int, frozenset[str], frozenset[str], frozenset[str]] | None] = [None] * self.players
        # R24.6: what each seat's hand lacks to be laid whole with the next draw, while its cards stay the same
        self.whole: list[int | None] = [None] * self.players

    # --- the moves ----------------------------------------------------------------------------------

    def take(self) -> None:
        """R10: the turn seat takes the pile's top card."""
        self.gets(self.pile.pop())
        self.owner = None
        self.drawn = True

    def draw(self) -> None:
        """R9, R16: the turn seat draws from the stock, the pile reshuffled into it when it is empty; a draw
        that finds no card ends the hand with no winner."""
        if not self.stock and len(self.pile) > 1 and self.reshuffles < MAX_RESHUFFLES:
            self.stock = self.pile[:-1]
            self.rng.shuffle(self.stock)
            del self.pile[:-1]
            self.reshuffles += 1
        if not self.stock:
            self.end(None)
            return
        self.gets(self.stock.pop())
        self.drawn = True

    def gets(self, card: str) -> None:
        """A card comes to the turn seat's hand: one that brings its contract nearer changes its plan."""
        seat = self.turn
        self.hands[seat].append(card)
        self.whole[seat] = None
        found = self.plans[seat]
        if found is not None and (card in found[1] or card == JOKER):
            self.plans[seat] = None

    def go_down(self, melds: list[list[str]]) -> None:
        """R12: the turn seat lays its contract; R24.6, laid whole, it goes out."""
        seat, hand = self.turn, self.hands[self.turn]
        for meld in read_contract(self.contract, melds):
            self.fitting = None
            self.table.append(PlacedMeld(owner=seat, index=self.laid[seat], kind=meld.kind, cards=tuple(meld.cards),
                                         low=run_start(meld.cards) if meld.kind == "run" else 0))
            self.laid[seat] += 1
            for card in meld.cards:
                hand.remove(card)
        self.down[seat] = True
        if not hand:
            self.end(seat)

    def lay_off(self, card: str, at: int, end: str | None) -> None:
        """R13: the turn seat adds `card` to the table's meld `at`; R24.10, its last card goes out."""
        meld = self.table[at]
        self.fitting = None
        if end == "low":
            self.table[at] = PlacedMeld(owner=meld.owner, index=meld.index, kind=meld.kind,
                                        cards=(card,) + meld.cards, low=meld.low - 1)
        else:
            self.table[at] = PlacedMeld(owner=meld.owner, index=meld.index, kind=meld.kind,
                                        cards=meld.cards + (card,), low=meld.low)
        hand = self.hands[self.turn]
        hand.remove(card)
        if not hand:
            self.end(self.turn)

    def discard(self, card: str) -> None:
        """R9, R15: the turn seat discards, and goes out with its last card; the next seat's turn."""
        seat = self.turn
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.owner = seat
        if not self.hands[seat]:
            self.end(seat)
            return
        self.turn = (seat + 1) % self.players
        self.drawn = False
        self.turns += 1

    def end(self, winner: int | None) -> None:
        self.winner, self.over = winner, True

    def scores(self) -> list[int]:
        """R15, R24.3: every seat's points left in hand, the winner's none."""
        return [0 if seat == self.winner else hand_points(hand, self.pips) for seat, hand in enumerate(self.hands)]

    # --- the seats' play ----------------------------------------------------------------------------

    def finish(self) -> list[int]:
        """Every seat plays as the strong bot would, from where the hand stands to its end; the scores."""
        while not self.over and self.turns < MAX_TURNS:
            self.play_turn()
        return self.scores()

    def play_turn(self) -> None:
        """The rest of the turn seat's turn: its draw, if it has not drawn, then its melds and its discard."""
        if not self.drawn:
            top = self.pile[-1] if self.pile else None
            if top is not None and self.owner != self.turn and self.wants(top):
                self.take()
            else:
                self.draw()
            if self.over:
                return
        self.after_draw()

    def after_draw(self) -> None:
        seat = self.turn
        if not self.down[seat] and self.ready(seat):
            melds = contract_melds(tuple(self.hands[seat]), self.contract)
            if melds:
                try:
                    self.go_down(melds)
                except Refused:   # the quick search's melds read otherwise: the seat waits a turn
                    pass
                if self.over:
                    return
        if self.down[seat]:
            self.lay_off_all()
            if self.over:
                return
        self.discard(self.shed())

    def wants(self, top: str) -> bool:
        """R10: whether the turn seat takes the pile's top card: one it can lay off once down (where the game
        lets a seat that is down take it, R24.9), or one that brings its contract nearer."""
        seat = self.turn
        if self.down[seat]:
            return self.take_when_down and top != JOKER and self.fits(top)
        contract = self.contract
        if contract.whole:
            hand = tuple(self.hands[seat])
            places = len(hand) + 1
            before = self.whole[seat]
            if before is None:
                before = whole_shortfall(hand, contract.sets, contract.runs, places)
            return whole_shortfall(hand + (top,), contract.sets, contract.runs, places) < before
        short, outs, _, _ = self.plan(seat)
        return short > 0 and top in outs

    def ready(self, seat: int) -> bool:
        """Whether the seat's cards hold its contract, as far as its plan tells (R12; R24.6 every card)."""
        contract = self.contract
        if contract.whole:
            hand = tuple(self.hands[seat])
            return whole_shortfall(hand, contract.sets, contract.runs, len(hand)) == 0
        return self.plan(seat)[0] == 0

    def plan(self, seat: int) -> tuple[int, frozenset[str], frozenset[str], frozenset[str]]:
        """The seat's shortfall, its outs and the cards its cheapest melds keep (bots/shortfall.py), worked
        out again only once a card that changes them has come or gone."""
        found = self.plans[seat]
        if found is None:
            found = self.plans[seat] = plan(tuple(self.hands[seat]), self.contract.sets, self.contract.runs)
        return found

    def fits(self, card: str) -> bool:
        """R13: whether `card` fits a meld on the table; the cards that do are worked out once a table."""
        if self.fitting is None:
            self.fitting = frozenset().union(*(fitting_cards(meld) for meld in self.table))
        return card in self.fitting

    def lay_off_all(self) -> None:
        """R13, R15: every card that fits the table, naturals first, keeping one to discard (R24.10: unless
        laying off the last goes out)."""
        hand = self.hands[self.turn]
        laid = True
        while laid and not self.over:
            laid = False
            for card in sorted(set(hand), key=lambda c: c == JOKER):
                if len(hand) == 1 and not self.out_by_laying_off:
                    return
                if not self.fits(card):
                    continue
                for at, meld in enumerate(self.table):
                    if card in fitting_cards(meld):
                        ends = fitting_ends(meld, card)
                        if ends:
                            self.lay_off(card, at, ends[0])
                            laid = True
                            break
                if laid:
                    break

    def shed(self) -> str:
        """The card the turn seat discards: once down, its dearest that no seat down could lay off where
        another will do; before, the dearest card its cheapest melds do not keep (R24.6: of a hand laid
        whole, the card whose loss leaves it nearest), else the least useful."""
        seat, hand = self.turn, self.hands[self.turn]
        naturals = list(dict.fromkeys(card for card in hand if card != JOKER))
        if not naturals:
            return JOKER
        if self.take_when_down and any(self.down[s] for s in range(self.players) if s != seat):
            naturals = [card for card in naturals if not self.fits(card)] or naturals
        if self.down[seat]:
            return max(naturals, key=lambda card: (points(card, self.pips), card))
        contract = self.contract
        if contract.whole:   # R24.6: the dearest card the best melds of every card do not hold
            short, laid = whole_plan(tuple(hand), contract.sets, contract.runs, len(hand))
            card = max(naturals, key=lambda card: (card not in laid, points(card, self.pips), card))
            self.whole[seat] = None if card in laid else short   # the melds lose none of their cards
            return card
        _, _, kept, core = self.plan(seat)
        spare = [card for card in naturals if card not in core]
        if spare:
            card = max(spare, key=lambda card: (points(card, self.pips), card not in kept, card))
            if card in kept:   # some cheapest choice goes with it
                self.plans[seat] = None
            return card
        self.plans[seat] = None
        return least_useful(hand)
