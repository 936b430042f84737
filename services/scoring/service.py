"""The scoring service: per-hand scores on zc.score.<game> and standings in KV zc_standings.

Totals are summed here from each hand's scores, not copied from the table, so the
standings are an independent fold of the log and can be rebuilt from it at any time.
"""
import structlog
from msgspec.structs import replace
from nats.js import JetStreamContext

from zioncheck.contracts.log import Batch, encode
from zioncheck.contracts.scores import Standings
from zioncheck.domain import standings as fold_standings
from zioncheck.services.bus.log_store import read_batches
from zioncheck.services.bus.topology import STANDINGS, score_subject
from zioncheck.services.observability import HANDS_SCORED

log = structlog.get_logger("scoring")


class ScoringService:
    """Fed the log's hand boundaries (zc.log.*.hand): a game's start, each hand's end."""

    def __init__(self, js: JetStreamContext):
        self.js = js
        self.games: dict[str, Standings | None] = {}

    async def on_log(self, game: str, seq: int, headers: dict | None, batch: Batch) -> None:
        if game not in self.games:
            await self._rebuild(game, before=seq)
        standings = self.games[game]
        if standings is not None and seq <= standings.log_seq:
            return  # delivered again after a restart: already counted
        for event in batch.events:
            standings, scored = fold_standings.apply(standings, event)
            if scored is not None:
                await self.js.publish(score_subject(game), encode(scored),
                                      headers={"Nats-Msg-Id": f"score:{game}:{scored.hand}"})
                HANDS_SCORED.inc()
                log.info("hand_scored", game=game, hand=scored.hand, scores=scored.scores, totals=scored.totals)
        if standings is not None:
            standings = replace(standings, log_seq=seq)
            kv = await self.js.key_value(STANDINGS)
            await kv.put(game, encode(standings))
        self.games[game] = standings

    async def _rebuild(self, game: str, before: int) -> None:
        """Fold the standings from the log up to, not including, stream sequence `before`."""
        standings = None
        for seq, batch in await read_batches(self.js, game, "hand"):
            if seq >= before:
                break
            for event in batch.events:
                standings, _ = fold_standings.apply(standings, event)
            standings = replace(standings, log_seq=seq) if standings else None
        self.games[game] = standings
