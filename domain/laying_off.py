"""R13: laying off a card on a meld already on the table, at a named or obvious end; R24.10 going out by
laying off the last card, R24.11 a card laid in a run's joker's place, which moves the joker to an end,
where the game says so."""
from functools import lru_cache

import msgspec

from zioncheck.contracts.commands import End, LayOff
from zioncheck.contracts.events import AnyEvent, LaidOff
from zioncheck.domain.cards import JOKER, SUITS, card_at, rank, suit
from zioncheck.domain.evolve import evolve
from zioncheck.domain.gates import after_the_draw, card, holds
from zioncheck.domain.going_out import end_of_hand
from zioncheck.domain.melds import set_rank
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import GameState, PlacedMeld, find_meld


def lay_off(state: GameState, command: LayOff) -> list[AnyEvent]:
    card_ = card(command.card)
    seat = command.seat
    after_the_draw(state, seat)
    if not state.down[seat]:
        raise Refused("not_down", f"seat {seat} must go down before laying off (R13)")
    holds(state, seat, card_)
    owner, index = command.target
    meld = find_meld(state, owner, index)
    if meld is None:
        raise Refused("no_such_meld", f"seat {owner} has no meld {index} on the table")
    position = joker_place(meld, card_) if state.rules.joker_swaps == "move" else None   # R24.11
    end = fitting_end(meld, card_, command.end) if position is None else joker_end(meld, card_, command.end)
    last = len(state.hands[seat]) == 1
    if last and not state.rules.out_by_laying_off:
        raise Refused("must_keep_discard", "laying off must leave a card to discard (R15)")
    laid = LaidOff(seat=seat, owner=owner, index=index, card=card_, end=end,
                   position=msgspec.UNSET if position is None else position)
    if last:   # R24.10: laying off the last card goes out, with no discard
        return [laid, *end_of_hand(evolve(state, laid), winner=seat)]
    return [laid]


def fitting_end(meld: PlacedMeld, card_: str, named: End | None) -> End | None:
    """Where `card_` goes on `meld`: None on a set, "low" or "high" on a run."""
    shown = " ".join(meld.cards)
    if meld.kind == "set":
        if card_ == JOKER or rank(card_) == set_rank(meld.cards):
            return None
        raise Refused("cannot_lay_off", f"{card_} does not fit the set {shown}")
    ends = run_ends(meld, card_)
    if not ends or (named is not None and named not in ends):
        where = f" at its {named} end" if named else ""
        raise Refused("cannot_lay_off", f"{card_} does not fit the run {shown}{where} (R13)")
    if named is None and len(ends) == 2:
        raise Refused("ambiguous_end", f"{card_} fits both ends of {shown}: name the end (R13)")
    return named or ends[0]


def joker_place(meld: PlacedMeld, card_: str) -> int | None:
    """R24.11: the position of the run's joker that the natural `card_` stands for (R6), or None."""
    if meld.kind != "run" or card_ == JOKER or JOKER not in meld.cards:
        return None
    for position, placed in enumerate(meld.cards):
        if placed == JOKER and card_at(meld.low + position, meld.suit) == card_:
            return position
    return None


def open_ends(meld: PlacedMeld) -> list[End]:
    """R13: the ends of a run that take a card: not past an ace."""
    ends: list[End] = []
    if meld.low > 1:
        ends.append("low")
    if meld.high < 14:
        ends.append("high")
    return ends


def joker_end(meld: PlacedMeld, card_: str, named: End | None) -> End:
    """R24.11: where the joker goes when `card_` takes its place in the run: the end named, or the only one
    open. A run with no end open keeps its joker, and takes no card in its place (decided)."""
    shown = " ".join(meld.cards)
    ends = open_ends(meld)
    if not ends or (named is not None and named not in ends):
        where = f" at its {named} end" if named else ""
        raise Refused("cannot_lay_off", f"the joker in {shown} has no room{where} to move to (R24.11)")
    if named is None and len(ends) == 2:
        raise Refused("ambiguous_end", f"{card_} takes the joker's place in {shown}: name the end the joker "
                                       f"moves to (R24.11)")
    return named or ends[0]


def run_ends(meld: PlacedMeld, card_: str) -> list[End]:
    """R13: a run takes the card just below its low end or just above its high end, never past an ace."""
    ends: list[End] = []
    if meld.low > 1 and card_ in (JOKER, card_at(meld.low - 1, meld.suit)):
        ends.append("low")
    if meld.high < 14 and card_ in (JOKER, card_at(meld.high + 1, meld.suit)):
        ends.append("high")
    return ends


def fitting_ends(meld: PlacedMeld, card_: str) -> list[End | None]:
    """Every end `card_` goes on `meld` at (R13): [None] on a set that takes it, the run's ends that
    take it ("low", "high"), or none."""
    if meld.kind == "set":
        return [None] if card_ == JOKER or rank(card_) == meld.rank else []
    if card_ != JOKER and suit(card_) != meld.suit:
        return []  # R5: a run is one suit
    return [*run_ends(meld, card_)]


@lru_cache(maxsize=1 << 10)
def fitting_cards(meld: PlacedMeld) -> frozenset[str]:
    """The cards that could fit `meld` at all, for `fitting_ends` to say where (R13): a set's rank in
    every suit and a joker; a joker and the cards just outside a run's ends. A search that tries every
    card of a hand on every meld asks this once a meld, then `fitting_ends` only for the few it names;
    and as a meld lies unchanged through many turns, it is remembered."""
    if meld.kind == "set":
        rank_ = meld.rank
        return frozenset([JOKER, *(rank_ + suit_ for suit_ in SUITS)] if rank_ else [JOKER])
    outside = [card_at(meld.low - 1, meld.suit)] if meld.low > 1 else []
    if meld.high < 14:
        outside.append(card_at(meld.high + 1, meld.suit))
    return frozenset([JOKER, *outside])
