"""evolve(state, event) -> state: one event applied, with no checks at all."""
from collections.abc import Callable, Iterable
from functools import reduce
from typing import Any, TypeVar

from msgspec.structs import replace

from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import PERSON
from zioncheck.domain.cards import JOKER
from zioncheck.domain.melds import run_start
from zioncheck.domain.presets import ruleset_of
from zioncheck.domain.seats import left_of_dealer, next_seat
from zioncheck.domain.state import GameState, PlacedMeld, dealt_index, played, replace_at

E = TypeVar("E", bound=ev.Event)
Evolver = Callable[[GameState, Any], GameState]   # takes the event type it is listed under


def evolve(state: GameState, event: ev.Event) -> GameState:
    return EVOLVERS[type(event)](state, event)


def fold(state: GameState, events: Iterable[ev.Event]) -> GameState:
    return reduce(evolve, events, state)


def _give(state: GameState, seat: int, card: str) -> tuple[tuple[str, ...], ...]:
    """Every seat's hand, `card` added to `seat`'s: a draw, a take or a won claim."""
    hands = list(state.hands)
    hands[seat] += (card,)
    return tuple(hands)


def _play(state: GameState, seat: int, card: str) -> tuple[tuple[str, ...], ...]:
    """Every seat's hand, one `card` gone from `seat`'s, which the event says held it: a discard, a lay-off
    or a swap, the commonest events of a hand (so one copy of the seats, and no call more)."""
    hands = list(state.hands)
    hand = hands[seat]
    i = hand.index(card)
    hands[seat] = hand[:i] + hand[i + 1:]
    return tuple(hands)


def _game_started(s: GameState, e: ev.GameStarted) -> GameState:
    return GameState(game_id=e.game_id, players=e.players, decks=e.decks, first_dealer=e.dealer,
                     dealer=e.dealer, hand=e.first_hand - 1, totals=(0,) * e.players,
                     seats=tuple(e.seats) or (PERSON,) * e.players, limits=e.limits,
                     timeouts=(0,) * e.players, idle=(False,) * e.players, stacked=e.stacked,
                     rules=ruleset_of(e.rules), public=e.public is True)


def _hand_dealt(s: GameState, e: ev.HandDealt) -> GameState:
    n = s.players
    return replace(
        s, hand=e.hand, dealer=e.dealer, hands=tuple(tuple(h) for h in e.hands), stock=tuple(e.stock),
        discard=tuple(e.discard), discarders=(None,) * len(e.discard), window_open=False, claims=(), table=(),
        down=(False,) * n, turn=left_of_dealer(e.dealer, n), drawn=False, hand_over=False,
        extra_turn=s.rules.first_twice,   # R11; R24.4: not where an upcard starts the pile
        winner=None, scores=None, stuck=(), reshuffles=0, released=False, ready=(), pause_over=False,
        commitments=s.commitments + (e.commitment,), seeds=s.seeds + ("",), turn_no=s.turn_no + 1,
    )


def _stock_reshuffled(s: GameState, e: ev.StockReshuffled) -> GameState:
    below = s.discard[:-1]
    return replace(s, stock=tuple(below[i] for i in e.order), discard=s.discard[-1:],
                   discarders=s.discarders[-1:], reshuffles=s.reshuffles + 1)


def _seed_revealed(s: GameState, e: ev.SeedRevealed) -> GameState:
    index = dealt_index(s, e.hand)
    if index is None:  # a hand not dealt at this table: decide refuses its seed (reveal_seed)
        return s
    return replace(s, seeds=replace_at(s.seeds, index, e.seed))


def _stock_drawn(s: GameState, e: ev.StockDrawn) -> GameState:
    return replace(s, stock=s.stock[1:], hands=_give(s, e.seat, e.card), drawn=True, window_open=False)


def _stock_exhausted(s: GameState, e: ev.StockExhausted) -> GameState:
    return replace(s, drawn=True, window_open=False)


def _discard_taken(s: GameState, e: ev.DiscardTaken) -> GameState:
    return replace(s, discard=s.discard[:-1], discarders=s.discarders[:-1], hands=_give(s, e.seat, e.card),
                   drawn=True, window_open=False, claims=())


def _discard_claimed(s: GameState, e: ev.DiscardClaimed) -> GameState:
    return replace(s, claims=s.claims + (e.seat,))


def _claim_won(s: GameState, e: ev.ClaimWon) -> GameState:
    return replace(s, discard=s.discard[:-1], discarders=s.discarders[:-1], hands=_give(s, e.seat, e.card),
                   claims=())


def _unchanged(s: GameState, e: ev.Event) -> GameState:
    return s


def _went_down(s: GameState, e: ev.WentDown) -> GameState:
    laid = [c for meld in e.melds for c in meld.cards]
    placed = tuple(
        PlacedMeld(owner=e.seat, index=i, kind=m.kind, cards=tuple(m.cards),
                   low=run_start(m.cards) if m.kind == "run" else 0)
        for i, m in enumerate(e.melds)
    )
    return replace(s, hands=replace_at(s.hands, e.seat, played(s.hands[e.seat], laid)),
                   table=s.table + placed, down=replace_at(s.down, e.seat, True))


