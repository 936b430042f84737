"""Builders for the rule tests: given events, when commands, then what a player would see.

    given = dealt("8C 8D 8H 5S 5H 5D 2C KH QS JK", "AH 4D 6H 9S", "3S 5C 8S 10H", stock="9C 4C")
    then = play(given, [DrawStock(seat=0), GoDown(seat=0, melds=[cards("8C 8D 8H"), cards("5S 5H 5D")])])
    assert melds_on_table(then) == ["8C 8D 8H", "5S 5H 5D"]

Cards are written as one string, space separated ("8C 8D 8H"), or as a list.
"""
from collections import Counter
from typing import NamedTuple

import msgspec

from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import Rules
from zioncheck.domain import GameState, decide, evolve
from zioncheck.domain.cards import decks_for
from zioncheck.domain.dealing import dealer_of, first_dealer_of
from zioncheck.domain.melds import set_rank
from zioncheck.domain.refusal import refusal_of


def cards(text) -> list[str]:
    """Cards written as one string, "8C 8D 8H", as a list; a list or tuple is copied as it is."""
    return text.split() if isinstance(text, str) else list(text)


# --- given: events that already happened ------------------------------------------

def started(players: int, dealer: int = 0, decks: int | None = None) -> list[ev.Event]:
    """A game of `players` seats whose hand 1 is dealt by `dealer` (R8), with R1's decks."""
    return [ev.GameStarted(game_id="test", players=players, decks=decks or decks_for(players), dealer=dealer)]


def hands_played(players: int, hands: int, dealer: int = 0, totals=None) -> list[ev.Event]:
    """A started game whose first `hands` hands were dealt and ended, with `totals` after them
    (scored in the last of them; nothing by default)."""
    events = started(players, dealer)
    for hand in range(1, hands + 1):
        scored = list(totals) if totals is not None and hand == hands else [0] * players
        events += [
            ev.HandDealt(hand=hand, dealer=dealer_of(dealer, hand, players), hands=[[] for _ in range(players)],
                         stock=[]),
            ev.HandEnded(hand=hand, winner=None, scores=scored, stuck=[], totals=scored),
        ]
    return events


def dealt(*hands, stock="", discard="", hand: int = 1, dealer: int | None = None,
          decks: int | None = None, totals=None) -> list[ev.Event]:
    """A started game and a stacked deal of `hand`, one string of cards per seat.

    The last seat deals unless `dealer` says otherwise, so seat 0 plays first (R8).
    For a later hand the earlier ones are dealt and ended first, with the dealer
    rotating as R8 says, leaving the game's `totals` (all 0 unless given).
    """
    players = len(hands)
    dealer = players - 1 if dealer is None else dealer
    first_dealer = first_dealer_of(dealer, hand, players)
    events = hands_played(players, hand - 1, first_dealer, totals)
    if decks is not None:
        events[0] = ev.GameStarted(game_id="test", players=players, decks=decks, dealer=first_dealer)
    events.append(ev.HandDealt(hand=hand, dealer=dealer, hands=[cards(h) for h in hands],
                               stock=cards(stock), discard=cards(discard)))
    return events


def under(rules: Rules, given: list[ev.Event]) -> list[ev.Event]:
    """`given` with its game started under `rules` (R24), a preset and house options, not Zioncheck's."""
    return [msgspec.structs.replace(given[0], rules=rules), *given[1:]]


def drew(seat: int, card: str) -> ev.StockDrawn:
    return ev.StockDrawn(seat=seat, card=card)


def took(seat: int, card: str) -> ev.DiscardTaken:
    return ev.DiscardTaken(seat=seat, card=card)


def discarded(seat: int, card: str) -> ev.Discarded:
    return ev.Discarded(seat=seat, card=card)


def claimed(seat: int, card: str) -> ev.DiscardClaimed:
    return ev.DiscardClaimed(seat=seat, card=card)


