"""The expert bot: it is one of the bots, it sends only moves the rules allow, every move it weighs is one of its
seat's legal moves, and its answer is the same for the same sight, whatever generator it holds, so the same seed
gives the same game. How often it beats the strong bot is the bench's (`python -m bench bots`); that it decides
from its seat's sight alone is tests/test_bot_sight.py's."""
import random

import pytest

from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import play_hand
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import NAMES, make_bot
from zioncheck.bots.base import SeatBot
from zioncheck.bots.expert import ExpertBot, choices
from zioncheck.bots.sight import Sight, sight_of
from zioncheck.bots.strong import StrongBot
from zioncheck.contracts.commands import (
    Command,
    Discard,
    DrawStock,
    GoDown,
    HandRule,
    Rules,
    StartGame,
    TakeDiscard,
)
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.log import Entry
from zioncheck.domain.state import GameState

# One hand of each game, so that a test plays a whole hand in seconds: Zioncheck's two runs, Contract rummy's two
# sets and a run, Liverpool rummy's three runs laid whole.
ONE_HAND = {
    "zioncheck": Rules(hands=(HandRule(dealt=10, sets=0, runs=2),)),
    "contract": Rules(preset="contract", hands=(HandRule(dealt=12, sets=2, runs=1),)),
    "liverpool": Rules(preset="liverpool", hands=(HandRule(dealt=12, sets=0, runs=3, whole=True),)),
}
QUICK = 12   # worlds a choice: a batch, enough to exercise the search


class Noted:
    """A bot at a real table whose every sight it is asked to decide is kept."""

    def __init__(self, bot: SeatBot):
        self.bot, self.name, self.sights = bot, bot.name, []

    def move(self, state: GameState, seat: int) -> Command:
        self.sights.append(sight_of(state, seat))
        return self.bot.move(state, seat)

    def out_of_turn(self, state: GameState, seat: int) -> list[Command]:
        return self.bot.out_of_turn(state, seat)


def one_hand(game: str, seed: int, players: int = 2) -> tuple[list[Entry], list[Noted]]:
    """A hand of `game` between an expert bot (seat 0) and strong bots; its log, and the bots as they were asked."""
    rng = random.Random(seed)
    bots = [Noted(ExpertBot(rng, worlds=QUICK))] + [Noted(StrongBot(rng)) for _ in range(players - 1)]
    dealer = Dealer(seeded(seed, f"expert-{game}"))
    table = InProcessTable(dealer=dealer)
    table.handle(StartGame(game_id=f"expert-{game}", players=players, rules=ONE_HAND[game]))
    table.handle(dealer.deal(table.state))
    play_hand(table, bots, rng)   # type: ignore[arg-type]  # a Noted bot is a Bot
    return table.log, bots


def test_the_expert_is_one_of_the_bots_a_seat_may_have():
    assert "expert" in NAMES
    assert isinstance(make_bot("expert", random.Random(0)), ExpertBot)


@pytest.mark.parametrize("game", ONE_HAND)
def test_the_expert_plays_a_whole_hand_of_every_game_with_no_refused_move(game):
    """play_hand raises on the first refused bot move (R18), so a hand played to its end had none."""
    log, bots = one_hand(game, seed=3, players=3 if game == "contract" else 2)
    assert not [entry for entry in log if isinstance(entry.event, Rejected)]
    assert len(bots[0].sights) > 5


def weighed(sight: Sight) -> list[Command]:
    return choices(sight, StrongBot(random.Random(0)).decide(sight))


@pytest.mark.parametrize("game", ONE_HAND)
def test_every_move_the_expert_weighs_is_one_of_its_seats_legal_moves(game):
    _, bots = one_hand(game, seed=5)
    for sight in bots[0].sights:
        moves = sight.moves
        for move in weighed(sight):
            assert (isinstance(move, TakeDiscard) and moves.take_discard
                    or isinstance(move, DrawStock) and moves.draw_stock
                    or isinstance(move, GoDown) and move.melds == moves.go_down
                    or isinstance(move, Discard) and move.card in moves.discard
                    or not isinstance(move, TakeDiscard | DrawStock | GoDown | Discard)), (move, moves)


@pytest.mark.parametrize("game", ONE_HAND)
def test_the_expert_answers_a_sight_the_same_whatever_generator_it_holds(game):
    _, bots = one_hand(game, seed=7)
    searched = [sight for sight in bots[0].sights if len(weighed(sight)) > 1][:6]
    assert searched, "no choice searched in a whole hand"
    for sight in searched:
        answers = {ExpertBot(random.Random(seed), worlds=QUICK).decide(sight) for seed in (1, 2)}
        assert len(answers) == 1, (sight, answers)


def test_the_same_seed_gives_the_expert_the_same_hand_byte_for_byte():
    first, _ = one_hand("zioncheck", seed=11)
    again, _ = one_hand("zioncheck", seed=11)
    assert first == again
