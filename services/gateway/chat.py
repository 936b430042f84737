"""A game's chat: short lines among its seats, which its seats and its watchers read.

A seat says a line with its token (POST /games/{id}/chat). The gateway tidies the text
(each control character and each run of white space becomes one space), refuses an empty
line or one over CHAT_LENGTH characters (422) and a seat over its rate (429, limits.py),
names the line's seat from the token, never from the body, and publishes it on
zc.chat.<tenant>.<game> (core NATS). No stream captures that subject, so a line is never
stored, in the game's log or anywhere else; and only the gateway's login may publish or
subscribe there (services/bus/access.py), so no platform, spectator or bot hears a line or
says one as a seat.

Every gateway hears each line once and passes it to the pages that watch the game on its
public WebSocket. It keeps each game's last KEPT lines in memory, for a page that opens
later, for at most GAMES games (the game heard from least recently is forgotten first):
so a chat costs a gateway at most GAMES x KEPT lines, whatever the traffic. Those lines
go when the gateway restarts, and a line said while a gateway was away never reaches it.

Watchers read; only seats write. A watcher holds no token, so nothing could name them or
hold them to a rate; and, as at a card room's table, the people playing are not coached
from the rail. A game's watchers who see it some seconds behind (StartGame.delay_seconds)
get each line as many seconds after it was said, so the chat keeps pace with their table.
"""
import asyncio
import time
import unicodedata
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable

import msgspec
import structlog
from nats.aio.client import Client
from prometheus_client import Counter

from zioncheck.services.bus.topology import CHAT_SUBJECTS, chat_subject
from zioncheck.services.gateway.live import Spectator, framed
from zioncheck.services.gateway.wire import CHAT_LENGTH, ChatLine

KEPT = 20      # a game's last lines each gateway keeps for a page that opens later
GAMES = 1000   # games whose last lines a gateway keeps

log = structlog.get_logger("gateway")
LINES = Counter("zc_gateway_chat_lines_total", "Chat lines seats said through this gateway")
_decode_line = msgspec.json.Decoder(ChatLine).decode


class _Framed(msgspec.Struct):
    line: ChatLine


_decode_frame = msgspec.json.Decoder(_Framed).decode
_encode = msgspec.json.Encoder().encode


class ChatRefused(Exception):
    """A line the gateway will not pass on (422): `error` says why."""

    def __init__(self, error: str, detail: str):
        super().__init__(detail)
        self.error, self.detail = error, detail


def tidy(text: str) -> str:
    """The line as it is passed on: each control character and each run of white space one space, none at
    either end."""
    shown = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    return " ".join(shown.split())


def checked(text: str) -> str:
    """The tidied line, or ChatRefused when nothing is left of it or it is over CHAT_LENGTH characters."""
    line = tidy(text)
    if not line:
        raise ChatRefused("chat_empty", "a chat line says something: this one is empty")
    if len(line) > CHAT_LENGTH:
        raise ChatRefused("chat_too_long", f"a chat line holds at most {CHAT_LENGTH} characters, not {len(line)}")
    return line


def chat_frame(data: bytes) -> str:
    return '{"kind":"chat","line":' + data.decode() + "}"


class Chat:
    """The chat of every game this gateway shows: lines said here go out on NATS, lines heard go to the pages."""

    def __init__(self, nc: Client, kept: int = KEPT, games: int = GAMES, clock: Callable[[], float] = time.time):
        self.nc, self.kept, self.games, self.clock = nc, kept, games, clock
        self.recent: OrderedDict[str, deque[str]] = OrderedDict()   # a game's last lines, as frames
        self.listeners: dict[str, set[Spectator]] = {}
        self.behind: dict[str, dict[Spectator, float]] = {}   # a delayed game's watchers, and their delay
        self.sub = None

    async def start(self) -> "Chat":
        self.sub = await self.nc.subscribe(CHAT_SUBJECTS, cb=self._heard)
        return self

    async def stop(self) -> None:
        if self.sub is not None:
            await self.sub.unsubscribe()

    async def say(self, game: str, seat: int, text: str) -> ChatLine:
        """Publish a seat's line (ChatRefused for one that is empty or too long); every gateway hears it."""
        line = ChatLine(id=uuid.uuid4().hex[:16], game_id=game, seat=seat, text=checked(text), at=self.clock())
        await self.nc.publish(chat_subject(game), _encode(line))
        LINES.inc()
        log.info("chat_said", game=game, seat=seat, length=len(line.text))
        return line

    async def _heard(self, msg) -> None:
        try:
            line = _decode_line(msg.data)
        except msgspec.DecodeError:
            return   # only gateways publish here; a line none of them wrote is dropped
        if chat_subject(line.game_id) != msg.subject or len(line.text) > CHAT_LENGTH:
            return
        frame = chat_frame(msg.data)
        recent = self.recent.pop(line.game_id, None) or deque(maxlen=self.kept)
        recent.append(frame)
        self.recent[line.game_id] = recent
        while len(self.recent) > self.games:
            self.recent.popitem(last=False)
        listening = list(self.listeners.get(line.game_id, ()))
        wire = framed(frame) if listening else None
        for spectator in listening:
            spectator.offer(frame, wire)
        for spectator, delay in list(self.behind.get(line.game_id, {}).items()):
            self._later(spectator, frame, line.at, delay)

    def _later(self, spectator: Spectator, frame: str, said: float, delay: float) -> None:
        """A line to a watcher `delay` seconds behind: once that long has passed since it was `said` (by the gateway
        that took it, and never later than now)."""
        wait = min(said, self.clock()) + delay - self.clock()
        if wait <= 0:
            spectator.offer(frame)
        else:
            asyncio.get_running_loop().call_later(wait, spectator.offer, frame)

    def join(self, game: str, spectator: Spectator, delay: float = 0) -> None:
        """The game's last lines, then each new one (no await: nothing slips between); `delay` seconds after each
        was said, to a watcher of a game whose start set a spectator delay."""
        if delay:
            for frame in self.recent.get(game, ()):
                self._later(spectator, frame, _decode_frame(frame.encode()).line.at, delay)
            self.behind.setdefault(game, {})[spectator] = delay
            return
        for frame in self.recent.get(game, ()):
            spectator.frames.put_nowait(frame)
        self.listeners.setdefault(game, set()).add(spectator)

    def leave(self, game: str, spectator: Spectator) -> None:
        listening = self.listeners.get(game)
        if listening is not None:
            listening.discard(spectator)
            if not listening:
                del self.listeners[game]
        behind = self.behind.get(game)
        if behind is not None:
            behind.pop(spectator, None)
            if not behind:
                del self.behind[game]