def as_run(text) -> ev.Meld:
    return ev.Meld(kind="run", cards=cards(text))


def as_set(text) -> ev.Meld:
    return ev.Meld(kind="set", cards=cards(text))


def went_down(seat: int, *melds) -> ev.WentDown:
    """Melds as strings read as a set when they can be one, else as a run; or as_set/as_run."""
    read = [m if isinstance(m, ev.Meld) else (as_set(m) if set_rank(cards(m)) else as_run(m)) for m in melds]
    return ev.WentDown(seat=seat, melds=read)


def laid_off(seat: int, owner: int, index: int, card: str, end: str | None = None) -> ev.LaidOff:
    return ev.LaidOff(seat=seat, owner=owner, index=index, card=card, end=end)


def hand_ended(hand: int, scores, totals, winner: int | None = None, stuck=()) -> ev.HandEnded:
    return ev.HandEnded(hand=hand, winner=winner, scores=list(scores), stuck=list(stuck), totals=list(totals))


def first_turns(seat: int, *draws_and_discards: str) -> list[ev.Event]:
    """R11: the first player's two turns, each drawing from the stock and discarding.

    first_turns(0, "9C", "2C", "4C", "KH"): drew 9C, discarded 2C, drew 4C, discarded KH.
    """
    drawn, thrown = draws_and_discards[0::2], draws_and_discards[1::2]
    return [e for d, t in zip(drawn, thrown, strict=True) for e in (drew(seat, d), discarded(seat, t))]


# --- when: commands, decided and applied in order ------------------------------------

class Played(NamedTuple):
    state: GameState        # after every command
    before: GameState       # just before the last command
    events: list            # every event the commands produced, in order
    last: list              # the events of the last command


def given_state(given) -> GameState:
    """The given events folded, checking that each one could have happened to its seat's cards.

    An earlier `Played` (or a GameState) may be given instead, to play on from where it ended.
    """
    if isinstance(given, Played):
        return given.state
    if isinstance(given, GameState):
        return given
    state = GameState()
    for event in given:
        state = evolve(state, event)
        if any(hand is None for hand in state.hands):
            raise AssertionError(f"given event {event} takes a card its seat does not hold")
    return state


def play(given, when=(), *, strict: bool = True) -> Played:
    """Fold `given`, then decide and apply each command of `when`.

    With `strict`, every command but the last must be accepted: a test is about its
    last command, and a refused setup step would make it test something else.
    """
    state = before = given_state(given)
    every: list = []
    last: list = []
    when = list(when)
    for i, command in enumerate(when):
        before = state
        last = decide(state, command)
        if strict and i < len(when) - 1 and (rejected := refusal_of(last)):
            raise AssertionError(f"setup command {command} was refused: {rejected.reason}: {rejected.detail}")
        for event in last:
            state = evolve(state, event)
        every += last
    return Played(state=state, before=before, events=every, last=last)


# --- then: what a player would see ---------------------------------------------------

def refusal(played: Played) -> str | None:
    """The R18 reason the last command was refused for, or None if it was accepted."""
    rejected = refusal_of(played.last)
    return rejected.reason if rejected else None


def accepted(played: Played) -> bool:
    return refusal(played) is None


def hand_of(played: Played, seat: int) -> list[str]:
    return list(played.state.hands[seat])


def holds(played: Played, seat: int, text) -> bool:
    """Whether the seat holds every card of `text` (as a multiset)."""
    return not Counter(cards(text)) - Counter(played.state.hands[seat])


def melds_on_table(played: Played) -> list[str]:
    return [" ".join(meld.cards) for meld in played.state.table]


def kinds_on_table(played: Played) -> list[str]:
    return [meld.kind for meld in played.state.table]


def pile(played: Played) -> list[str]:
    """The discard pile, bottom first."""
    return list(played.state.discard)


def events_of(played: Played, kind: type) -> list:
    return [e for e in played.events if isinstance(e, kind)]
