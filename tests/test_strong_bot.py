"""The strong bot: it decides from its seat's sight alone, its moves are never refused, the same seed gives the
same game, and it beats the greedy bot. The 400-game figures are the bench's (`python -m bench bots`)."""
import random
import typing

import pytest

from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import play_game, play_hand
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import make_bot
from zioncheck.bots.shortfall import shortfall
from zioncheck.bots.sight import Sight, sight_of
from zioncheck.bots.strong import StrongBot
from zioncheck.contracts.commands import (
    ClaimDiscard,
    Discard,
    DrawStock,
    GoDown,
    LayOff,
    Rules,
    StartGame,
    TakeDiscard,
)
from zioncheck.contracts.events import Rejected
from zioncheck.domain.presets import CONTRACT_RUMMY, LIVERPOOL, ZIONCHECK, Ruleset
from zioncheck.domain.state import GameState, PlacedMeld


def hidden_cards_shuffled(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same game as `seat` sees it, with every card it cannot see (the others' hands, the stock) dealt anew:
    the same sizes, other cards."""
    others = [s for s in range(state.players) if s != seat]
    hidden = [card for s in others for card in state.hands[s]] + list(state.stock)
    rng.shuffle(hidden)
    hands = list(state.hands)
    for s in others:
        hands[s], hidden = tuple(hidden[:len(hands[s])]), hidden[len(hands[s]):]
    return GameState(**{**{f: getattr(state, f) for f in state.__struct_fields__},
                        "hands": tuple(hands), "stock": tuple(hidden)})


class Watched:
    """The strong bot at a real table, asked each question twice more: once with the hidden cards dealt anew."""

    def __init__(self, rng: random.Random):
        self.bot, self.rng, self.asked, self.differed = StrongBot(rng), random.Random(5), 0, []

    def move(self, state, seat):
        return self._same(state, seat, lambda bot, s: bot.move(s, seat))

    def out_of_turn(self, state, seat):
        return self._same(state, seat, lambda bot, s: bot.out_of_turn(s, seat))

    def _same(self, state, seat, ask):
        other = hidden_cards_shuffled(state, seat, self.rng)
        assert other.hands[seat] == state.hands[seat] and other.hands != state.hands or len(state.hands) < 2
        seen, unseen = ask(StrongBot(random.Random(1)), state), ask(StrongBot(random.Random(1)), other)
        self.asked += 1
        if seen != unseen:
            self.differed.append((seen, unseen))
        return ask(self.bot, state)


def test_the_strong_bot_decides_the_same_whatever_the_cards_it_cannot_see():
    rng = random.Random(3)
    dealer = Dealer(seeded(3, "hidden"))
    table = InProcessTable(dealer=dealer)
    watched = Watched(rng)
    bots = [watched, make_bot("greedy", rng), make_bot("greedy", rng)]
    table.handle(StartGame(game_id="hidden", players=3))
    for _ in range(3):   # three hands: sets, a set and a run, two runs
        table.handle(dealer.deal(table.state))
        play_hand(table, bots, rng)
        table.handle(dealer.reveal(table.state.hand))
    assert watched.asked > 100
    assert watched.differed == []


def test_the_strong_bots_sight_holds_no_card_of_another_hand_or_of_the_stock():
    table = play_game(["greedy", "greedy", "greedy"], 4, "sight")   # a game over: its last hand's cards are all known
    state = table.state
    sight = sight_of(state, 1)
    assert sight == sight_of(hidden_cards_shuffled(state, 1, random.Random(8)), 1)
    assert sight.cards == state.hands[1]
    assert sight.hand_sizes == tuple(len(hand) for hand in state.hands)
    assert sight.stock == len(state.stock)
    types = typing.get_type_hints(Sight)
    held = {name for name, kind in types.items() if kind == tuple[str, ...]}
    assert held == {"cards", "discard"}, "the only cards it holds are its own and the pile's (and the table's melds)"
    assert types["stock"] is int and types["hand_sizes"] == tuple[int, ...], "of the hidden cards, only counts"


@pytest.mark.parametrize("players", range(2, 9))
def test_the_strong_bot_never_sends_a_refused_command(players):
    """play_game raises on the first refused bot move (R18), so a finished game had none."""
    names = [("strong", "greedy", "random")[seat % 3] for seat in range(players)]
    assert play_game(names, players, f"strong-never-refused-{players}").state.game_over


def test_strong_bots_alone_finish_their_games():
    assert play_game(["strong"] * 4, 9, "strong-only").state.game_over


def test_the_same_seed_gives_the_strong_bot_the_same_game():
    first = play_game(["strong", "greedy"], 12, "again").log
    assert play_game(["strong", "greedy"], 12, "again").log == first


def test_the_strong_bot_beats_the_greedy_bot_in_most_two_seat_games():
    """A smoke test at a loose threshold: the bench plays 400 games for the figure (docs/bots.md)."""
    games, won = 30, 0
    for i in range(games):
        seats = ["strong", "greedy"] if i % 2 == 0 else ["greedy", "strong"]
        state = play_game(seats, i, f"strong-vs-greedy-{i}").state
        won += seats.index("strong") in state.winners
    assert won >= 0.6 * games, f"the strong bot won {won} of {games}"


# --- single decisions, from a sight made by hand ---------------------------------------------------------------

def sight(cards: str, *, hand_no: int = 1, top: str = "", discarder: int = 1, turn: int = 2, drawn: bool = False,
          down: tuple[bool, ...] = (False, False, False), table: tuple[PlacedMeld, ...] = (),
          sizes: tuple[int, ...] = (), rules: Ruleset = ZIONCHECK) -> Sight:
    """Seat 0's sight at a three-seat table, two decks, the stock half full: of a game of `rules` (Zioncheck's
    unless said), with the moves those rules allow it (domain/legal.py), as a table's sight has them."""
    hand = tuple(cards.split())
    sizes = sizes or (len(hand), 10, 10)
    game = GameState(game_id="by-hand", players=3, decks=2, hand=hand_no, rules=rules, seats=("greedy",) * 3,
                     hands=(hand, *(("2C",) * size for size in sizes[1:])), stock=("2C",) * 40,
                     discard=(top,) if top else (), discarders=(discarder,) if top else (), table=table, down=down,
                     turn=turn, drawn=drawn, window_open=bool(top), hand_over=False, totals=(0, 0, 0))
    return sight_of(game, 0)


def test_r11a_the_strong_bot_claims_a_discard_that_brings_its_contract_nearer():
    ready = sight("7S 7D 9C 9H 2C 4D 6H 8S JC KD", top="7C")
    assert StrongBot(random.Random(0)).react(ready) == [ClaimDiscard(seat=0)]


def test_r11a_the_strong_bot_lets_a_discard_go_that_does_not_help():
    ready = sight("7S 7D 9C 9H 2C 4D 6H 8S JC KD", top="QH")
    assert StrongBot(random.Random(0)).react(ready) == []


def test_r10_the_strong_bot_takes_the_discard_on_its_turn_when_it_helps():
    mine = sight("7S 7D 9C 9H 2C 4D 6H 8S JC KD", top="9S", turn=0)
    assert StrongBot(random.Random(0)).decide(mine) == TakeDiscard(seat=0)


def test_r12_the_strong_bot_goes_down_as_soon_as_it_holds_the_contract():
    mine = sight("7S 7D 7C 9C 9H 9S 4D 6H 8S JC KD", turn=0, drawn=True)
    assert isinstance(StrongBot(random.Random(0)).decide(mine), GoDown)


def test_the_strong_bot_sheds_a_card_that_helps_least_and_keeps_its_pairs():
    mine = sight("7S 7D 9C 9H 2C 4D 6H QS JC KD AC", turn=0, drawn=True)
    shed = StrongBot(random.Random(0)).decide(mine)
    assert isinstance(shed, Discard) and shed.card not in {"7S", "7D", "9C", "9H"}


def test_r13_once_down_the_strong_bot_lays_off_what_it_can_before_it_discards():
    run = PlacedMeld(owner=1, index=0, kind="run", cards=("5H", "6H", "7H", "8H"), low=5)
    mine = sight("KC 9H 4S", turn=0, drawn=True, down=(True, True, False), table=(run,))
    assert StrongBot(random.Random(0)).decide(mine) == LayOff(seat=0, target=(1, 0), card="9H", end="high")


def test_r13_the_strong_bot_does_not_throw_a_card_a_seat_that_is_down_could_lay_off():
    run = PlacedMeld(owner=1, index=0, kind="run", cards=("5S", "6S", "7S", "8S"), low=5)
    mine = sight("7S 7D 7C 10C 10H 2C 2H KC KH 4S 9D", turn=0, drawn=True, down=(False, True, False), table=(run,))
    assert StrongBot(random.Random(0)).decide(mine) == Discard(seat=0, card="9D")


def test_r12a_two_runs_of_one_suit_that_touch_are_one_run_to_the_shortfall():
    assert shortfall(("AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "KD"), 0, 2)[0] == 1
    assert shortfall(("AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "KD"), 0, 2)[0] == 0


def test_r6_a_joker_fills_any_place_the_hand_lacks():
    short, outs = shortfall(("7S", "7D", "9H", "10H", "JH", "2C"), 1, 1)
    assert short == 2 and {"7C", "8H", "QH", "JK"} <= outs
    assert shortfall(("7S", "7D", "9H", "10H", "JH", "2C", "JK"), 1, 1)[0] == 1


@pytest.mark.parametrize("rules", ["contract", "liverpool"])
def test_r24_the_strong_bot_plays_every_game_of_the_family_without_a_refused_move(rules):
    """The strong bot reads each hand's contract and the jokers from the game's rules, not Zioncheck's."""
    table = play_game(["strong", "greedy", "strong"], seed=5, game_id=f"family-{rules}", rules=Rules(preset=rules))
    assert table.state.game_over or table.state.hand >= 1
    assert not [e for e in table.log if isinstance(e.event, Rejected)]


# --- the hands that would not end, the seat about to go out, and the card a buy costs --------------------------

THREE_RUNS = "3C 4C 5C 6C 7D 8D 9D 10D JH QH KH AH"


@pytest.mark.parametrize("top", ["7C", "2C", "6D", "10H", "JK"])
def test_r24_6_a_hand_of_three_complete_runs_takes_the_card_that_goes_out(top):
    mine = sight(THREE_RUNS, hand_no=7, top=top, turn=0, rules=LIVERPOOL)
    assert StrongBot(random.Random(0)).decide(mine) == TakeDiscard(seat=0)
    taken = sight(THREE_RUNS + " " + top, hand_no=7, turn=0, drawn=True, rules=LIVERPOOL)
    went = StrongBot(random.Random(0)).decide(taken)
    assert isinstance(went, GoDown) and sorted(c for meld in went.melds for c in meld) == sorted(taken.cards)


def test_r24_6_a_hand_of_three_complete_runs_lets_a_card_that_does_not_go_out_go():
    mine = sight(THREE_RUNS, hand_no=7, top="9S", turn=0, rules=LIVERPOOL)
    assert StrongBot(random.Random(0)).decide(mine) == DrawStock(seat=0)


def test_r24_6_a_hand_laid_whole_keeps_the_cards_that_fit_its_runs_and_sheds_the_one_that_does_not():
    mine = sight("3C 4C 5C 6C 7D 8D 9D 10D JH QH KH 2S AS", hand_no=7, turn=0, drawn=True, rules=LIVERPOOL)
    assert StrongBot(random.Random(0)).decide(mine) in (Discard(seat=0, card="2S"), Discard(seat=0, card="AS"))


ALMOST_OUT = PlacedMeld(owner=1, index=0, kind="run", cards=("10S", "JS", "QS", "KS"), low=10)


@pytest.mark.parametrize("left", [1, 2])
def test_r13_a_seat_that_is_down_is_never_fed_the_card_it_goes_out_with_while_another_will_do(left):
    """The ace (15 points) is the dearest card the runs do not need: shed, seat 1 lays it off and goes out."""
    mine = sight("AS 3C 4C 5C 8D 9D 10D QD 2H 7H KC", hand_no=3, turn=0, drawn=True, down=(False, True, False),
                 table=(ALMOST_OUT,), sizes=(11, left, 10))
    shed = StrongBot(random.Random(0)).decide(mine)
    assert isinstance(shed, Discard) and shed.card != "AS"


def test_r13_with_three_cards_left_the_seat_that_is_down_may_be_fed_the_ace_to_shed_its_points():
    mine = sight("AS 3C 4C 5C 8D 9D 10D QD 2H 7H KC", hand_no=3, turn=0, drawn=True, down=(False, True, False),
                 table=(ALMOST_OUT,), sizes=(11, 3, 10))
    assert StrongBot(random.Random(0)).decide(mine) == Discard(seat=0, card="AS")


def test_r13_a_seat_that_is_down_is_fed_when_every_card_would_feed_it():
    only = sight("AS 9S 9S", hand_no=3, turn=0, drawn=True, down=(False, True, False), table=(ALMOST_OUT,),
                 sizes=(3, 1, 10))
    assert StrongBot(random.Random(0)).decide(only) in (Discard(seat=0, card="AS"), Discard(seat=0, card="9S"))


ONE_PAIR = "7S 7D 2C 4D 6H 8S JC KD 10H QS"   # two sets to make: the sevens lack one card, the other set three


def test_r24_5_a_buy_that_brings_the_contract_only_a_card_nearer_is_not_worth_its_penalty_card():
    for rules, claims in ((ZIONCHECK, [ClaimDiscard(seat=0)]), (CONTRACT_RUMMY, [])):
        assert StrongBot(random.Random(0)).react(sight(ONE_PAIR, top="7C", rules=rules)) == claims, rules.preset


def test_r24_5_a_buy_that_leaves_the_contract_a_card_away_is_worth_its_penalty_card():
    two_pairs = sight("7S 7D 9C 9H 2C 4D 6H 8S JC KD", top="7C", rules=CONTRACT_RUMMY)
    assert StrongBot(random.Random(0)).react(two_pairs) == [ClaimDiscard(seat=0)]


def test_r24_5_a_hand_laid_whole_buys_nothing_since_the_penalty_card_must_fit_too():
    almost = sight("3C 4C 5C 7D 8D 9D 10D JH QH KH AH 2S", hand_no=7, top="6C", rules=LIVERPOOL)
    assert StrongBot(random.Random(0)).react(almost) == []


def test_r24_9_a_seat_that_is_down_in_liverpool_draws_though_it_could_lay_the_discard_off():
    down = sight("4H 9D", top="9S", turn=0, down=(True, True, False), table=(ALMOST_OUT,), rules=LIVERPOOL)
    assert not down.moves.take_discard
    assert StrongBot(random.Random(0)).decide(down) == DrawStock(seat=0)


def test_r10_the_strong_bot_takes_no_card_it_would_throw_straight_back():
    """The ten brings the diamonds nearer a run; but seat 1, down with one card, could lay off every card the
    runs do not need, so taken, the ten would be the card to shed, and two seats would pass it to and fro."""
    set_ = PlacedMeld(owner=1, index=0, kind="set", cards=("KC", "KD", "KH"))
    run = PlacedMeld(owner=1, index=1, kind="run", cards=("2S", "3S", "4S", "5S"), low=2)
    mine = sight("3C 4C 5C 8D 9D KS KH AS 6S KD", hand_no=3, top="10D", turn=0, down=(False, True, False),
                 table=(set_, run), sizes=(10, 1, 10))
    assert StrongBot(random.Random(0)).decide(mine) == DrawStock(seat=0)
