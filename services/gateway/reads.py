"""The gateway's reading side: views from KV zc_views, the list of games, a game's feed, finished games' logs and
replays.

Nothing here reads the log of a game in play: its views and its feed are what people see of it. A
finished game's log is public (its seeds are revealed too), and its replay is the
public view folded from it step by step (domain.views), never the log itself.
"""
import contextlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable

import msgspec
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError
from nats.js.kv import KeyValue

from zioncheck.application.archive import Damaged, batches_of, unpack
from zioncheck.contracts.events import HandDealt
from zioncheck.contracts.feed import FeedBatch, decode_feed_batch
from zioncheck.contracts.log import Batch, entries_of, write_jsonl
from zioncheck.domain.views import Projection, advance, feed_batch, public_view
from zioncheck.services.bus.log_store import DIRECT_BATCH, last_message, read_batches, read_some
from zioncheck.services.bus.topology import (
    DEFAULT_TENANT,
    FEED,
    feed_subject,
    game_of,
    public_view_key,
    tenant_of,
    valid_game_key,
)
from zioncheck.services.bus.view_store import recent_public_views
from zioncheck.services.gateway.wire import (
    FEED_PAGE,
    LIST_DEFAULT,
    LIST_MAX,
    FeedPage,
    GameStatus,
    GameSummary,
    ReplayStep,
)

IN_PLAY = ("the game is in play, and its log holds the cards of every hand: it is served once the game is over "
           "(watch it live on its public WebSocket)")


class GameNotFound(Exception):
    def __init__(self, game: str):
        super().__init__(f"no game {game[:64]!r} is stored (GET /games lists them)")


class NoView(Exception):
    """The game exists, but the projector has not written the view asked for (yet)."""


class InPlay(Exception):
    """The game is in play: its log holds the cards of every hand, so it is not served yet."""


class _Summary(msgspec.Struct):
    """The fields of a stored public view that a summary shows."""
    seq: int = 0
    players: int = 0
    hand: int = 0
    turn: int | None = None
    game_over: bool = False
    totals: list[int] = []
    winners: list[int] = []
    idle: list[int] = []
    abandoned: bool = False


def status_of(seen: _Summary) -> GameStatus:
    """One word for a games list: a finished or abandoned game never reads as waiting on a seat."""
    if seen.abandoned:
        return "abandoned"
    if seen.game_over:
        return "over"
    return "between_hands" if seen.turn is None else "in_play"


def _summary(msg) -> GameSummary:
    """A game's line in the list, from its stored public view alone (no request to the server)."""
    game = game_of(msg.subject)
    try:
        seen = msgspec.json.decode(msg.data, type=_Summary)
    except msgspec.DecodeError:
        return GameSummary(game_id=game, batches=0)
    return GameSummary(game_id=game, batches=seen.seq, seq=seen.seq, players=seen.players, hand=seen.hand,
                       turn=seen.turn, game_over=seen.game_over, totals=seen.totals, winners=seen.winners,
                       idle=seen.idle, abandoned=seen.abandoned, status=status_of(seen),
                       updated=msg.time.timestamp() if msg.time else None)


Archives = Callable[[str], Awaitable[bytes | None]]   # a game's archive by its key, None when it has none


