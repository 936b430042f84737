"""Standings as a fold of the log: what the scoring service publishes, recomputable at any time."""
from collections.abc import Iterable

from msgspec.structs import replace

from zioncheck.contracts.events import Event, GameAbandoned, GameEnded, GameStarted, HandEnded, PauseEnded
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


def following(boundaries: list[tuple[int, Batch]], seq: int, batch: Batch) -> list[tuple[int, Batch]] | None:
    """A game's hand boundaries from its start once hand boundary `batch` (log sequence `seq`) comes
    after `boundaries`, its boundaries known so far; None where the hands the events name cannot show
    that none is missing between them (the reader then reads them from the log). A start begins them
    anew (R15-R17, R21, R23)."""
    if any(isinstance(event, GameStarted) for event in batch.events):
        return [(seq, batch)]
    if not boundaries or seq <= boundaries[-1][0]:
        return None
    first = next((e for e in boundaries[0][1].events if isinstance(e, GameStarted)), None)
    if first is None:
        return None
    ended = sum(1 for _, known in boundaries for e in known.events if isinstance(e, HandEnded))
    for event in batch.events:   # the first event naming a hand says how many hands had ended before it
        if isinstance(event, HandEnded):
            before = event.hand - first.first_hand
        elif isinstance(event, PauseEnded):
            before = event.hand - first.first_hand + 1
        elif isinstance(event, GameAbandoned):
            before = event.hand - first.first_hand + (0 if event.mid_hand else 1)
        else:
            continue
        return [*boundaries, (seq, batch)] if before == ended else None
    return None
