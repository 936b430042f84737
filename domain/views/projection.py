"""The projection state: the game as the rules fold it, plus what only views keep.

The rules' own fold (domain.evolve) gives hands, table, pile and turn, so a view
can never disagree with the table; this adds the log's count of batches, each
hand's score and fairness record, and the outcomes of the last claim window,
which the game state forgets as soon as a window closes.
"""
from collections.abc import Iterable

import msgspec
from msgspec.structs import replace

from contracts import events as ev
from contracts.views import ClaimOutcome, ClaimsSettled, DealRecord, HandScore
from domain.evolve import evolve
from domain.state import GameState


class Projection(msgspec.Struct, frozen=True):
    game: GameState = msgspec.field(default_factory=GameState)
    seq: int = 0                                  # log batches folded
    scores: tuple[HandScore, ...] = ()
    deals: tuple[DealRecord, ...] = ()
    last_claims: ClaimsSettled | None = None


def advance(projection: Projection, events: Iterable[ev.Event]) -> Projection:
    """One log batch folded in: the events one command caused."""
    game, scores, deals, last_claims = projection.game, projection.scores, projection.deals, projection.last_claims
    discarder = game.top_discarder  # the window a draw closes belongs to the discard before it
    settled: list[ClaimOutcome] = []
    card = ""
    for event in events:
        if isinstance(event, ev.HandDealt):
            deals += (DealRecord(hand=event.hand, dealer=event.dealer, commitment=event.commitment),)
            last_claims = None
        elif isinstance(event, ev.SeedRevealed):
            deals = tuple(replace(d, seed=event.seed) if d.hand == event.hand else d for d in deals)
        elif isinstance(event, ev.HandEnded):
            scores += (HandScore(hand=event.hand, winner=event.winner, scores=list(event.scores),
                                 stuck=list(event.stuck)),)
        elif isinstance(event, (ev.ClaimWon, ev.ClaimFailed)):
            outcome = "won" if isinstance(event, ev.ClaimWon) else event.why
            settled.append(ClaimOutcome(seat=event.seat, outcome=outcome))
            card = event.card
        game = evolve(game, event)
    if settled:  # R11a: a window's outcomes all come in the batch of the draw that closes it
        last_claims = ClaimsSettled(card=card, discarder=discarder, outcomes=settled)
    return Projection(game=game, seq=projection.seq + 1, scores=scores, deals=deals, last_claims=last_claims)


def project(batches: Iterable[Iterable[ev.Event]]) -> Projection:
    """A whole log folded, one batch (one command's events) at a time."""
    projection = Projection()
    for events in batches:
        projection = advance(projection, events)
    return projection