def _with_meld(s: GameState, owner: int, index: int,
               change: Callable[[PlacedMeld], PlacedMeld]) -> tuple[PlacedMeld, ...]:
    for i, meld in enumerate(s.table):
        if meld.owner == owner and meld.index == index:
            return replace_at(s.table, i, change(meld))
    return s.table


def _laid_off(s: GameState, e: ev.LaidOff) -> GameState:
    def extend(m: PlacedMeld) -> PlacedMeld:
        cards, added = m.cards, e.card
        if isinstance(e.position, int):   # R24.11: the card takes the joker's place, the joker goes to the end
            cards, added = replace_at(cards, e.position, e.card), JOKER
        if e.end == "low":
            return replace(m, cards=(added,) + cards, low=m.low - 1)
        return replace(m, cards=cards + (added,))
    return replace(s, table=_with_meld(s, e.owner, e.index, extend), hands=_play(s, e.seat, e.card))


def _joker_swapped(s: GameState, e: ev.JokerSwapped) -> GameState:
    def cover(m: PlacedMeld) -> PlacedMeld:
        return replace(m, cards=replace_at(m.cards, e.position, e.card))
    hands = _play(s, e.seat, e.card)
    hands = replace_at(hands, e.seat, hands[e.seat] + (JOKER,))
    return replace(s, table=_with_meld(s, e.owner, e.index, cover), hands=hands)


def _discarded(s: GameState, e: ev.Discarded) -> GameState:
    hands, discard, discarders = _play(s, e.seat, e.card), s.discard + (e.card,), s.discarders + (e.seat,)
    if not hands[e.seat]:  # R15: went out; the hand ends at once, so the turn stays
        turn, extra_turn, turn_no = s.turn, s.extra_turn, s.turn_no
    elif s.extra_turn:  # R11: the first player plays a second turn at once
        turn, extra_turn, turn_no = s.turn, False, s.turn_no + 1
    else:
        turn, extra_turn, turn_no = next_seat(s.turn, s.players), False, s.turn_no + 1
    return replace(s, hands=hands, discard=discard, discarders=discarders, window_open=True, claims=(), drawn=False,
                   released=False, turn=turn, extra_turn=extra_turn, turn_no=turn_no)


def _hand_ended(s: GameState, e: ev.HandEnded) -> GameState:
    return replace(s, hand_over=True, window_open=False, winner=e.winner, scores=tuple(e.scores),
                   stuck=tuple(e.stuck), totals=tuple(e.totals))


def _game_ended(s: GameState, e: ev.GameEnded) -> GameState:
    return replace(s, game_over=True, winners=tuple(e.winners))


def _turn_timed_out(s: GameState, e: ev.TurnTimedOut) -> GameState:
    return replace(s, timeouts=replace_at(s.timeouts, e.seat, s.timeouts[e.seat] + 1))


def _seat_idle(s: GameState, e: ev.SeatIdle) -> GameState:
    return replace(s, idle=replace_at(s.idle, e.seat, True), presence=s.presence + 1)


def _seat_back(s: GameState, e: ev.SeatBack) -> GameState:
    return replace(s, idle=replace_at(s.idle, e.seat, False), timeouts=replace_at(s.timeouts, e.seat, 0),
                   presence=s.presence + 1)


def _game_abandoned(s: GameState, e: ev.GameAbandoned) -> GameState:
    return replace(s, abandoned=True, hand_over=True, window_open=False)


def _window_released(s: GameState, e: ev.WindowReleased) -> GameState:
    return replace(s, released=True)


def _seat_ready(s: GameState, e: ev.SeatReady) -> GameState:
    ready = s.ready or (False,) * s.players
    return replace(s, ready=replace_at(ready, e.seat, True))


def _pause_ended(s: GameState, e: ev.PauseEnded) -> GameState:
    return replace(s, pause_over=True)


def _for(kind: type[E], evolver: Callable[[GameState, E], GameState]) -> tuple[type[ev.Event], Evolver]:
    """One entry of EVOLVERS; the type checker sees that `evolver` takes a `kind`."""
    return kind, evolver


# One evolver per event type of ev.AnyEvent (tests/unit/test_completeness.py checks none is missing).
EVOLVERS: dict[type[ev.Event], Evolver] = dict([
    _for(ev.GameStarted, _game_started), _for(ev.HandDealt, _hand_dealt),
    _for(ev.StockReshuffled, _stock_reshuffled), _for(ev.SeedRevealed, _seed_revealed),
    _for(ev.StockDrawn, _stock_drawn), _for(ev.StockExhausted, _stock_exhausted),
    _for(ev.DiscardTaken, _discard_taken), _for(ev.DiscardClaimed, _discard_claimed),
    _for(ev.ClaimWon, _claim_won), _for(ev.ClaimFailed, _unchanged), _for(ev.WentDown, _went_down),
    _for(ev.LaidOff, _laid_off), _for(ev.JokerSwapped, _joker_swapped), _for(ev.Discarded, _discarded),
    _for(ev.HandEnded, _hand_ended), _for(ev.GameEnded, _game_ended), _for(ev.Rejected, _unchanged),
    _for(ev.TurnTimedOut, _turn_timed_out), _for(ev.SeatIdle, _seat_idle), _for(ev.SeatBack, _seat_back),
    _for(ev.GameAbandoned, _game_abandoned), _for(ev.WindowReleased, _window_released),
    _for(ev.SeatReady, _seat_ready), _for(ev.PauseEnded, _pause_ended),
])
