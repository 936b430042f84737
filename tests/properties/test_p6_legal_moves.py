"""(f) R9-R16, R18: the moves a seat's view offers (domain/legal.py) are the moves the table accepts.

Over random games, at every state and for every seat: each move offered is accepted by `decide`;
and the other way round for the moves a view can list in full (draw, take, claim, lay off, joker
swap, discard): one that `decide` accepts is offered. Going down has too many arrangements to try
them all; instead the exact search for the contract is checked against a brute-force one on small
hands, and against the bots' quick search in play.
"""
from collections import Counter
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st
from moves import PRESETS, REAL_CARDS, Session, modest, play_on, short_deals

from zioncheck.application.simulation import play_game
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, GoDown, LayOff, Rules, SwapJoker, TakeDiscard
from zioncheck.contracts.events import LaidOff
from zioncheck.contracts.views import SeatMoves
from zioncheck.domain import GameState, decide, evolve
from zioncheck.domain.cards import JOKER, card_at, suit
from zioncheck.domain.drawing import reshuffle_due
from zioncheck.domain.finder import find_contract, least_contract
from zioncheck.domain.going_down import read_contract
from zioncheck.domain.hands import CONTRACTS, Contract
from zioncheck.domain.legal import legal_moves
from zioncheck.domain.melds import run_low, set_rank
from zioncheck.domain.presets import CONTRACT_RUMMY
from zioncheck.domain.refusal import Refused, refusal_of


def offered(moves: SeatMoves, seat: int) -> list:
    """Every command the view offers the seat."""
    commands: list = [DrawStock(seat=seat)] * moves.draw_stock + [TakeDiscard(seat=seat)] * moves.take_discard
    commands += [ClaimDiscard(seat=seat)] * moves.claim
    commands += [GoDown(seat=seat, melds=moves.go_down)] if moves.go_down else []
    commands += [LayOff(seat=seat, target=(m.owner, m.index), card=m.card, end=m.end) for m in moves.lay_off]
    commands += [SwapJoker(seat=seat, target=(m.owner, m.index), card=m.card) for m in moves.swap_joker]
    return commands + [Discard(seat=seat, card=card) for card in moves.discard]


def accepted(state: GameState, command) -> bool:
    """decide takes the command; a draw that finds the stock empty is the table's to reshuffle first (R16)."""
    refused = refusal_of(decide(state, command))
    if refused is not None and refused.reason == "stock_empty":
        return isinstance(command, DrawStock) and reshuffle_due(state)
    return refused is None


def offered_moves_are_accepted(state: GameState) -> None:
    for seat in range(state.players):
        for command in offered(legal_moves(state, seat), seat):
            assert accepted(state, command), (command, refusal_of(decide(state, command)))


def accepted_moves_are_offered(state: GameState) -> None:
    for seat in range(state.players):
        moves = legal_moves(state, seat)
        assert moves.draw_stock == accepted(state, DrawStock(seat=seat))
        assert moves.take_discard == accepted(state, TakeDiscard(seat=seat))
        assert moves.claim == accepted(state, ClaimDiscard(seat=seat))
        held = list(dict.fromkeys(state.hands[seat])) if seat < len(state.hands) else []
        not_held = next(card for card in REAL_CARDS if card not in held)
        assert moves.discard == [card for card in [*held, not_held] if accepted(state, Discard(seat=seat, card=card))]
        lay_offs = {(m.card, m.owner, m.index, m.end) for m in moves.lay_off}
        swaps = {(m.card, m.owner, m.index) for m in moves.swap_joker}
        for card, meld in product(held, state.table):
            target = (meld.owner, meld.index)
            for end in (None, "low", "high"):
                [*_, last] = decide(state, LayOff(seat=seat, target=target, card=card, end=end))
                if isinstance(last, LaidOff):
                    assert (card, *target, last.end) in lay_offs
            if accepted(state, SwapJoker(seat=seat, target=target, card=card)):
                assert (card, *target) in swaps


