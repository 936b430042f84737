"""Hypothesis strategies and a driver for the property tests.

A `Session` is one game at an in-process table (application/turns.py, so R16 reshuffles
happen as they would in play). Each step hypothesis picks a command: most often a
plausible one (a bot's move, a draw, a claim, a swap, a discard), sometimes garbage,
so that play reaches deep into hands without losing its randomness.
"""
import random
from collections import Counter

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import make_bot
from zioncheck.bots.base import swaps_on
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Deal,
    Discard,
    DrawStock,
    GoDown,
    LayOff,
    Reshuffle,
    RevealSeed,
    Rules,
    StartGame,
    SwapJoker,
    TakeDiscard,
)
from zioncheck.contracts.events import HandDealt
from zioncheck.domain.cards import JOKER, NATURALS, full_decks
from zioncheck.domain.finder import find_contract, lay_offs
from zioncheck.domain.presets import PRESET_RULES, ruleset_of

PRESETS = list(PRESET_RULES)   # R24: every property holds in every game of the family


def modest(examples: int) -> settings:
    """A property's settings: few examples, no deadline (two cores, other suites running beside)."""
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- cards and commands, well formed or not ----------------------------------------

REAL_CARDS = (*NATURALS, JOKER)


def _respelled(card: str) -> st.SearchStrategy[str]:
    """R2: the same card in another spelling (lower case, T for 10)."""
    spellings = {card, card.lower(), card.replace("10", "T"), card.replace("10", "t").lower()}
    return st.sampled_from(sorted(spellings))


card_texts = st.one_of(
    st.sampled_from(REAL_CARDS),
    st.sampled_from(REAL_CARDS).flatmap(_respelled),
    st.sampled_from(["", "1C", "11H", "ZZ", "10", "JKK", "AX", "T", "jk ", " ", "♠A", "10C10C"]),
    st.text(max_size=4),
)


def seats(players: int) -> st.SearchStrategy[int]:
    return st.one_of(st.integers(0, max(players - 1, 0)), st.integers(-3, players + 3), st.integers())


def targets(players: int) -> st.SearchStrategy[tuple[int, int]]:
    return st.tuples(st.one_of(st.integers(-1, players), st.integers()),
                     st.one_of(st.integers(-1, 4), st.integers()))


def melds(cards_: st.SearchStrategy[str]) -> st.SearchStrategy[list[list[str]]]:
    return st.lists(st.lists(cards_, max_size=6), max_size=5)


def any_command(players: int, held: tuple[str, ...] = ()) -> st.SearchStrategy:
    """Every command type, with garbage cards, unknown seats and targets that name nothing."""
    cards_ = st.one_of(card_texts, st.sampled_from(held)) if held else card_texts
    seat = seats(players)
    hand = st.integers(-1, 8)
    return st.one_of(
        st.builds(DrawStock, seat=seat),
        st.builds(TakeDiscard, seat=seat),
        st.builds(ClaimDiscard, seat=seat),
        st.builds(GoDown, seat=seat, melds=melds(cards_)),
        st.builds(LayOff, seat=seat, target=targets(players), card=cards_,
                  end=st.sampled_from([None, "low", "high"])),
        st.builds(SwapJoker, seat=seat, target=targets(players), card=cards_),
        st.builds(Discard, seat=seat, card=cards_),
        st.builds(Deal, hand=hand, hands=st.lists(st.lists(cards_, max_size=3), max_size=players + 1),
                  stock=st.lists(cards_, max_size=3), discard=st.lists(cards_, max_size=2)),
        st.builds(Reshuffle, hand=hand, order=st.lists(st.integers(-1, 6), max_size=6)),
        st.builds(RevealSeed, hand=hand, seed=st.one_of(st.text(max_size=8), st.just("00" * 32))),
        st.builds(StartGame, game_id=st.text(max_size=3), players=st.integers(-1, 12), dealer=st.integers(-1, 12),
                  decks=st.one_of(st.none(), st.integers(-1, 4)), first_hand=st.integers(0, 7)),
    )


# --- a game at the table -----------------------------------------------------------

