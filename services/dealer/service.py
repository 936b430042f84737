"""The dealer service: secret seeds, committed deals, reshuffles and reveals.

It follows the game logs: a started game gets hand 1 dealt, an ended hand gets
its seed revealed, and the next hand is dealt when the pause after it ends (R23). Each hand's seed comes from a CSPRNG
and is kept in the zc_dealer_seeds bucket, so a restarted dealer keeps its word.
"""
import secrets

import structlog
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError

from zioncheck.contracts.commands import DEALER, Command, Deal, Reshuffle, RevealSeed
from zioncheck.contracts.dealer import ReshuffleRefused, ReshuffleRequest
from zioncheck.contracts.events import GameAbandoned, GameStarted, HandEnded, PauseEnded
from zioncheck.contracts.log import Batch, decode_batch, encode
from zioncheck.domain import GameState, fold
from zioncheck.domain.fairness import commitment
from zioncheck.domain.seeded import deal_from_seed, reshuffle_order, reshuffle_refusal
from zioncheck.services.bus.log_store import next_message, read_batches
from zioncheck.services.bus.topology import SEEDS, layout, seed_key, stored_command_subject, valid_game_key
from zioncheck.services.observability import DEALS, REFUSED_ASKS, RESHUFFLES, SEEDS_REVEALED

log = structlog.get_logger("dealer")


class DealerService:
    def __init__(self, js: JetStreamContext):
        self.js = js
        self.openings: dict[str, GameStarted] = {}

    async def on_log(self, game: str, seq: int, headers: dict | None, batch: Batch) -> None:
        for event in batch.events:
            if isinstance(event, GameStarted):
                self.openings[game] = event
                if not event.stacked:
                    await self._deal(game, event.first_hand)
            elif isinstance(event, HandEnded):
                opening = await self._opening(game)
                if opening is not None and not opening.stacked:
                    await self._send(game, RevealSeed(hand=event.hand, seed=await self.seed(game, event.hand)),
                                     f"reveal:{game}:{event.hand}")
                    SEEDS_REVEALED.inc()
            elif isinstance(event, PauseEnded):   # R23: the next hand, once the people have seen this one
                opening = await self._opening(game)
                if opening is not None and not opening.stacked:
                    await self._deal(game, event.hand + 1)
            elif isinstance(event, GameAbandoned) and event.mid_hand:   # R21: the hand's deal can be checked
                opening = await self._opening(game)
                if opening is not None and not opening.stacked:
                    await self._send(game, RevealSeed(hand=event.hand, seed=await self.seed(game, event.hand)),
                                     f"reveal:{game}:{event.hand}")
                    SEEDS_REVEALED.inc()

    async def on_reshuffle(self, request: ReshuffleRequest) -> Reshuffle | ReshuffleRefused:
        """The order for the draw that needs it; only the table can ask (NATS permissions), and only
        for its game's live hand as the log stands now (the draw waits for this answer)."""
        why = "bad game id" if not valid_game_key(request.game_id) else ""
        if not why:
            state = fold(GameState(), [e for _, batch in await read_batches(self.js, request.game_id,
                                                                            at_least=request.log_seq or None)
                                       for e in batch.events])
            why = reshuffle_refusal(state, request.hand, request.reshuffle, request.count)
        if why:
            REFUSED_ASKS.labels("not_due").inc()
            log.warning("reshuffle_refused", game=request.game_id[:80], hand=request.hand, reason=why)
            return ReshuffleRefused(reason=why)
        seed = await self.seed(request.game_id, request.hand, create=False)
        RESHUFFLES.inc()
        log.info("reshuffle", game=request.game_id, hand=request.hand, number=request.reshuffle, cards=request.count)
        return Reshuffle(hand=request.hand, order=reshuffle_order(seed, request.reshuffle, request.count))

    async def seed(self, game: str, hand: int, create: bool = True) -> str:
        """The hand's seed: made once, when the hand is dealt, kept in the bucket, the same for every
        dealer instance. Only the dealer may read or write the bucket (NATS permissions)."""
        kv = await self.js.key_value(SEEDS)
        key = seed_key(game, hand)
        try:
            return (await kv.get(key)).value.decode()
        except KeyNotFoundError:
            if not create:
                raise
        try:
            await kv.create(key, secrets.token_hex(32).encode())
        except KeyWrongLastSequenceError:
            pass  # another dealer instance made it first; theirs stands
        return (await kv.get(key)).value.decode()

    async def _deal(self, game: str, hand: int) -> None:
        opening = await self._opening(game)
        seed = await self.seed(game, hand)
        dealt = deal_from_seed(seed, fold(GameState(), [opening]), hand)
        deal = Deal(hand=hand, hands=dealt.hands, stock=dealt.stock, discard=dealt.discard,
                    commitment=commitment(seed))
        await self._send(game, deal, f"deal:{game}:{hand}")
        DEALS.inc()
        log.info("dealt", game=game, hand=hand, commitment=commitment(seed))

    async def _send(self, game: str, command: Command, msg_id: str) -> None:
        partition = (await layout(self.js)).of(game)
        await self.js.publish(stored_command_subject(partition, game, DEALER), encode(command),
                              headers={"Nats-Msg-Id": msg_id})

    async def _opening(self, game: str) -> GameStarted | None:
        """How the game started (players, decks, first dealer): its first log message."""
        if game not in self.openings:
            try:
                first = await next_message(self.js, game, 0)
            except NotFoundError:
                return None
            self.openings[game] = decode_batch(first.data).events[0]
        return self.openings[game]