def going_down_offered_when_the_bots_find_it(state: GameState) -> None:
    if state.hand_over or not state.drawn or state.down[state.turn]:
        return
    found = find_contract(state.hands[state.turn], state.contract) is not None
    assert not found or legal_moves(state, state.turn).go_down


@pytest.mark.parametrize("preset", PRESETS)
@modest(25)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), first_hand=st.integers(1, 7), data=st.data())
def test_r18_every_move_a_seat_is_offered_is_accepted(preset, players, seed, first_hand, data):
    session = Session(players, seed, first_hand=first_hand, preset=preset)
    session.deal()
    play_on(data, session, steps=80, after_each=lambda session: offered_moves_are_accepted(session.state))


@pytest.mark.parametrize("preset", PRESETS)
@modest(15)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), first_hand=st.integers(1, 7), data=st.data())
def test_r18_every_draw_take_claim_lay_off_swap_and_discard_accepted_is_offered(preset, players, seed, first_hand,
                                                                                data):
    session = Session(players, seed, first_hand=first_hand, preset=preset)
    session.deal()
    play_on(data, session, steps=60, after_each=lambda session: accepted_moves_are_offered(session.state))


@modest(15)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), first_hand=st.integers(1, 6), data=st.data())
def test_r16_moves_offered_while_the_stock_runs_dry_are_accepted(players, seed, first_hand, data):
    session = Session(players, seed, first_hand=first_hand, short=data.draw(short_deals(), label="short"))
    session.deal()
    play_on(data, session, steps=60, after_each=both_ways)


def both_ways(session: Session) -> None:
    offered_moves_are_accepted(session.state)
    accepted_moves_are_offered(session.state)


@modest(20)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), first_hand=st.integers(1, 6), data=st.data())
def test_r12_going_down_is_offered_whenever_the_bots_quick_search_finds_it(players, seed, first_hand, data):
    session = Session(players, seed, first_hand=first_hand)
    session.deal()
    play_on(data, session, steps=80, after_each=lambda session: going_down_offered_when_the_bots_find_it(session.state))


def states_between_batches(bots: list[str], seed: int, preset: str = "zioncheck"):
    """Each state a whole game between bots passes through, as a view sees it: after each command's events."""
    log = play_game(bots, seed, f"legal-{seed}", Rules(preset=preset)).log  # type: ignore[arg-type]
    state = GameState()
    for i, entry in enumerate(log):
        state = evolve(state, entry.event)
        if i + 1 == len(log) or log[i + 1].cause != entry.cause:
            yield state


@pytest.mark.parametrize("preset", PRESETS)
@modest(4)
@given(bots=st.lists(st.sampled_from(["greedy", "random"]), min_size=2, max_size=4), seed=st.integers(0, 2**32))
def test_r12_r13_r14_every_move_offered_through_whole_games_between_bots_is_accepted(preset, bots, seed):
    """Bots go down, lay off and swap jokers far more than the commands above do: whole games reach those moves."""
    for state in states_between_batches(bots, seed, preset):
        offered_moves_are_accepted(state)
        going_down_offered_when_the_bots_find_it(state)


# --- the exact search against a brute-force one --------------------------------------------

def brute_contract(hand: tuple[str, ...], hand_no: int | Contract) -> list[list[str]] | None:
    """Melds meeting the contract with a card left, by trying every choice of disjoint groups of the
    hand's cards, of any size, each laid as a set or as a run in every place it fits (R4-R6, R12, R12a)."""
    contract = CONTRACTS[hand_no] if isinstance(hand_no, int) else hand_no
    wanted = contract.sets + contract.runs
    counts = Counter(hand)
    groups = []
    for picks in product(*[range(n + 1) for n in counts.values()]):
        group = Counter({card: k for card, k in zip(counts, picks, strict=True) if k})
        if 3 <= group.total() < len(hand) and (laid := _laid(group)):
            groups.append((group, laid))

    def choose(start: int, left: Counter, chosen: list) -> list[list[str]] | None:
        if len(chosen) == wanted:
            for melds in product(*chosen):
                try:
                    read_contract(contract, [list(meld) for meld in melds])
                    return [list(meld) for meld in melds]
                except Refused:
                    pass
            return None
        for i in range(start, len(groups)):
            group, laid = groups[i]
            if not group - left and (left - group).total() and (found := choose(i, left - group, chosen + [laid])):
                return found
        return None

    return choose(0, counts, [])


