"""The gateway's reading side: views from KV zc_views, the list of games, a game's feed, finished games' logs and
replays.

Nothing here reads the log of a game in play: its views and its feed are what people see of it. A
finished game's log is public (its seeds are revealed too), and its replay is the
public view folded from it step by step (domain.views), never the log itself.

A game is shown to anyone only when its start made it public (StartGame.public, which its public view
repeats); a private one only to whoever holds a platform key of its tenant or one of its seat tokens (the
routes say which, as `private`). To anyone else a private game is no game at all: every read answers as for
a game never stored, so nothing tells them it exists.
"""
import contextlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

import msgspec
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, NotFoundError
from nats.js.kv import KeyValue

from zioncheck.application.archive import Damaged, batches_of, unpack
from zioncheck.contracts.events import GameStarted, HandDealt
from zioncheck.contracts.feed import FeedBatch, decode_feed_batch
from zioncheck.contracts.log import Batch, decode_batch, entries_of, write_jsonl
from zioncheck.domain.views import Projection, advance, feed_batch, public_view
from zioncheck.services.bus.log_store import (
    DIRECT_BATCH,
    from_leader,
    last_message,
    next_message,
    read_batches,
    read_some,
)
from zioncheck.services.bus.topology import (
    DEFAULT_TENANT,
    FEED,
    VIEWS,
    feed_subject,
    game_of,
    kv_stream,
    kv_subject,
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
from zioncheck.services.observability import skipped

PUBLIC_KEPT = 10_000   # games known public, so a request without a key asks the store once a game whether it is
IN_PLAY = ("the game is in play, and its log holds the cards of every hand: it is served once the game is over "
           "(watch it live on its public WebSocket)")
HELD = ("the game's spectators watch it {delay} s behind (its start's delay_seconds), and it ended {ago:.0f} s ago: "
        "its log and replay are served to them once they have seen its end")


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
    public: bool = False


class _Public(msgspec.Struct):
    """Whether a stored public view's game is public: all that deciding whom to show it to reads."""
    public: bool = False


_public = msgspec.json.Decoder(_Public)


class _Viewed(msgspec.Struct):
    seq: int   # every view has one at the top


_viewed = msgspec.json.Decoder(_Viewed)


def is_view(data: bytes | None) -> bool:
    """Whether a value of the views bucket is a view (a JSON object with its seq), not something in its place."""
    try:
        _viewed.decode(data or b"")
    except msgspec.DecodeError:
        return False
    return True


def public_in(data: bytes) -> bool:
    """Whether a stored public view says its game is public (a view that cannot be read does not)."""
    try:
        return _public.decode(data).public
    except msgspec.DecodeError:
        return False


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
                       updated=msg.time.timestamp() if msg.time else None, public=seen.public)


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
        self.public_games: OrderedDict[str, None] = OrderedDict()       # games known public, the last PUBLIC_KEPT
        self.delays: OrderedDict[str, int] = OrderedDict()              # each game's spectator delay, once read

    async def require(self, game: str, private: bool = True) -> None:
        """GameNotFound unless the game has a log, in the hot streams or in its archive; and, where `private` is
        false (the asker holds neither a platform key of the game's tenant nor one of its seat tokens), unless its
        start made it public."""
        if not valid_game_key(game) or tenant_of(game)[0] not in self.tenants:
            raise GameNotFound(game)
        archived = None
        try:
            await last_message(self.js, game)
        except NotFoundError:
            archived = await self._archived(game)
            if archived is None:
                raise GameNotFound(game) from None
        if not private and not await self._public(game, archived):
            raise GameNotFound(game)

    def known_public(self, game: str) -> bool:
        """Whether the game is known public here already (a game's start fixes it for good)."""
        return game in self.public_games

    async def delay(self, game: str) -> int:
        """The seconds the game's spectators watch it behind its seats (StartGame.delay_seconds), read from its
        start once (a start never changes); 0 for a game watched live, and for one that has left the hot streams
        (long over, its end seen)."""
        if game in self.delays:
            self.delays.move_to_end(game)
            return self.delays[game]
        try:
            first = decode_batch((await next_message(self.js, game, 0)).data).events[:1]
        except (NotFoundError, msgspec.DecodeError):
            return 0
        delay = first[0].delay_seconds if first and isinstance(first[0], GameStarted) else 0
        self.delays[game] = delay = delay if isinstance(delay, int) else 0
        while len(self.delays) > PUBLIC_KEPT:
            self.delays.popitem(last=False)
        return delay

    async def _held(self, game: str, private: bool) -> None:
        """InPlay for an asker who is one of a delayed game's spectators (`private` false) while its end is newer
        than its delay: a spectator sees the whole game once the stream they watch has shown them its end."""
        if private or not (delay := await self.delay(game)):
            return
        with contextlib.suppress(NotFoundError):
            ago = time.time() - (await last_message(self.js, game)).time.timestamp()
            if ago < delay:
                raise InPlay(HELD.format(delay=delay, ago=ago))

    async def _public(self, game: str, archived: list[Batch] | None) -> bool:
        """Whether the game's start made it public: its log's first batch (a start, which names no card), or its
        archive's for a game that has left the hot streams. Read from the log, not the view, so a game is shown from
        the moment it starts, before the projector has written its view."""
        if game in self.public_games:
            self.public_games.move_to_end(game)
            return True
        try:
            first = archived[:1] if archived is not None else [
                decode_batch((await next_message(self.js, game, 0)).data)]
        except (NotFoundError, msgspec.DecodeError):   # gone meanwhile, or not a batch: nothing to show
            return False
        start = first[0].events[:1] if first else []
        public = bool(start) and isinstance(start[0], GameStarted) and start[0].public is True
        if public:
            self.public_games[game] = None
            while len(self.public_games) > PUBLIC_KEPT:
                self.public_games.popitem(last=False)
        return public

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

    async def view(self, game: str, key: str, private: bool = True) -> bytes:
        """A view's JSON from KV zc_views: GameNotFound, or NoView while the projector has not written it.
        An archived game's public view is its last, folded from its archive; it has no seat views."""
        await self.require(game, private)
        try:
            entry = await self.kv.get(key)
            if not is_view(entry.value):   # no view in its place: none yet, till the projector writes over it
                skipped("gateway", "views", key, "not a view", entry.revision or 0)
                raise KeyNotFoundError
            return entry.value
        except NotFoundError:  # KeyNotFoundError and KeyDeletedError are NotFoundErrors
            if key == public_view_key(game) and game in self.archived:
                projections, _ = await self._replay(game)
                return msgspec.json.encode(public_view(projections[-1]))
            raise NoView("no view of this game yet: is the projector running?") from None

    async def view_older_than(self, game: str, seconds: float) -> bool:
        """Whether the game's stored public view was written at least `seconds` ago (a delayed game's spectator may
        read it then)."""
        try:
            stored = await self.js.get_msg(kv_stream(VIEWS), subject=kv_subject(VIEWS, public_view_key(game)))
        except NotFoundError:
            return True   # none stored: the view read is an archived game's last
        return stored.time is not None and time.time() - stored.time.timestamp() >= seconds

    async def summaries(self, limit: int = LIST_DEFAULT, tenant: str | None = None) -> list[GameSummary]:
        """The `limit` public games whose public views changed last, and `tenant`'s private ones with them, the most
        recent first (ValueError for a limit out of 1..LIST_MAX): what one request costs grows with the limit, not
        the games stored (but for the private games among the newest, read and passed over)."""
        if not 1 <= limit <= LIST_MAX:
            raise ValueError(f"limit must be 1..{LIST_MAX}, not {limit}")

        def shown(msg) -> bool:
            owner = tenant_of(game_of(msg.subject))[0]
            return owner in self.tenants and (owner == tenant or public_in(msg.data))
        found = await recent_public_views(self.js, limit, self.tenants[0] if len(self.tenants) == 1 else "*", shown)
        return [_summary(msg) for msg in found][:limit]

    async def feed(self, game: str, after: int = 0, most: int = FEED_PAGE, private: bool = True) -> FeedPage:
        """Up to `most` of the game's feed batches whose seq is past `after` (0, or a page's `next`), oldest
        first, each seq once; GameNotFound for no game. The feed is read from its start in batched direct
        gets: it is derived, and a batch the projector wrote again after a server's restart may stand at
        another place in its stream than where a page found it, so a page goes by seq, never by place.
        A game that has left the hot streams has no feed there: its feed is folded from its archive."""
        await self.require(game, private)
        if game in self.archived:   # require found no log in the hot streams, and read the archive
            told = [feed_batch(game, n, b.events) for n, b in enumerate(self.archived[game], 1)]
            batches = [batch for batch in told if batch is not None and batch.seq > after][:most]
            return FeedPage(game_id=game, batches=batches, next=batches[-1].seq if batches else after,
                            more=len(batches) >= most)
        delay = 0 if private else await self.delay(game)
        until = time.time() - delay   # a delayed game's spectator reads what was stored `delay` seconds ago
        batches: list[FeedBatch] = []
        place, seq, held = 0, after, False
        while len(batches) < most and not held:
            found, place = await read_some(self.js, FEED, feed_subject(game), place, DIRECT_BATCH, whole=bool(delay))
            for message in found:
                if delay and message.time is not None and message.time.timestamp() > until:
                    held = True   # the rest is newer still: it comes on the public WebSocket in its time
                    break
                with contextlib.suppress(msgspec.DecodeError):   # the projector wrote it: never expected
                    batch = decode_feed_batch(message.data if delay else message[1])
                    if batch.seq > seq and len(batches) < most:
                        batches.append(batch)
                        seq = batch.seq
            if len(found) < DIRECT_BATCH:
                break
        return FeedPage(game_id=game, batches=batches, next=seq, more=len(batches) >= most and not held)

    async def finished_log(self, game: str, private: bool = True) -> bytes:
        """A finished game's log as JSON lines; InPlay while it is in play (or while a delayed game's spectators
        have not seen its end)."""
        _, batches = await self.finished(game, private)
        return write_jsonl(entries_of(batches))

    async def finished(self, game: str, private: bool = True) -> tuple[list[Projection], list]:
        """A finished game's public projections and log batches: GameNotFound, or InPlay while it is in play or
        while a delayed game's spectators have not seen its end."""
        found = await self._replay(game, private)
        await self._held(game, private)
        return found

    async def replay(self, game: str, step: int | None, private: bool = True) -> ReplayStep:
        projections, batches = await self.finished(game, private)
        steps = len(batches)
        step = steps if step is None else step
        if not 0 <= step <= steps:
            raise ValueError(f"step must be 0..{steps}, not {step}")
        feed = feed_batch(game, step, batches[step - 1].events) if step else None
        hands = {e.hand: n for n, batch in enumerate(batches, 1) for e in batch.events if isinstance(e, HandDealt)}
        return ReplayStep(game_id=game, step=step, steps=steps, view=public_view(projections[step]), feed=feed,
                          hands=hands, cards=[list(cards) for cards in projections[step].game.hands])

    async def _replay(self, game: str, private: bool = True) -> tuple[list[Projection], list]:
        """Every public projection of a finished game, from its log; the last few games are kept."""
        if game in self.replays and (private or self.known_public(game)):
            self.replays.move_to_end(game)
            return self.replays[game]
        await self.require(game, private)
        if game in self.replays:
            self.replays.move_to_end(game)
            return self.replays[game]
        with contextlib.suppress(NotFoundError, msgspec.DecodeError):  # no view: the log itself will tell
            # From the leader: a replica behind would call a game that just ended in play.
            view = await from_leader(self.kv).get(public_view_key(game))
            if not msgspec.json.decode(view.value, type=_Summary).game_over:
                raise InPlay(IN_PLAY)  # known without reading a log that may be long
        try:
            batches = [batch for _, batch in await read_batches(self.js, game, reader="gateway")]
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
