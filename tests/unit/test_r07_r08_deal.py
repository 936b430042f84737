"""R7 six hands, their deal sizes and contracts; R8 seats, dealer, deal and first player."""
import pytest

from given import cards, dealt, given_state, hands_played, play, refusal
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import play_game
from zioncheck.contracts.commands import Deal, DrawStock, GoDown, RevealSeed, StartGame
from zioncheck.contracts.events import GameStarted, HandDealt, HandEnded, SeedRevealed
from zioncheck.domain import GameState, decide
from zioncheck.domain.dealing import deal_out
from zioncheck.domain.fairness import commitment
from zioncheck.domain.hands import CONTRACTS, HANDS_PER_GAME

DEALT = {1: 10, 2: 10, 3: 10, 4: 10, 5: 11, 6: 14}

# One way to meet each hand's contract, and one way that is another hand's contract.
MEETS = {
    1: ["8C 8D 8H", "5S 5H 5D"],
    2: ["8C 8D 8H", "3S 4S 5S 6S"],
    3: ["3S 4S 5S 6S", "9H 10H JH QH"],
    4: ["3S 4S 5S 6S", "8C 8D 8H", "5H 5D 5C"],
    5: ["3S 4S 5S 6S", "9H 10H JH QH", "8C 8D 8H"],
    6: ["3S 4S 5S 6S", "9H 10H JH QH", "8C 8D 8H", "KC KD KH"],
}
MISSES = {
    1: ["8C 8D 8H", "3S 4S 5S 6S"],
    2: ["8C 8D 8H", "5S 5H 5D"],
    3: ["8C 8D 8H", "3S 4S 5S 6S"],
    4: ["3S 4S 5S 6S", "9H 10H JH QH", "8C 8D 8H"],
    5: ["3S 4S 5S 6S", "9H 10H JH QH", "8C 8D 8H", "KC KD KH"],
    6: ["3S 4S 5S 6S", "9H 10H JH QH", "8C 8D 8H"],
}


def real_deal(hand: int, players: int = 4, dealer: int = 0) -> HandDealt:
    """The dealer's deal of `hand` in a game whose earlier hands are over."""
    state = given_state(hands_played(players, hand - 1, dealer))
    [event] = decide(state, Dealer(seeded(3, "deal")).deal(state))
    return event


def going_down(hand: int, melds: list[str]):
    held = " ".join(melds)
    given = dealt(f"{held} 9D", "2S 2S", stock="7D", hand=hand)
    return play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards(m) for m in melds])])


# --- R7 hands and contracts ------------------------------------------------------------

def test_r07_a_game_is_six_hands():
    assert HANDS_PER_GAME == 6
    assert sorted(CONTRACTS) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("hand, size", sorted(DEALT.items()))
def test_r07_each_seat_is_dealt_the_hands_number_of_cards(hand, size):
    deal = real_deal(hand)
    assert [len(cards_) for cards_ in deal.hands] == [size] * 4


@pytest.mark.parametrize("hand, sets, runs", [(1, 2, 0), (2, 1, 1), (3, 0, 2), (4, 2, 1), (5, 1, 2), (6, 2, 2)])
def test_r07_each_hand_has_its_contract(hand, sets, runs):
    assert (CONTRACTS[hand].sets, CONTRACTS[hand].runs) == (sets, runs)


@pytest.mark.parametrize("hand", sorted(MEETS))
def test_r07_going_down_with_the_hands_contract_is_accepted(hand):
    then = going_down(hand, MEETS[hand])
    assert [" ".join(m.cards) for m in then.state.table] == MEETS[hand]


@pytest.mark.parametrize("hand", sorted(MISSES))
def test_r07_going_down_with_another_hands_contract_is_refused(hand):
    assert refusal(going_down(hand, MISSES[hand])) == "contract_not_met"


def test_r07_a_played_game_deals_ten_ten_ten_ten_eleven_and_fourteen_cards():
    table = play_game(["greedy", "random", "greedy"], 5, "sizes")
    deals = [e.event for e in table.log if isinstance(e.event, HandDealt)]
    assert [{len(h) for h in deal.hands} for deal in deals] == [{10}, {10}, {10}, {10}, {11}, {14}]


# --- R8 seats, dealer, deal ----------------------------------------------------------

def test_r08_hand_ones_dealer_is_seat_0_unless_the_config_says_otherwise():
    [started] = decide(GameState(), StartGame(game_id="g", players=4))
    assert started.dealer == 0
    assert real_deal(1).dealer == 0


def test_r08_the_config_may_name_hand_ones_dealer():
    [started] = decide(GameState(), StartGame(game_id="g", players=4, dealer=2))
    assert started.dealer == 2
    assert real_deal(1, dealer=2).dealer == 2


