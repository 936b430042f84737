"""The projection state: the game as the rules fold it, plus what only views keep.

The rules' own fold (domain.evolve) gives hands, table, pile and turn, so a view
can never disagree with the table; this adds the log's count of batches and the
command its last batch answered, each hand's score and fairness record, each
seat's latest refusals, the seats the bots service plays (each has a view of its
own), the outcomes of the last claim window, which the game state forgets as soon
as a window closes, and when the deadline running falls.

That last one is the table's clock, not the log's: the table names it in a header of the
batch that began the deadline (`due_at`, seconds since the epoch), so a log folded without its
headers folds to the same views but the time of a deadline running (never of a game over).
"""
from collections.abc import Iterable

import msgspec
from msgspec.structs import replace

from zioncheck.contracts import events as ev
from zioncheck.contracts.commands import PERSON, SERVICE
from zioncheck.contracts.log import Batch
from zioncheck.contracts.views import REFUSALS_KEPT, ClaimOutcome, ClaimsSettled, DealRecord, HandScore, SeatRefusal
from zioncheck.domain.evolve import evolve
from zioncheck.domain.state import GameState
from zioncheck.domain.timers import Deadline, deadline


class Projection(msgspec.Struct, frozen=True):
    game: GameState = msgspec.field(default_factory=GameState)
    seq: int = 0                                  # log batches folded
    applied: int = 0                              # the cause of the last batch folded
    scores: tuple[HandScore, ...] = ()
    deals: tuple[DealRecord, ...] = ()
    last_claims: ClaimsSettled | None = None
    refusals: tuple[tuple[SeatRefusal, ...], ...] = ()   # by seat, each seat's latest, oldest first
    due_at: float | None = None                   # when the deadline running falls (R19-R23), if known
    deadline: Deadline | None = None              # the deadline `game` calls for: deadline(game), kept
    served: tuple[int, ...] = ()                  # the bot seats the bots service plays (served_seats)


def advance(projection: Projection, events: Iterable[ev.Event], cause: int = 0, due_at: float | None = None
            ) -> Projection:
    """One log batch folded in: the events one command caused, and `cause`, that command's
    sequence in the commands stream (the batch's `cause`); `due_at`, the time the table gave the
    deadline the batch began, if it began one."""
    game, scores, deals, last_claims = projection.game, projection.scores, projection.deals, projection.last_claims
    refusals, served = projection.refusals, projection.served
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
        elif isinstance(event, ev.Rejected):
            refusals = _refused(refusals, game.players, event, cause)
        elif isinstance(event, ev.GameStarted):
            served = served_seats(event)
        game = evolve(game, event)
    if settled:  # R11a: a window's outcomes all come in the batch of the draw that closes it
        last_claims = ClaimsSettled(card=card, discarder=discarder, outcomes=settled)
    due = deadline(game)
    if due != projection.deadline:   # a new deadline, or none: the earlier one's time is over
        due_at = None if due is None or due_at is None else round(due_at, 3)   # to the millisecond, as logged
    else:
        due_at = projection.due_at
    return Projection(game=game, seq=projection.seq + 1, applied=cause, scores=scores, deals=deals,
                      last_claims=last_claims, refusals=refusals, due_at=due_at, deadline=due, served=served)


def served_seats(started: ev.GameStarted) -> tuple[int, ...]:
    """The seats a game's start gives the house's bots when the bots service plays them (`bots_by`): each
    has a view of its own, which only the bots' login may read. None when the starter plays its own bots."""
    if started.bots_by != SERVICE:
        return ()
    return tuple(seat for seat, who in enumerate(started.seats) if who != PERSON)


def project(batches: Iterable[Batch], due_at: Iterable[float | None] = ()) -> Projection:
    """A whole log folded, one batch (one command's events) at a time; `due_at`, each batch's time of
    the deadline it began, as the log's headers say (none given: not known)."""
    projection = Projection()
    times = iter(due_at)
    for batch in batches:
        projection = advance(projection, batch.events, batch.cause, next(times, None))
    return projection


def _refused(refusals: tuple[tuple[SeatRefusal, ...], ...], players: int, event: ev.Rejected,
             cause: int) -> tuple[tuple[SeatRefusal, ...], ...]:
    """Each seat's latest refusals with this one added to its seat's; one naming no seat at the table
    (a command without a seat, or an unknown seat's) is kept for nobody."""
    seat = event.seat
    if seat is None or not 0 <= seat < players:
        return refusals
    seats = refusals + ((),) * (players - len(refusals))
    refusal = SeatRefusal(cause=cause, command=event.command, reason=event.reason, detail=event.detail)
    return (*seats[:seat], (*seats[seat], refusal)[-REFUSALS_KEPT:], *seats[seat + 1:])