def _laid(group: Counter) -> list[list[str]]:
    """Every way to lay the group as one meld: as a set, and as a run at every place it fits."""
    cards = list(group.elements())
    ways = [sorted(cards)] if set_rank(cards) is not None else []
    naturals = Counter(card for card in cards if card != JOKER)
    if not naturals or len({suit(card) for card in naturals}) != 1:
        return ways
    suit_ = suit(next(iter(naturals)))
    for low in range(1, 16 - len(cards)):
        places = [card_at(value, suit_) for value in range(low, low + len(cards))]
        if naturals - Counter(places):
            continue
        left = Counter(naturals)
        run = []
        for place in places:
            run.append(place if left[place] else JOKER)
            left[place] -= 1
        if run_low(run) is not None:
            ways.append(run)
    return ways


@st.composite
def small_hands(draw) -> tuple[tuple[str, ...], int]:
    """A hand of 6 to 10 cards from a few values of one or two suits, often with jokers: close calls for
    hands 1 to 3 (two sets, a set and a run, two runs)."""
    hand_no = draw(st.integers(1, 3))
    suits = draw(st.lists(st.sampled_from("CDHS"), min_size=1, max_size=2, unique=True))
    low = draw(st.integers(1, 10))
    values = range(low, min(low + draw(st.integers(3, 9)), 15))
    jokers = draw(st.sampled_from([0, 1, 2, 4]))
    pool = [card_at(value, suit_) for suit_ in suits for value in values] * 2 + [JOKER] * jokers
    size = min(draw(st.integers(6, 10)), len(pool))
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=size, max_size=size, unique=True))
    return tuple(pool[i] for i in picks), hand_no


@modest(60)
@given(small_hands())
def test_r12_r12a_the_exact_search_finds_melds_whenever_any_meet_the_contract(hand_and_contract):
    hand, hand_no = hand_and_contract
    assert (least_contract(hand, hand_no) is None) == (brute_contract(hand, hand_no) is None), hand


@modest(60)
@given(st.lists(st.sampled_from(REAL_CARDS), min_size=6, max_size=16), st.integers(1, 6))
def test_r12_the_exact_search_finds_whatever_the_bots_quick_search_finds(hand, hand_no):
    hand = tuple(hand)
    if find_contract(hand, hand_no) is not None:
        assert least_contract(hand, hand_no) is not None, hand


@st.composite
def small_hands_of_three_melds(draw) -> tuple[tuple[str, ...], Contract]:
    """A hand of 10 to 13 cards from a few values of one or two suits, often with jokers: close calls for the
    three-meld contracts of Contract and Liverpool rummy (R24.1: three sets, two sets and a run, a set and two
    runs, three runs)."""
    contract = draw(st.sampled_from(CONTRACT_RUMMY.contracts[3:]))
    suits = draw(st.lists(st.sampled_from("CDHS"), min_size=1, max_size=2, unique=True))
    low = draw(st.integers(1, 8))
    values = range(low, min(low + draw(st.integers(4, 9)), 15))
    jokers = draw(st.sampled_from([0, 1, 2]))
    pool = [card_at(value, suit_) for suit_ in suits for value in values] * 2 + [JOKER] * jokers
    size = min(draw(st.integers(10, 13)), len(pool))
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=size, max_size=size, unique=True))
    return tuple(pool[i] for i in picks), contract


@modest(30)
@given(small_hands_of_three_melds())
def test_r24_1_the_search_finds_three_meld_contracts_whenever_any_meet_them(hand_and_contract):
    hand, contract = hand_and_contract
    assert (least_contract(hand, contract) is None) == (brute_contract(hand, contract) is None), hand
