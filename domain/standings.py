"""Standings as a fold of the log: what the scoring service publishes, recomputable at any time."""
from collections.abc import Iterable

from msgspec.structs import replace

from zioncheck.contracts.events import Event, GameAbandoned, GameEnded, GameStarted, HandEnded
from zioncheck.contracts.log import Batch
from zioncheck.contracts.scores import HandScored, Standings


def apply(standings: Standings | None, event: Event) -> tuple[Standings | None, HandScored | None]:
    """The standings after one event, and the hand's score message when a hand ended (R15, R17)."""
    if isinstance(event, GameStarted):
        return Standings(game_id=event.game_id, players=event.players, totals=[0] * event.players), None
    if standings is None:
        return None, None
    if isinstance(event, HandEnded):
        totals = [t + s for t, s in zip(standings.totals, event.scores, strict=True)]
        scored = HandScored(game_id=standings.game_id, hand=event.hand, scores=event.scores, totals=totals,
                            winner=event.winner, stuck=event.stuck)
        return replace(standings, hands=standings.hands + [event.scores], totals=totals), scored
    if isinstance(event, GameAbandoned):
        return replace(standings, abandoned=True), None
    if isinstance(event, GameEnded):
        best = min(standings.totals)
        winners = [seat for seat, total in enumerate(standings.totals) if total == best]
        return replace(standings, winners=winners, over=True), None
    return standings, None


def of_boundaries(boundaries: Iterable[tuple[int, Batch]]) -> tuple[Standings | None, list[HandScored]]:
    """The standings folded from a game's hand boundaries (its log's `hand` batches, each with its log
    sequence), naming the sequence of the last one folded, and each hand's scores in order: what the
    scoring service publishes, and what a game's archive keeps (R15-R17, R21)."""
    standings: Standings | None = None
    scores: list[HandScored] = []
    for seq, batch in boundaries:
        for event in batch.events:
            standings, scored = apply(standings, event)
            if scored is not None:
                scores.append(scored)
        if standings is not None:
            standings = replace(standings, log_seq=seq)
    return standings, scores
