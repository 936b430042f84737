"""R16: an empty stock. The pile below its top becomes the stock; with nothing to reshuffle the hand ends."""
from given import claimed, dealt, discarded, drew, given_state, holds, play, refusal
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.turns import InProcessTable
from zioncheck.contracts.commands import Discard, DrawStock, Reshuffle, TakeDiscard
from zioncheck.contracts.events import GameEnded, HandEnded, Rejected, StockDrawn, StockExhausted, StockReshuffled
from zioncheck.domain.drawing import MAX_RESHUFFLES
from zioncheck.domain.seeded import reshuffle_order


def dry_stock(pile: str = "2C 3C 4C KH", stock: str = ""):
    """Three seats, seat 0 to play first; the stock is `stock` (empty) and the pile, dealt with
    the hand, is `pile`."""
    return dealt("AS KH", "AH 4D 6H", "3S 5C 8S", stock=stock, discard=pile)


def claim_pending_on_a_dry_stock():
    """Seat 0 drew the last stock card and discarded KH; seat 1 claimed it; seat 0 is to draw again."""
    return dry_stock("2C 3C", stock="9C") + [drew(0, "9C"), discarded(0, "KH"), claimed(1, "KH")]


def at_table(given, seed: str = "r16") -> InProcessTable:
    return InProcessTable(dealer=Dealer(seeded(seed, "reshuffle")), state=given_state(given))


# --- the pure rules: the draw waits for the dealer -------------------------------------

def test_r16_a_draw_from_an_empty_stock_waits_for_a_reshuffle():
    then = play(dry_stock(), [DrawStock(seat=0)])
    assert refusal(then) == "stock_empty"
    assert then.state == then.before


def test_r16_the_pile_below_its_top_becomes_the_stock_in_the_dealers_order():
    then = play(dry_stock("2C 3C 4C AS KH"), [Reshuffle(hand=1, order=[3, 0, 2, 1])])
    assert list(then.state.stock) == ["AS", "2C", "4C", "3C"]


def test_r16_the_top_discard_stays_on_the_pile():
    then = play(dry_stock("2C 3C 4C AS KH"), [Reshuffle(hand=1, order=[3, 0, 2, 1])])
    assert list(then.state.discard) == ["KH"]


def test_r16_after_the_reshuffle_the_draw_takes_the_new_stocks_top():
    then = play(dry_stock("2C 3C 4C AS KH"), [Reshuffle(hand=1, order=[3, 0, 2, 1]), DrawStock(seat=0)])
    assert holds(then, 0, "AS")


def test_r16_after_the_reshuffle_the_turn_player_may_still_take_the_top_discard():
    then = play(dry_stock("2C 3C 4C AS KH"), [Reshuffle(hand=1, order=[3, 0, 2, 1]), TakeDiscard(seat=0)])
    assert holds(then, 0, "KH")


def test_r16_no_reshuffle_while_the_stock_holds_cards():
    given = dealt("AS KH", "AH 4D", stock="9C 10C", discard="2C 3C 4C")
    then = play(given, [Reshuffle(hand=1, order=[0, 1])])
    assert refusal(then) == "bad_command"


def test_r16_a_reshuffle_order_must_be_a_permutation_of_the_pile_below_its_top():
    for order in ([0, 1], [0, 1, 1], [0, 1, 2, 3], [1, 2, 3]):
        assert refusal(play(dry_stock(), [Reshuffle(hand=1, order=order)])) == "bad_command"


def test_r16_a_reshuffle_is_for_the_hand_in_play():
    then = play(dry_stock(), [Reshuffle(hand=2, order=[0, 1, 2])])
    assert refusal(then) == "bad_command"


# --- at the table: the dealer reshuffles and the draw goes on --------------------------

def test_r16_at_the_table_a_draw_from_an_empty_stock_is_accepted():
    table = at_table(dry_stock())
    events = table.handle(DrawStock(seat=0))
    assert [type(e) for e in events] == [StockReshuffled, StockDrawn]


def test_r16_at_the_table_the_pile_is_left_with_its_top_card_only():
    table = at_table(dry_stock())
    table.handle(DrawStock(seat=0))
    assert list(table.state.discard) == ["KH"]
    assert len(table.state.stock) == 2


