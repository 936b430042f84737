"""The expert bot: it is one of the bots, it sends only moves the rules allow, every move it weighs is one of its
seat's legal moves, and its answer is the same for the same sight, whatever generator it holds, so the same seed
gives the same game. How often it beats the strong bot is the bench's (`python -m bench bots`); that it decides
from its seat's sight alone is tests/test_bot_sight.py's."""
import random
from collections import Counter

import pytest

from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import play_hand
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import NAMES, make_bot
from zioncheck.bots import expert as expert_module
from zioncheck.bots.base import SeatBot
from zioncheck.bots.expert import ExpertBot, Taken, choices
from zioncheck.bots.rollout import hidden_deal
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
from zioncheck.domain.hands import CONTRACTS
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
        self.known: list[tuple[Counter[str], list[Counter[str]]]] = []

    def move(self, state: GameState, seat: int) -> Command:
        self.sights.append(sight_of(state, seat))
        move = self.bot.move(state, seat)
        if isinstance(self.bot, ExpertBot):   # what it knows of the other hands, beside what they hold
            self.known.append((Counter(self.bot.taken.known), [Counter(hand) for hand in state.hands]))
        return move

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


@pytest.mark.parametrize("game", ["contract", "liverpool"])
def test_what_the_expert_knows_the_other_seat_holds_it_holds_and_it_was_seen_taking(game):
    """R10: in a two-seat game the expert follows the cards the other seat takes from the pile; every card it
    counts as the other's is in the other's hand, and some are, or the test could not fail."""
    known = [(cards, hands) for seed in range(6) for cards, hands in one_hand(game, seed=seed)[1][0].known]
    assert sum(sum(cards.values()) for cards, _ in known) > 0
    for cards, hands in known:
        assert not cards - hands[1], (cards, hands[1])


def sight(**fields) -> Sight:
    """A two-seat sight of seat 0's turn after its draw, changed by `fields`."""
    base = {"seat": 0, "players": 2, "decks": 1, "hand_no": 1, "contract": CONTRACTS[1], "jokers": 2,
            "cards": ("3H", "4H", "9S"), "hand_sizes": (3, 3), "table": (), "discard": ("KD",), "discarder": 1,
            "down": (False, False), "turn": 0, "drawn": True, "window_open": False, "stock": 40, "reshuffles": 0,
            "totals": (0, 0)}
    return Sight(**(base | fields))


def test_a_card_the_other_seat_took_from_the_pile_is_dealt_to_it_in_every_world_and_a_draw_tells_nothing():
    """R10, R9: the expert's discard taken by the other seat is that seat's in each world its search deals, until
    the other seat throws it or lays it down; a draw from the stock tells it nothing."""
    taken = Taken()
    taken.see(sight())
    taken.did(sight(), Discard(seat=0, card="9S"))
    after = sight(cards=("3H", "4H", "5H"), drawn=False, discard=("KD", "2C"), discarder=1)   # took 9S, threw 2C
    taken.see(after)
    assert taken.known == Counter({"9S": 1})
    for world in range(20):
        assert hidden_deal(after, random.Random(world), taken.known)[0] == "9S"   # the other seat's cards come first
    taken.did(after, Discard(seat=0, card="5H"))
    taken.see(sight(drawn=False, discard=("KD", "2C", "5H", "9S"), discarder=1))   # drew, and threw the 9S
    assert taken.known == Counter()
    drew = Taken()
    drew.see(sight())
    drew.did(sight(), Discard(seat=0, card="9S"))
    drew.see(sight(drawn=False, discard=("KD", "9S", "2C"), discarder=1))
    assert drew.known == Counter()


def test_the_fine_measure_keeps_each_weighed_position_with_the_other_seats_real_cards_and_no_pick_beats_the_best(
        monkeypatch):
    """bench/positions.py: every position kept is one the expert weighed more than one move at, with the other
    seat's cards as the table held them; and no reading of the search gains more than the best move each time."""
    from bench import positions as fine
    monkeypatch.setattr(fine, "TRUTH_WORLDS", 4)
    kept = fine.record(("liverpool", 1))[:12]
    assert kept
    for sight, options, _, other, _ in kept:
        assert len(options) > 1 and len(other) == sight.hand_sizes[1 - sight.seat]
    worths = [fine.truth(position) for position in kept]
    best = fine.gain(worths, [max(range(len(w)), key=w.__getitem__) for w in worths])
    for reading in [(expert_module.SURE, expert_module.CONFIRM, True), *fine.READINGS.values()]:
        assert fine.gain(worths, [fine.chosen((reading, position)) for position in kept]) <= best


def test_the_told_measure_deals_the_other_seats_real_hand_in_every_world_and_its_move_is_legal():
    """bench/told.py: the search told the other seat's cards reads them as each move is asked for, deals exactly
    them to that seat in its worlds, and plays a move the table accepts."""
    from bench import told
    table = InProcessTable(dealer=(dealer := Dealer(seeded(7, "told"))))
    table.handle(StartGame(game_id="told", players=2, rules=ONE_HAND["contract"]))
    table.handle(dealer.deal(table.state))
    state, seat = table.state, table.state.turn
    bot = told.Told(random.Random(7))
    move = bot.move(state, seat)
    other = state.hands[1 - seat]
    assert bot.other == Counter(other)
    for world in range(3):
        assert sorted(hidden_deal(sight_of(state, seat), random.Random(world), bot.other)[:len(other)]) == sorted(other)
    assert not any(isinstance(event, Rejected) for event in table.handle(move))