class Reads:
    def __init__(self, js: JetStreamContext, kv: KeyValue, replays_kept: int = 4,
                 tenants: tuple[str, ...] = (DEFAULT_TENANT,), archives: Archives | None = None):
        self.js, self.kv = js, kv
        self.tenants = tenants   # whose games this gateway shows and plays: no other tenant's exist here
        self.replays: OrderedDict[str, tuple[list[Projection], list[Batch]]] = OrderedDict()
        self.replays_kept = replays_kept   # finished games whose public projections are kept for replays
        self.archives = archives           # where a game that has left the hot streams is found
        self.archived: OrderedDict[str, list[Batch]] = OrderedDict()   # the last few such games' logs

    async def require(self, game: str) -> None:
        """GameNotFound unless the game has a log, in the hot streams or in its archive."""
        if not valid_game_key(game) or tenant_of(game)[0] not in self.tenants:
            raise GameNotFound(game)
        try:
            await last_message(self.js, game)
        except NotFoundError:
            if await self._archived(game) is None:
                raise GameNotFound(game) from None

    async def _archived(self, game: str) -> list[Batch] | None:
        """The log of a game that has left the hot streams, from its archive (the same batches, byte for
        byte, so its replay and its hash are the same); None when it has none."""
        if game in self.archived:
            self.archived.move_to_end(game)
            return self.archived[game]
        data = await self.archives(game) if self.archives else None
        if data is None:
            return None
        try:
            batches = batches_of(unpack(data).record)
        except (Damaged, msgspec.DecodeError, msgspec.ValidationError):
            return None
        self.archived[game] = batches
        while len(self.archived) > self.replays_kept:
            self.archived.popitem(last=False)
        return batches

    async def view(self, game: str, key: str) -> bytes:
        """A view's JSON from KV zc_views: GameNotFound, or NoView while the projector has not written it.
        An archived game's public view is its last, folded from its archive; it has no seat views."""
        await self.require(game)
        try:
            return (await self.kv.get(key)).value
        except NotFoundError:  # KeyNotFoundError and KeyDeletedError are NotFoundErrors
            if key == public_view_key(game) and game in self.archived:
                projections, _ = await self._replay(game)
                return msgspec.json.encode(public_view(projections[-1]))
            raise NoView("no view of this game yet: is the projector running?") from None

    async def summaries(self, limit: int = LIST_DEFAULT) -> list[GameSummary]:
        """The `limit` games whose public views changed last, the most recent first (ValueError for a
        limit out of 1..LIST_MAX): what one request costs grows with the limit, not the games stored."""
        if not 1 <= limit <= LIST_MAX:
            raise ValueError(f"limit must be 1..{LIST_MAX}, not {limit}")
        found = await recent_public_views(self.js, limit, self.tenants[0] if len(self.tenants) == 1 else "*")
        return [_summary(msg) for msg in found if tenant_of(game_of(msg.subject))[0] in self.tenants][:limit]

    async def feed(self, game: str, after: int = 0, most: int = FEED_PAGE) -> FeedPage:
        """Up to `most` of the game's feed batches whose seq is past `after` (0, or a page's `next`), oldest
        first, each seq once; GameNotFound for no game. The feed is read from its start in batched direct
        gets: it is derived, and a batch the projector wrote again after a server's restart may stand at
        another place in its stream than where a page found it, so a page goes by seq, never by place."""
        await self.require(game)
        batches: list[FeedBatch] = []
        place, seq = 0, after
        while len(batches) < most:
            found, place = await read_some(self.js, FEED, feed_subject(game), place, DIRECT_BATCH)
            for _, data in found:
                with contextlib.suppress(msgspec.DecodeError):   # the projector wrote it: never expected
                    batch = decode_feed_batch(data)
                    if batch.seq > seq and len(batches) < most:
                        batches.append(batch)
                        seq = batch.seq
            if len(found) < DIRECT_BATCH:
                break
        return FeedPage(game_id=game, batches=batches, next=seq, more=len(batches) >= most)

    async def finished_log(self, game: str) -> bytes:
        """A finished game's log as JSON lines; InPlay while it is in play."""
        _, batches = await self._replay(game)
        return write_jsonl(entries_of(batches))

    async def replay(self, game: str, step: int | None) -> ReplayStep:
        projections, batches = await self._replay(game)
        steps = len(batches)
        step = steps if step is None else step
        if not 0 <= step <= steps:
            raise ValueError(f"step must be 0..{steps}, not {step}")
        feed = feed_batch(game, step, batches[step - 1].events) if step else None
        hands = {e.hand: n for n, batch in enumerate(batches, 1) for e in batch.events if isinstance(e, HandDealt)}
        return ReplayStep(game_id=game, step=step, steps=steps, view=public_view(projections[step]), feed=feed,
                          hands=hands)

    async def _replay(self, game: str) -> tuple[list[Projection], list]:
        """Every public projection of a finished game, from its log; the last few games are kept."""
        if game in self.replays:
            self.replays.move_to_end(game)
            return self.replays[game]
        await self.require(game)
        with contextlib.suppress(NotFoundError, msgspec.DecodeError):  # no view: the log itself will tell
            if not msgspec.json.decode((await self.kv.get(public_view_key(game))).value, type=_Summary).game_over:
                raise InPlay(IN_PLAY)  # known without reading a log that may be long
        try:
            batches = [batch for _, batch in await read_batches(self.js, game)]
        except NotFoundError:   # it has left the hot streams
            batches = []
        batches = batches or await self._archived(game) or []
        projections = [Projection()]
        for batch in batches:
            projections.append(advance(projections[-1], batch.events, batch.cause))
        if not projections[-1].game.game_over:
            raise InPlay(IN_PLAY)
        self.replays[game] = projections, batches
        while len(self.replays) > self.replays_kept:
            self.replays.popitem(last=False)
        return projections, batches