@pytest.mark.parametrize("hand, dealer", [(1, 2), (2, 3), (3, 0), (4, 1), (5, 2), (6, 3)])
def test_r08_each_next_dealer_sits_to_the_previous_dealers_left(hand, dealer):
    assert real_deal(hand, players=4, dealer=2).dealer == dealer


def test_r08_a_played_game_passes_the_deal_to_the_left():
    table = play_game(["random", "greedy", "random", "greedy"], 2, "rotation")
    deals = [e.event for e in table.log if isinstance(e.event, HandDealt)]
    assert [deal.dealer for deal in deals] == [0, 1, 2, 3, 0, 1]


def test_r08_the_deal_goes_one_card_at_a_time_starting_at_the_dealers_left():
    deck = [f"card{i}" for i in range(12)]
    hands, _ = deal_out(deck, players=3, dealer=1, per_seat=3)
    assert hands[2] == ["card0", "card3", "card6"]
    assert hands[0] == ["card1", "card4", "card7"]
    assert hands[1] == ["card2", "card5", "card8"]


def test_r08_the_rest_of_the_deck_is_the_stock_in_its_order():
    deck = [f"card{i}" for i in range(12)]
    _, stock = deal_out(deck, players=3, dealer=1, per_seat=3)
    assert stock == ["card9", "card10", "card11"]


def test_r08_the_discard_pile_of_a_real_deal_starts_empty():
    deal = real_deal(1)
    assert deal.discard == []
    assert given_state(hands_played(4, 0) + [deal]).discard == ()


def test_r08_the_first_player_is_the_dealers_left():
    given = dealt("2C 3C", "4C 5C", "6C 7C", stock="8C 9C", dealer=1)
    then = play(given, [DrawStock(seat=2)])
    assert then.state.turn == 2
    assert refusal(then) is None


def test_r08_no_other_seat_plays_first():
    given = dealt("2C 3C", "4C 5C", "6C 7C", stock="8C 9C", dealer=1)
    assert refusal(play(given, [DrawStock(seat=0)])) == "not_your_turn"
    assert refusal(play(given, [DrawStock(seat=1)])) == "not_your_turn"


def test_r08_the_last_seats_left_is_seat_0():
    given = dealt("2C 3C", "4C 5C", "6C 7C", stock="8C 9C", dealer=2)
    assert given_state(given).turn == 0


def test_r08_a_hand_is_dealt_only_once_the_one_before_has_ended():
    given = dealt("2C 3C", "4C 5C", stock="8C 9C")
    then = play(given, [Deal(hand=2, hands=[["2D"], ["3D"]], stock=["4D"])])
    assert refusal(then) == "bad_command"


def test_r08_hands_are_dealt_in_order():
    given = hands_played(3, 2)
    then = play(given, [Deal(hand=4, hands=[["2D"], ["3D"], ["4D"]], stock=["5D"])])
    assert refusal(then) == "bad_command"


# --- a game started at a later hand (StartGame.first_hand) reveals its deals' seeds ----

SEED_5, SEED_6 = "05" * 32, "06" * 32


def late_game(*hands: int) -> list:
    """A game of three seats started at hand 5, with each of `hands` dealt and ended."""
    events = [GameStarted(game_id="late", players=3, decks=2, dealer=0, first_hand=5)]
    for hand in hands:
        seed = SEED_5 if hand == 5 else SEED_6
        events += [HandDealt(hand=hand, dealer=hand - 1, hands=[["2C"], ["3C"], ["4C"]], stock=[],
                             commitment=commitment(seed)),
                   HandEnded(hand=hand, winner=None, scores=[5, 5, 5], stuck=[0, 1, 2], totals=[5, 5, 5])]
    return events


def test_r08_a_game_started_at_a_later_hand_reveals_that_hands_seed():
    then = play(late_game(5), [RevealSeed(hand=5, seed=SEED_5)])
    assert then.last == [SeedRevealed(hand=5, seed=SEED_5)]


def test_r08_a_game_started_at_a_later_hand_checks_the_seed_against_that_hands_commitment():
    then = play(late_game(5), [RevealSeed(hand=5, seed=SEED_6)])
    assert refusal(then) == "bad_command"


def test_r08_a_hand_before_a_late_start_has_no_seed_to_reveal():
    then = play(late_game(5), [RevealSeed(hand=3, seed=SEED_5)])
    assert refusal(then) == "bad_command"


def test_r08_a_game_started_at_a_later_hand_reveals_each_next_hands_seed_too():
    given = late_game(5)[:3] + [SeedRevealed(hand=5, seed=SEED_5)] + late_game(6)[1:]
    then = play(given, [RevealSeed(hand=6, seed=SEED_6)])
    assert then.last == [SeedRevealed(hand=6, seed=SEED_6)]
