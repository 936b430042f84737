"""The scoring service: per-hand scores on zc.score.<game> and standings in KV zc_standings.

Totals are summed here from each hand's scores, not copied from the table, so the
standings are an independent fold of the log and can be rebuilt from it at any time.
"""
from collections import OrderedDict

import msgspec
import structlog
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from zioncheck.contracts.log import Batch, encode
from zioncheck.contracts.scores import Standings
from zioncheck.domain import standings as fold_standings
from zioncheck.services.bus.log_store import from_leader, read_batches, still_logged
from zioncheck.services.bus.topology import STANDINGS, score_subject, standings_key
from zioncheck.services.observability import HANDS_SCORED, skipped

log = structlog.get_logger("scoring")


class ScoringService:
    """Fed the log's hand boundaries (zc.log.*.hand): a game's start, each hand's end.

    Each delivery folds the game's boundaries as the log holds them now, not the one
    batch delivered: a few messages a game, and the standings come out the same whatever
    order deliveries arrive in (a batch redelivered after a later one is no hand lost). The
    boundaries of a game in play are held, and a delivery whose hands show it is the next
    (domain/standings.py, following) is folded with them as they are; any other is read from the
    log, at least up to the batch delivered (services/bus/log_store.py: read your writes), so a
    replica behind the one that delivered it never makes it ack a hand end it did not fold. A
    game's boundaries read from the log cost the server a scan of the stream between them.
    """

    def __init__(self, js: JetStreamContext, cache: int = 10_000):
        self.js = js
        self.published: dict[str, Standings] = {}   # what KV zc_standings holds for each game
        self.cache = cache   # games in play whose boundaries are held; an evicted one is read again
        self.boundaries: OrderedDict[str, list[tuple[int, Batch]]] = OrderedDict()

    async def on_log(self, game: str, seq: int, headers: dict | None, batch: Batch) -> None:
        # The boundaries held and the one delivered, where its hands show that none is missing between
        # them; else as the log holds them, at least up to it (read your writes).
        boundaries = fold_standings.following(self.boundaries.pop(game, []), seq, batch)
        if boundaries is None:
            boundaries = await read_batches(self.js, game, "hand", at_least=seq, reader="scoring")
        standings, scores = fold_standings.of_boundaries(boundaries)
        if standings is None:
            return
        if not standings.over:
            self.boundaries[game] = boundaries
            while len(self.boundaries) > self.cache:
                self.boundaries.popitem(last=False)
        kv = await self.js.key_value(STANDINGS)
        published = self.published.get(game) or await _stored(kv, game)
        if published is not None and published.log_seq >= standings.log_seq:
            self.published[game] = published
            return  # delivered again: already counted
        if not await still_logged(self.js, game, seq, "hand"):   # out of the hot streams since it was delivered
            self.published.pop(game, None)
            self.boundaries.pop(game, None)
            return
        for scored in scores[len(published.hands) if published else 0:]:
            await self.js.publish(score_subject(game), encode(scored),
                                  headers={"Nats-Msg-Id": f"score:{game}:{scored.hand}"})
            HANDS_SCORED.inc()
            log.info("hand_scored", game=game, hand=scored.hand, scores=scored.scores, totals=scored.totals)
        await kv.put(standings_key(game), encode(standings))
        self.published[game] = standings


async def _stored(kv: KeyValue, game: str) -> Standings | None:
    """The game's standings as the bucket holds them: None for none, and for what is no standings (said and
    counted), which the standings folded from the log then write over, their scores published again (a
    reader of the scores takes each hand's last)."""
    try:   # from the leader: a replica behind would have the hands already scored scored again
        entry = await from_leader(kv).get(standings_key(game))
    except KeyNotFoundError:
        return None
    try:
        return msgspec.json.decode(entry.value or b"", type=Standings)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        skipped("scoring", "standings", standings_key(game), f"not standings: {error}", entry.revision or 0)
        return None
