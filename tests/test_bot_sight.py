"""Every bot decides from its seat's sight alone: the question it is asked holds no card the seat may not see,
its answers are the same whatever cards the seat cannot see, and the sight the bots service makes of the seat's
view is the sight of the game at that moment, so a bot plays over NATS as it plays in process."""
import inspect
import random
import typing

import pytest
from test_strong_bot import hidden_cards_shuffled

from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import play_hand
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import NAMES, make_bot
from zioncheck.bots.base import SeatBot
from zioncheck.bots.expert import ExpertBot
from zioncheck.bots.sight import Sight, sight_of, sight_of_view
from zioncheck.contracts.commands import Command, Rules, StartGame
from zioncheck.domain.state import GameState
from zioncheck.domain.views import Projection, advance, seat_view


@pytest.mark.parametrize("name", NAMES)
def test_a_bots_decisions_are_asked_of_a_seats_sight_and_nothing_else(name):
    bot = make_bot(name, random.Random(0))
    assert isinstance(bot, SeatBot)
    for question in (type(bot).decide, type(bot).react):
        hints = typing.get_type_hints(question)
        assert {key: hints[key] for key in hints if key != "return"} == {"sight": Sight}, question
    for adapter in ("move", "out_of_turn"):   # a game held in process is reduced to the seat's sight first
        assert getattr(type(bot), adapter) is getattr(SeatBot, adapter), f"{name} overrides {adapter}"


def test_a_sight_holds_no_game_state_and_no_card_of_another_hand_or_of_the_stock():
    types = typing.get_type_hints(Sight)
    assert not [field for field, kind in types.items() if "GameState" in str(kind) or "Projection" in str(kind)]
    assert {field for field, kind in types.items() if kind == tuple[str, ...]} == {"cards", "discard"}
    assert "hands" not in types and types["stock"] is int
    assert list(inspect.signature(sight_of_view).parameters) == ["view"]


def bot_of(name: str, rng: random.Random) -> SeatBot:
    """The bot of that name; the expert searching fewer worlds a choice than it does at a table (its first batch),
    so that whole hands of it are asked everything in seconds."""
    return ExpertBot(rng, worlds=12) if name == "expert" else make_bot(name, rng)  # type: ignore[return-value]


class Asked:
    """A bot at a real table that is asked each question again, as a twin with the same generator, of the same
    game with every card its seat cannot see (the others' hands, the stock) dealt anew."""

    def __init__(self, name: str, rng: random.Random, shuffler: random.Random):
        self.bot, self.name, self.shuffler = bot_of(name, rng), name, shuffler
        self.asked, self.differed = 0, []

    def move(self, state: GameState, seat: int) -> Command:
        return self._same(state, seat, lambda bot, s: bot.move(s, seat))

    def out_of_turn(self, state: GameState, seat: int) -> list[Command]:
        return self._same(state, seat, lambda bot, s: bot.out_of_turn(s, seat))

    def _same(self, state, seat, ask):
        other = hidden_cards_shuffled(state, seat, self.shuffler)
        assert other.hands[seat] == state.hands[seat] and other.hands != state.hands
        seen, unseen = ask(self._twin(), state), ask(self._twin(), other)
        self.asked += 1
        if seen != unseen:
            self.differed.append((seen, unseen))
        return ask(self.bot, state)

    def _twin(self):
        rng = random.Random()
        rng.setstate(self.bot.rng.getstate())
        return bot_of(self.name, rng)


@pytest.mark.parametrize("name", NAMES)
def test_no_bot_decides_otherwise_whatever_the_cards_its_seat_cannot_see(name):
    """The expert's worlds are dealt from a seed of its sight alone: dealt anew, the cards it cannot see change
    none of them."""
    rng = random.Random(11)
    dealer = Dealer(seeded(11, f"unseen-{name}"))
    table = InProcessTable(dealer=dealer)
    asked = [Asked(name, rng, random.Random(seat)) for seat in range(3)]
    table.handle(StartGame(game_id=f"unseen-{name}", players=3))
    hands = 1 if name == "expert" else 2   # the expert searches: one hand of it, some 80 questions, is enough
    for _ in range(hands):
        table.handle(dealer.deal(table.state))
        play_hand(table, asked, rng)
        table.handle(dealer.reveal(table.state.hand))
    assert sum(seat.asked for seat in asked) > 50 * hands
    assert [seat.differed for seat in asked] == [[], [], []]


class ProjectedTable(InProcessTable):
    """The in-process table, its log also folded into views as the projector folds it (one batch a command)."""

    def __init__(self, dealer: Dealer):
        super().__init__(dealer=dealer)
        self.projection = Projection()

    def record(self, events, cause):
        events = super().record(events, cause)
        self.projection = advance(self.projection, events, cause)
        return events


class Viewed:
    """A bot at a real table whose every question is checked: the seat's view, as the projector writes it, gives
    the sight the game gives; and the bot answers it as it answers the game."""

    def __init__(self, table: ProjectedTable, name: str, rng: random.Random):
        self.table, self.bot, self.name, self.asked, self.differed = table, make_bot(name, rng), name, 0, []

    def move(self, state: GameState, seat: int) -> Command:
        self._check(state, seat, lambda bot, sight: bot.decide(sight))
        return self.bot.move(state, seat)

    def out_of_turn(self, state: GameState, seat: int) -> list[Command]:
        self._check(state, seat, lambda bot, sight: bot.react(sight))
        return self.bot.out_of_turn(state, seat)

    def _check(self, state, seat, ask):
        viewed = sight_of_view(seat_view(self.table.projection, seat))
        self.asked += 1
        if viewed != sight_of(state, seat) or ask(self._twin(), viewed) != ask(self._twin(), sight_of(state, seat)):
            self.differed.append((viewed, sight_of(state, seat)))

    def _twin(self):
        rng = random.Random()
        rng.setstate(self.bot.rng.getstate())
        return make_bot(self.name, rng)


@pytest.mark.parametrize("rules", [Rules(), Rules(preset="contract"), Rules(preset="liverpool", jokers=5)],
                         ids=["zioncheck", "contract", "liverpool-5-jokers"])
def test_the_sight_of_a_seats_view_is_the_sight_of_the_game(rules):
    rng = random.Random(4)
    dealer = Dealer(seeded(4, "viewed"))
    table = ProjectedTable(dealer)
    bots = [Viewed(table, name, rng) for name in ("strong", "greedy", "random", "greedy")]
    table.handle(StartGame(game_id="viewed", players=4, rules=rules))
    for _ in range(2):
        table.handle(dealer.deal(table.state))
        play_hand(table, bots, rng)
        table.handle(dealer.reveal(table.state.hand))
    assert sum(bot.asked for bot in bots) > 100
    assert [bot.differed[:1] for bot in bots] == [[], [], [], []]