class Session:
    """One game at an in-process table, with the multiset of cards its current hand was dealt."""

    def __init__(self, players: int, seed: int, first_hand: int = 1, short: tuple[int, int, int] | None = None,
                 preset: str = "zioncheck"):
        """`short`: deal every hand stacked as (cards per seat, stock, pile) instead of the dealer's real deal.
        `preset`: the game played (R24); a `first_hand` past its last hand starts at its last."""
        self.players = players
        self.seed = seed
        self.short = short
        self.rng = random.Random(seed)
        self.dealer = Dealer(seeded(seed, "properties"))
        self.table = InProcessTable(dealer=self.dealer)
        self.commands: list = []
        self.dealt: Counter = Counter()
        self.bot = make_bot("greedy", random.Random(seed))
        rules = Rules(preset=preset)  # type: ignore[arg-type]
        self.send(StartGame(game_id="properties", players=players, rules=rules,
                            first_hand=min(first_hand, ruleset_of(rules).hands)))

    @property
    def state(self):
        return self.table.state

    def send(self, command) -> list:
        self.commands.append(command)
        events = self.table.handle(command)
        for event in events:
            if isinstance(event, HandDealt):
                self.dealt = Counter(c for cards in (*event.hands, event.stock, event.discard) for c in cards)
        return events

    def deal(self) -> list:
        """The next hand: the dealer's real deal (R1, R7, R8), or a short stacked one."""
        if self.short is None:
            return self.send(self.dealer.deal(self.state))
        return self.deal_short(*self.short)

    def deal_short(self, per_seat: int, stock: int, pile: int) -> list:
        """A short deal of cards from the full decks, so stocks run dry (R16) within a few turns."""
        deck = full_decks(self.state.decks, self.state.rules.jokers_for(self.state.decks))
        self.rng.shuffle(deck)
        hands = [deck[i * per_seat:(i + 1) * per_seat] for i in range(self.players)]
        rest = deck[self.players * per_seat:]
        return self.send(Deal(hand=self.state.hand + 1, hands=hands, stock=rest[:stock],
                              discard=rest[stock:stock + pile]))

    def cards_in_play(self) -> Counter:
        s = self.state
        table = [c for meld in s.table for c in meld.cards]
        return Counter([*s.stock, *s.discard, *(c for hand in s.hands for c in hand), *table])

    def plausible(self) -> list:
        """Commands a player might send now: the greedy bot's move first, then the turn's options,
        then claims and joker swaps by the other seats. Some will be refused; that is fine."""
        s = self.state
        turn = s.turn
        hand = s.hands[turn]
        options = [self.bot.move(s, turn)]
        if not s.drawn:
            options += [DrawStock(seat=turn), TakeDiscard(seat=turn)]
        else:
            if not s.down[turn]:
                found = find_contract(hand, s.contract)
                if found:
                    options.append(GoDown(seat=turn, melds=found))
            else:
                options += [LayOff(seat=turn, target=(meld.owner, meld.index), card=card, end=end)
                            for card, meld, end in lay_offs(s, turn)]
            options += [Discard(seat=turn, card=card) for card in sorted(set(hand))]
        for seat in range(s.players):
            if seat != turn:
                options.append(ClaimDiscard(seat=seat))
            options += swaps_on(s.table, s.hands[seat], seat)
        return options


def play_on(data, session: Session, steps: int, after_each=None) -> None:
    """Up to `steps` commands chosen by hypothesis: half the time the greedy bot's move, most of
    the rest a plausible command, one in ten a garbage command of any type. Deals each next hand."""
    for _ in range(steps):
        state = session.state
        if state.game_over:
            return
        if state.hand_over:
            session.deal()
        else:
            choice = data.draw(st.integers(0, 9), label="choice")
            options = session.plausible()
            if choice < 5:
                command = options[0]
            elif choice < 9:
                command = data.draw(st.sampled_from(options), label="plausible")
            else:
                held = state.hands[state.turn]
                command = data.draw(any_command(session.players, held), label="garbage")
            session.send(command)
        if after_each is not None:
            after_each(session)


def players_and_seed():
    return st.tuples(st.integers(2, 5), st.integers(0, 2**32))


def short_deals():
    """(cards per seat, stock, pile) for a stacked hand that runs its stock dry soon."""
    return st.tuples(st.integers(1, 8), st.integers(0, 6), st.integers(0, 3))
