"""The WebSocket endpoints: a game's public stream (its view, feed and chat), and a seat's own view.

Both only send (the gateway's clock first, then views and feed): a client may send `{"type": "ping"}`
(answered with `{"kind": "pong"}` and the clock again)
and nothing else. The server accepts every handshake and then closes with a code and
a reason a browser can read:

| code | why |
|---|---|
| 4401 | no usable token (missing, garbled, forged, expired) |
| 4403 | a token for another game |
| 4404 | no such game |
| 1003 | a binary frame |
| 1008 | a text frame that is not a ping (nested too deep included: decode_json bounds it before decoding) |
| 1009 | a frame over MAX_FRAME bytes (uvicorn closes frames over its ws_max_size itself) |
| 1013 | the client fell `backlog` frames behind; reconnect for the newest view |
| 4400 | `?after=` is not a whole number |

`?after=N` resumes a stream: the client has seen every batch up to seq N. The public
stream then sends the newest view and every feed batch past N, none lost and none
twice; the seat stream sends the seat's view only once one is newer than N.

A game whose start set a spectator delay (StartGame.delay_seconds) is sent to its spectators that many
seconds behind (live.py), its chat too: to anyone but its seats' tokens and its tenant's platform keys,
who watch it live. Their clock frame says how far behind (`behind`).
"""
import asyncio
import contextlib
import time

import msgspec
from starlette.websockets import WebSocket

from zioncheck.services.bus.tasks import stop as stop_tasks
from zioncheck.services.bus.topology import seat_view_key
from zioncheck.services.gateway.keys import KeyRefused
from zioncheck.services.gateway.live import FRAMED, Spectator, ViewWatch
from zioncheck.services.gateway.private import sees_private
from zioncheck.services.gateway.problems import HTTPProblem, decode_json
from zioncheck.services.gateway.reads import GameNotFound
from zioncheck.services.gateway.tokens import TokenRefused, verify

MAX_FRAME = 1024
PONG = '{"kind":"pong"}'


class Ping(msgspec.Struct, tag_field="type", tag="ping"):
    pass


class Close(Exception):
    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code, self.reason = code, reason[:120]   # a close frame's reason holds at most 123 bytes


async def public_stream(websocket: WebSocket) -> None:
    """A private game's stream takes a seat token of the game (`?token=`) or a platform key of its tenant; to anyone
    else it closes 4404, as for a game never stored."""
    gateway = websocket.app.state.gateway
    game = websocket.path_params["game"]
    await websocket.accept()
    try:
        after = _after(websocket)
        private = sees_private(gateway.keys, gateway.secret, websocket.headers, game,
                               websocket.query_params.get("token"))
        # Someone watches it here, so it is stored, and a game known public stays public: asked once, not once a
        # spectator.
        if not (gateway.hubs.watched(game) and (private or gateway.reads.known_public(game))):
            await gateway.reads.require(game, private)
    except GameNotFound:
        return await _close(websocket, Close(4404, f"no game {game[:64]!r} is stored"))
    except KeyRefused as refused:
        return await _close(websocket, Close(4401, f"{refused.error}: {refused.detail}"))
    except Close as close:
        return await _close(websocket, close)
    behind = 0 if private else await gateway.reads.delay(game)   # a seat, or its tenant, watches it live
    spectator = Spectator(gateway.backlog)
    hub = await gateway.hubs.join(game, spectator, after, behind)
    gateway.chat.join(game, spectator, behind)   # the game's last chat lines, then each new one
    try:
        await pump(websocket, spectator, behind)
    finally:
        gateway.chat.leave(game, spectator)
        await gateway.hubs.leave(hub, spectator)


async def seat_stream(websocket: WebSocket) -> None:
    gateway = websocket.app.state.gateway
    game = websocket.path_params["game"]
    await websocket.accept()
    try:
        claims = verify(gateway.secret, websocket.query_params.get("token"), game)
        after = _after(websocket)
        await gateway.reads.require(game)
    except Close as close:
        return await _close(websocket, close)
    except TokenRefused as refused:
        return await _close(websocket, Close(4400 + refused.status % 100, f"{refused.error}: {refused.detail}"))
    except GameNotFound:
        return await _close(websocket, Close(4404, f"no game {game[:64]!r} is stored"))
    spectator = Spectator(gateway.backlog)
    watch = await ViewWatch(gateway.reads.kv, seat_view_key(game, claims.seat),
                            lambda frame, seq: spectator.offer(frame), -1 if after is None else after).start()
    try:
        await pump(websocket, spectator)
    finally:
        await watch.stop()


def _after(websocket: WebSocket) -> int | None:
    """The `?after=` seq a resuming client has seen up to; Close(4400) when it is not a whole number."""
    given = websocket.query_params.get("after")
    if given is None:
        return None
    if not given.isdigit() or len(given) > 12:
        raise Close(4400, f"after must be a whole number, not {given[:20]!r}")
    return int(given)


def clock_frame(behind: float = 0) -> str:
    """The gateway's clock, the first frame of each stream and each pong's follower (wire.Clock); `behind`
    seconds back on a stream that runs that far behind its game, so its countdowns read as they did."""
    if behind:
        return '{"kind":"clock","now":' + f"{time.time() - behind:.3f}" + ',"behind":' + f"{behind:g}" + "}"
    return '{"kind":"clock","now":' + f"{time.time():.3f}" + "}"


async def pump(websocket: WebSocket, spectator: Spectator, behind: float = 0) -> None:
    """Send the spectator's frames and read the client's, until either side ends or the client lags;
    the gateway's clock first, for the page's countdowns. Where the server takes frames framed (live.FRAMED),
    what was queued before goes in one write, and from then on a frame offered while none waits goes
    straight to the socket."""
    await websocket.send_text(clock_frame(behind))
    spectator.write = websocket.scope.get("extensions", {}).get(FRAMED)
    spectator.catch_up()
    sending = asyncio.create_task(_send(websocket, spectator))
    reading = asyncio.create_task(_read(websocket, spectator, behind))
    lagging = asyncio.create_task(spectator.overflowed.wait())
    tasks = (sending, reading, lagging)
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await stop_tasks(tasks)
    if lagging in done:
        await _close(websocket, Close(1013, f"fell {spectator.backlog} frames behind: reconnect for the newest view"))
    elif reading in done and isinstance(reading.exception(), Close):
        await _close(websocket, reading.exception())


async def _send(websocket: WebSocket, spectator: Spectator) -> None:
    """The queued frames, in turn; while one is being sent, new frames queue behind it (Spectator.offer)."""
    while True:
        frame = await spectator.frames.get()
        spectator.sending = True
        await websocket.send_text(frame)
        spectator.sending = False


async def _read(websocket: WebSocket, spectator: Spectator, behind: float = 0) -> None:
    """Returns when the client goes; raises Close for a frame it should not have sent."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text is None:
            raise Close(1003, 'binary frames are not accepted: send {"type": "ping"} or nothing')
        if len(text) > MAX_FRAME:
            raise Close(1009, f"a frame of {len(text)} characters: a client sends at most {MAX_FRAME}")
        try:
            decode_json(text.encode(), Ping, "not_a_ping")
        except HTTPProblem:
            raise Close(1008, 'this stream only sends: a client may send {"type": "ping"} and nothing else') from None
        spectator.frames.put_nowait(PONG)
        spectator.frames.put_nowait(clock_frame(behind))


async def _close(websocket: WebSocket, close: Close) -> None:
    with contextlib.suppress(Exception):  # the client may be gone already
        await websocket.close(close.code, close.reason)
