"""The no-leak check: each public message against what the raw log says the table had shown by then.

A card is shown when it is discarded, laid in a meld, laid off, swapped onto the
table, taken or claimed from the pile, or dealt face up onto the pile. Decks
repeat cards, so "shown" is a multiset per hand: a message may name a card as many
times as it was shown, never more. Anything a message names beyond that was
private: some seat's hand, or the stock.

A hand's end shows every seat's cards left (R15, R23): from then until the next deal they are
shown too.

A seat's view may also name cards in its refusals: a refusal's detail lists the
hand the seat held when it was refused, and the cards its command named. Those are
checked apart: each refusal in a seat's view must be one of that seat's own in the log.
So are the moves it lists (SeatView.moves): each names only cards of the seat's own hand.
"""
import re
from collections import Counter

import msgspec
from msgspec.structs import replace

from zioncheck.contracts import events as ev
from zioncheck.contracts.log import Batch, encode
from zioncheck.contracts.views import SeatMoves, SeatView
from zioncheck.domain.views import Projection, advance

# A card as R2 writes it on the wire, standing alone: "10C", "AS", "JK", not "10CX" or "a2c".
CARD = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9AJQK])[CDHS](?![0-9A-Za-z])|(?<![0-9A-Za-z])JK(?![0-9A-Za-z])")


def history(batches: list[Batch]) -> tuple[list[Projection], list[Counter]]:
    """After each number of batches folded (index 0: none), the projection and the cards shown in the hand."""
    projections, shown = [Projection()], [Counter()]
    for batch in batches:
        now = shown[-1].copy()
        for event in batch.events:
            now = _show(now, event)
        projections.append(advance(projections[-1], batch.events, batch.cause))
        shown.append(now)
    return projections, shown


def _show(shown: Counter, event) -> Counter:
    match event:
        case ev.HandDealt():
            return Counter(event.discard)  # a new hand: what the last one showed is back in the deck
        case ev.Discarded() | ev.DiscardTaken() | ev.ClaimWon() | ev.LaidOff() | ev.JokerSwapped():
            shown[event.card] += 1
        case ev.WentDown():
            shown.update(card for meld in event.melds for card in meld.cards)
        case ev.HandEnded():
            shown.update(card for cards in event.hands for card in cards)
    return shown


def hand_of(projection: Projection, seat: int) -> Counter:
    """The seat's hand in the rules' own fold of the raw log (none before the first deal)."""
    hands = projection.game.hands
    return Counter(hands[seat]) if hands else Counter()


def cards_named(message) -> Counter:
    """Every card named anywhere in a message's JSON: in any field, as a key, or inside a sentence."""
    data = message if isinstance(message, bytes) else msgspec.json.encode(message)
    return Counter(CARD.findall(data.decode()))


def unshown(message, shown: Counter, own: Counter | None = None) -> Counter:
    """The cards a message names beyond what was shown (and, for a seat's message, beyond its own hand)."""
    return cards_named(message) - shown - (own or Counter())


def feed_leaks(data: bytes, shown: Counter) -> list[Counter]:
    """Each item of a feed batch on its own: one item may name no card beyond those shown."""
    items = msgspec.json.decode(data)["items"]
    return [extra for item in items if (extra := unshown(item, shown))]


def without_refusals(view: SeatView) -> bytes:
    """A seat view's JSON with its refusals and moves left out (not_its_own and not_its_cards check them)."""
    return encode(replace(view, refusals=[], moves=SeatMoves()))


def not_its_cards(view: SeatView) -> set[str]:
    """The cards the moves in a seat's view name that its hand does not hold: none, when nothing leaks."""
    return set(cards_named(view.moves)) - set(view.cards)


def refusals_in(batches: list[Batch]) -> set[tuple]:
    """Every refusal the log holds, as (seat, cause, command, reason, detail)."""
    return {(event.seat, batch.cause, event.command, event.reason, event.detail)
            for batch in batches for event in batch.events if isinstance(event, ev.Rejected)}


def not_its_own(view: SeatView, logged: set[tuple]) -> list:
    """The refusals in a seat's view that the log (refusals_in) does not hold as that seat's own: none, when
    nothing leaks."""
    return [r for r in view.refusals if (view.seat, r.cause, r.command, r.reason, r.detail) not in logged]
