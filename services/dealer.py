"""The dealer service: secret seeds, committed deals, reshuffles and reveals.

It follows the game logs: a started game gets hand 1 dealt, an ended hand gets
its seed revealed and the next hand dealt. Each hand's seed comes from a CSPRNG
and is kept in the zc_dealer_seeds bucket, so a restarted dealer keeps its word.
"""
import secrets

import structlog
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError

from contracts.commands import Command, Deal, Reshuffle, RevealSeed
from contracts.dealer import ReshuffleRequest
from contracts.events import GameEnded, GameStarted, HandEnded
from contracts.log import Batch, decode_batch, encode
from domain import GameState, fold
from domain.fairness import commitment
from engine.dealer import deal_from_seed, reshuffle_order
from services.observability import DEALS, RESHUFFLES, SEEDS_REVEALED
from services.topology import LOG, ROLE_HEADER, SEEDS, command_subject, log_subject

log = structlog.get_logger("dealer")


class DealerService:
    def __init__(self, js: JetStreamContext):
        self.js = js
        self.openings: dict[str, GameStarted] = {}

    async def on_log(self, game: str, batch: Batch) -> None:
        for event in batch.events:
            if isinstance(event, GameStarted):
                self.openings[game] = event
                if not event.stacked:
                    await self._deal(game, event.first_hand)
            elif isinstance(event, HandEnded):
                opening = await self._opening(game)
                over = any(isinstance(e, GameEnded) for e in batch.events)
                if opening is not None and not opening.stacked:
                    await self._send(game, RevealSeed(hand=event.hand, seed=await self.seed(game, event.hand)),
                                     f"reveal:{game}:{event.hand}")
                    SEEDS_REVEALED.inc()
                    if not over:
                        await self._deal(game, event.hand + 1)

    async def on_reshuffle(self, request: ReshuffleRequest) -> Reshuffle:
        seed = await self.seed(request.game_id, request.hand)
        RESHUFFLES.inc()
        log.info("reshuffle", game=request.game_id, hand=request.hand, number=request.reshuffle, cards=request.count)
        return Reshuffle(hand=request.hand, order=reshuffle_order(seed, request.reshuffle, request.count))

    async def seed(self, game: str, hand: int) -> str:
        """The hand's seed: made once, kept in the bucket, the same for every dealer instance."""
        kv = await self.js.key_value(SEEDS)
        key = f"{game}.{hand}"
        try:
            return (await kv.get(key)).value.decode()
        except KeyNotFoundError:
            pass
        try:
            await kv.create(key, secrets.token_hex(32).encode())
        except KeyWrongLastSequenceError:
            pass  # another dealer instance made it first; theirs stands
        return (await kv.get(key)).value.decode()

    async def _deal(self, game: str, hand: int) -> None:
        opening = await self._opening(game)
        seed = await self.seed(game, hand)
        dealt = deal_from_seed(seed, fold(GameState(), [opening]), hand)
        await self._send(game, Deal(hand=hand, **dealt, commitment=commitment(seed)), f"deal:{game}:{hand}")
        DEALS.inc()
        log.info("dealt", game=game, hand=hand, commitment=commitment(seed))

    async def _send(self, game: str, command: Command, msg_id: str) -> None:
        await self.js.publish(command_subject(game), encode(command),
                              headers={ROLE_HEADER: "dealer", "Nats-Msg-Id": msg_id})

    async def _opening(self, game: str) -> GameStarted | None:
        """How the game started (players, decks, first dealer): its first log message."""
        if game not in self.openings:
            try:
                first = await self.js.get_msg(LOG, seq=1, subject=log_subject(game), next=True)
            except NotFoundError:
                return None
            self.openings[game] = decode_batch(first.data).events[0]
        return self.openings[game]
