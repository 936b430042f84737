"""Running the gateway: uvicorn serving the Starlette app in the caller's event loop.

`await Running.start(...)` binds (port 0: a free one, read back from `.port`) and
returns once the app is up and connected to NATS; `await running.stop()` ends it.
`zioncheck serve gateway`, the tests and the fan-out benchmark all start it this way.

`platform_keys` names the keys file (keys.py); without one the gateway uses, and on
first start makes, .zioncheck/platform-keys. `.keys_file` says which it read and
`.keys_made` whether it made it just now, for the operator to be told where it is.

`public_lobby` lets anyone who reaches the gateway open a lobby (POST /lobbies) without a
platform key. Left as None it is on when the gateway listens on loopback only (the
embedded default: only this machine reaches it) and off on any other address.
"""
import asyncio
import contextlib
import ipaddress
import socket
from pathlib import Path

import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from zioncheck.services.bus.access import Access
from zioncheck.services.gateway import keys
from zioncheck.services.gateway.app import Gateway, create_app
from zioncheck.services.gateway.limits import Limits
from zioncheck.services.gateway.live import FRAMED
from zioncheck.services.gateway.tokens import load_secret

WS_MAX_SIZE = 64 * 1024   # uvicorn closes any WebSocket frame larger than this (1009)
# No per-message deflate: each frame goes to every spectator of a game, and compressing it
# once per connection (each has its own compression context) cost more CPU than all the rest
# of the fan-out (bench/fanout.py). Without it a frame is the same bytes on every socket, which
# FramedProtocol lets the app write as they stand.


def loopback(host: str) -> bool:
    """The address is this machine's own: 127.0.0.0/8, ::1 or localhost."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


BUFFERED_AT_MOST = 64 * 1024   # bytes a socket may hold unsent and still be written frames straight (asyncio's
# own high-water mark, which uvicorn's protocol also heeds: checked here too, whatever uvicorn does)


class FramedProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, offering the app one thing more (live.FRAMED in the scope's extensions):
    writing bytes framed already, so that a frame sent to every spectator of a game is framed once for all
    of them and written to each socket as it stands, not handed down and framed again for each."""

    def handle_connect(self, event) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)   # none when the handshake was refused
        if scope is not None:
            scope["extensions"][FRAMED] = self.write_framed

    def write_framed(self, data: bytes) -> bool:
        """Write whole frames, unless the socket is not open or already holds BUFFERED_AT_MOST bytes unsent (the
        client reads slower than it is sent to): then nothing, and False."""
        if not self.handshake_complete or self.close_sent or self.disconnected or not self.writable.is_set() \
                or self.transport.is_closing() or self.transport.get_write_buffer_size() >= BUFFERED_AT_MOST:
            return False
        self.transport.write(data)
        return True


class _Server(uvicorn.Server):
    """Signals are the caller's to handle (zioncheck serve runs other services beside it)."""

    def capture_signals(self):
        return contextlib.nullcontext()


class Running:
    def __init__(self, server: _Server, task: asyncio.Task, sock: socket.socket, gateway: Gateway):
        self.server, self.task, self.socket, self.gateway = server, task, sock, gateway
        self.host, self.port = sock.getsockname()[:2]
        self.url = f"http://{self.host}:{self.port}"
        self.keys_file: Path | None = None
        self.keys_made = False

    @classmethod
    async def start(cls, access: Access, host: str = "127.0.0.1", port: int = 8080, secret: bytes | None = None,
                    token_ttl: float = 24 * 3600, backlog: int = 1024, platform_keys: Path | None = None,
                    limits: Limits | None = None, public_lobby: bool | None = None) -> "Running":
        """Serve until stop(); keys.KeysError (a ValueError) when the keys file is unusable, before binding."""
        keys_file, made = (Path(platform_keys), False) if platform_keys else keys.ensure_file()
        keyring = keys.Keyring(keys.load(keys_file))
        gateway = Gateway(access=access, secret=secret or load_secret(), keys=keyring, limits=limits or Limits(),
                          token_ttl=token_ttl, backlog=backlog,
                          public_lobby=loopback(host) if public_lobby is None else public_lobby)
        config = uvicorn.Config(create_app(gateway), log_config=None, access_log=False, lifespan="on",
                                ws=FramedProtocol, ws_max_size=WS_MAX_SIZE, ws_per_message_deflate=False,
                                ws_ping_interval=20, timeout_graceful_shutdown=3)
        server = _Server(config)
        sock = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET,
                                    reuse_port=False)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if task.done():
                sock.close()
                task.result()
                raise RuntimeError("the gateway stopped while starting")
            await asyncio.sleep(0.02)
        running = cls(server, task, sock, gateway)
        running.keys_file, running.keys_made = keys_file, made
        return running

    async def stop(self) -> None:
        self.server.should_exit = True
        await self.task
        self.socket.close()