def test_r16_the_reshuffle_is_the_dealers_seeded_randomness_recorded_in_the_log():
    given = dry_stock("2C 3C 4C 5C 6C 7C KH")
    table = at_table(given, seed="recorded")
    table.handle(DrawStock(seat=0))
    [shuffled] = [e.event for e in table.log if isinstance(e.event, StockReshuffled)]
    expected = reshuffle_order(seeded("recorded", "reshuffle")(1), 1, 6)
    assert shuffled.order == expected
    assert sorted(shuffled.order) == list(range(6))


def test_r16_a_claim_pending_over_a_reshuffle_still_wins_the_top_card():
    table = at_table(claim_pending_on_a_dry_stock())
    events = table.handle(DrawStock(seat=0))
    assert StockReshuffled in [type(e) for e in events]
    assert "KH" in table.state.hands[1]
    assert list(table.state.discard) == []


def test_r16_a_hand_may_be_reshuffled_more_than_once():
    table = at_table(dry_stock("2C 3C KH"))
    for command in [DrawStock(seat=0), Discard(seat=0, card="AS"), DrawStock(seat=0), Discard(seat=0, card="KH"),
                    DrawStock(seat=1)]:
        assert not isinstance(table.handle(command)[-1], Rejected)
    assert len([e for e in table.log if isinstance(e.event, StockReshuffled)]) == 2
    assert table.state.reshuffles == 2


# --- nothing to reshuffle: the hand ends with no winner ------------------------------

def test_r16_with_only_the_top_card_on_the_pile_the_draw_is_accepted_and_ends_the_hand():
    then = play(dry_stock("KH"), [DrawStock(seat=0)])
    assert refusal(then) is None
    assert [type(e) for e in then.last] == [StockExhausted, HandEnded]
    assert then.state.hand_over is True


def test_r16_a_hand_that_ends_dry_has_no_winner():
    then = play(dry_stock("KH"), [DrawStock(seat=0)])
    assert then.state.winner is None


def test_r16_a_hand_that_ends_dry_scores_every_hand():
    then = play(dry_stock("KH"), [DrawStock(seat=0)])
    assert then.state.scores == (15 + 10, 15 + 5 + 5, 5 + 5 + 5)


def test_r16_a_hand_that_ends_dry_reports_its_stuck_seats():
    then = play(dry_stock("KH"), [DrawStock(seat=0)])
    assert then.state.stuck == (0, 1, 2)


def test_r16_with_an_empty_pile_too_the_draw_ends_the_hand():
    then = play(dry_stock(""), [DrawStock(seat=0)])
    assert [type(e) for e in then.last] == [StockExhausted, HandEnded]


def test_r16_at_the_table_a_dry_draw_with_nothing_to_reshuffle_ends_the_hand():
    table = at_table(dry_stock("KH"))
    events = table.handle(DrawStock(seat=0))
    assert [type(e) for e in events] == [StockExhausted, HandEnded]


def test_r16_a_claim_pending_when_the_stock_runs_dry_still_wins_the_card():
    given = dry_stock("", stock="9C") + [drew(0, "9C"), discarded(0, "KH"), claimed(1, "KH")]
    then = play(given, [DrawStock(seat=0)])
    assert holds(then, 1, "KH")
    assert then.state.scores[1] == 15 + 5 + 5 + 10


def test_r16_a_dry_end_of_the_last_hand_ends_the_game():
    given = dealt("AS KH", "AH 4D 6H", stock="", discard="KH", hand=6)
    then = play(given, [DrawStock(seat=0)])
    assert [type(e) for e in then.last] == [StockExhausted, HandEnded, GameEnded]


def test_r16a_after_its_last_allowed_reshuffle_a_hand_ends_at_its_next_dry_stock():
    """R16a (decided in domain/drawing.py): a hand that rebuilt its stock MAX_RESHUFFLES times ends."""
    table = at_table(dealt("AS", "AH", stock="", discard="2C KH"))
    while not table.state.hand_over:
        seat = table.state.turn
        [*_, drawn] = table.handle(DrawStock(seat=seat))
        if isinstance(drawn, StockDrawn):
            table.handle(Discard(seat=seat, card=drawn.card))
    assert table.state.reshuffles == MAX_RESHUFFLES
    assert [type(e.event) for e in table.log[-2:]] == [StockExhausted, HandEnded]
    assert table.state.winner is None
