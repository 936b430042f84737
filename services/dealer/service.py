"""The dealer service: secret seeds, committed deals, reshuffles and reveals.

It follows the game logs: a started game gets hand 1 dealt, an ended hand gets
its seed revealed, and the next hand is dealt when the pause after it ends (R23). Each hand's seed comes from a CSPRNG
and is kept in the zc_dealer_seeds bucket, so a restarted dealer keeps its word.

What its bucket holds under a hand's key that is no seed of its making (domain.fairness.well_formed) is
never dealt, reshuffled or revealed from. Found before the hand is dealt (its log commits to no deal), it
is written over with a fresh seed, and the hand is dealt from that. Found once the hand is dealt, the
hand's seed is lost: it is written over with a stand-in (STAND_IN and a fresh seed) that the hand's
reshuffles follow from, so the hand plays on, and that is never revealed, so the hand's deal stays
unchecked, as its log and every audit of it say (a seed never revealed). Each is one log line and a count.
"""
import secrets
from typing import NamedTuple

import structlog
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError
from nats.js.kv import KeyValue

from zioncheck.contracts.commands import DEALER, Command, Deal, Reshuffle, RevealSeed
from zioncheck.contracts.dealer import ReshuffleRefused, ReshuffleRequest
from zioncheck.contracts.events import GameAbandoned, GameStarted, HandEnded, PauseEnded
from zioncheck.contracts.log import Batch, encode, readable
from zioncheck.domain import GameState, fold
from zioncheck.domain.fairness import commitment, well_formed
from zioncheck.domain.seeded import deal_from_seed, reshuffle_order, reshuffle_refusal
from zioncheck.domain.state import dealt_index
from zioncheck.services.bus.log_store import next_message, read_batches
from zioncheck.services.bus.topology import SEEDS, layout, seed_key, stored_command_subject, valid_game_key
from zioncheck.services.observability import DEALS, REFUSED_ASKS, RESHUFFLES, SEEDS_REVEALED, skipped

log = structlog.get_logger("dealer")

# Before a fresh seed, in the bucket: a committed hand's seed was lost (written over by something that is no
# seed); the hand's reshuffles follow from this one, which is never revealed.
STAND_IN = "stand-in:"


class Kept(NamedTuple):
    """A hand's seed as the bucket keeps it, and whether it stands in for one lost (never revealed)."""
    seed: str
    stand_in: bool = False


def kept_seed(value: bytes | None) -> Kept | None:
    """The seed a value of the bucket holds; None for anything that is no seed of the dealer's making."""
    text = (value or b"").decode(errors="replace")
    stand_in = text.startswith(STAND_IN)
    seed = text.removeprefix(STAND_IN)
    return Kept(seed, stand_in) if well_formed(seed) else None


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
                    await self._reveal(game, event.hand)
            elif isinstance(event, PauseEnded):   # R23: the next hand, once the people have seen this one
                opening = await self._opening(game)
                if opening is not None and not opening.stacked:
                    await self._deal(game, event.hand + 1)
            elif isinstance(event, GameAbandoned) and event.mid_hand:   # R21: the hand's deal can be checked
                opening = await self._opening(game)
                if opening is not None and not opening.stacked:
                    await self._reveal(game, event.hand)

    async def _reveal(self, game: str, hand: int) -> None:
        """The hand's seed, revealed once it is over; none for a hand whose seed was lost (a stand-in)."""
        kept = await self.kept(game, hand)
        if kept.stand_in:
            log.warning("seed_not_revealed", game=game, hand=hand, why="the hand's seed was lost: its deal stays "
                                                                      "unchecked")
            return
        await self._send(game, RevealSeed(hand=hand, seed=kept.seed), f"reveal:{game}:{hand}")
        SEEDS_REVEALED.inc()

    async def on_reshuffle(self, request: ReshuffleRequest) -> Reshuffle | ReshuffleRefused:
        """The order for the draw that needs it; only the table can ask (NATS permissions), and only
        for its game's live hand as the log stands now (the draw waits for this answer)."""
        why = "bad game id" if not valid_game_key(request.game_id) else ""
        if not why:
            state = fold(GameState(), [e for _, batch in await read_batches(self.js, request.game_id,
                                                                            at_least=request.log_seq or None,
                                                                            reader="dealer")
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
        return (await self.kept(game, hand, create)).seed

    async def kept(self, game: str, hand: int, create: bool = True) -> Kept:
        """The hand's seed as the bucket keeps it (`seed`); what is there that is no seed is written over
        (`_instead_of_junk`)."""
        kv = await self.js.key_value(SEEDS)
        key = seed_key(game, hand)
        try:
            entry = await kv.get(key)
        except KeyNotFoundError:
            if not create:
                raise
            try:
                await kv.create(key, secrets.token_hex(32).encode())
            except KeyWrongLastSequenceError:
                pass  # another dealer instance made it first; theirs stands
            entry = await kv.get(key)
        return kept_seed(entry.value) or await self._instead_of_junk(kv, game, hand, entry.revision or 0)

    async def _instead_of_junk(self, kv: KeyValue, game: str, hand: int, revision: int) -> Kept:
        """The bucket holds no seed under the hand's key (at `revision`): a fresh one in its place, or, once
        the hand is dealt (its deal committed to a seed that is lost), a stand-in. Never a value anyone
        but this dealer chose; another instance's, if it wrote first."""
        key = seed_key(game, hand)
        state = fold(GameState(), [e for _, batch in await read_batches(self.js, game, reader="dealer")
                                   for e in batch.events])
        dealt = dealt_index(state, hand) is not None
        kept = Kept(secrets.token_hex(32), stand_in=dealt)
        try:
            await kv.update(key, ((STAND_IN if dealt else "") + kept.seed).encode(), last=revision)
        except KeyWrongLastSequenceError:   # another dealer instance wrote over it first: theirs stands
            theirs = kept_seed((await kv.get(key)).value)
            if theirs is None:
                raise
            return theirs
        skipped("dealer", "seeds", key, "no seed of the dealer's: " + (
            "the hand is dealt, its seed lost; a stand-in, never revealed, for its reshuffles" if dealt
            else "the hand is not dealt yet; a fresh seed in its place"), revision)
        return kept

    async def _deal(self, game: str, hand: int) -> None:
        opening = await self._opening(game)
        kept = await self.kept(game, hand)
        if kept.stand_in:   # dealt already (this is a delivery again), and its seed lost since
            return
        seed = kept.seed
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
        """How the game started (players, decks, first dealer): its first log batch's (None before the game
        has started, or when a start is not what it holds)."""
        if game not in self.openings:
            try:
                first = await next_message(self.js, game, 0)
            except NotFoundError:
                return None
            found, _ = readable([(first.seq or 0, first.data or b"")])
            if not found:   # no batch: the first hand batch that is one
                found = (await read_batches(self.js, game, "hand", reader="dealer"))[:1]
            started = [e for _, batch in found for e in batch.events[:1] if isinstance(e, GameStarted)]
            if not started:
                return None
            self.openings[game] = started[0]
        return self.openings[game]
