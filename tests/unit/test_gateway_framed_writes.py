"""The gateway's server takes frames framed already (live.FRAMED), on an open socket whose buffer has room only."""
import asyncio

import uvicorn
from uvicorn.server import ServerState

from zioncheck.services.gateway.live import FRAMED
from zioncheck.services.gateway.server import BUFFERED_AT_MOST, FramedProtocol

HANDSHAKE = (b"GET /games/g/public/ws HTTP/1.1\r\nHost: gateway\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


class Transport:
    """A socket as uvicorn's protocol sees it: what it was written, nothing sent anywhere."""

    def __init__(self):
        self.written: list[bytes] = []
        self.closing = False
        self.unsent = 0

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def get_write_buffer_size(self) -> int:
        return self.unsent

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def get_extra_info(self, name: str, default=None):
        return {"sockname": ("127.0.0.1", 8080), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def opened() -> tuple[FramedProtocol, Transport, asyncio.Event]:
    """A connection whose app has accepted it and waits: its protocol, its socket, and what ends the app."""
    done = asyncio.Event()

    async def app(scope, receive, send):
        await receive()
        await send({"type": "websocket.accept"})
        await done.wait()

    config = uvicorn.Config(app, ws=FramedProtocol, log_config=None, lifespan="off")
    config.load()
    protocol, transport = FramedProtocol(config, ServerState(), {}), Transport()
    protocol.connection_made(transport)
    protocol.data_received(HANDSHAKE)
    while not protocol.handshake_complete:
        await asyncio.sleep(0)
    transport.written.clear()   # the handshake's answer
    return protocol, transport, done


async def test_an_open_socket_is_written_frames_as_they_stand_and_one_with_a_full_buffer_none():
    protocol, transport, done = await opened()
    write = protocol.scope["extensions"][FRAMED]
    assert write(b"\x81\x02{}") and transport.written == [b"\x81\x02{}"]
    protocol.pause_writing()   # the client reads slower than it is sent to
    assert not write(b"\x81\x02[]") and transport.written == [b"\x81\x02{}"]
    protocol.resume_writing()
    assert write(b"\x81\x02[]") and transport.written[-1] == b"\x81\x02[]"
    done.set()


async def test_a_socket_holding_its_fill_unsent_is_written_nothing():
    protocol, transport, done = await opened()
    transport.unsent = BUFFERED_AT_MOST
    assert not protocol.scope["extensions"][FRAMED](b"\x81\x02{}") and transport.written == []
    transport.unsent = BUFFERED_AT_MOST - 1
    assert protocol.scope["extensions"][FRAMED](b"\x81\x02{}")
    done.set()


async def test_a_closing_socket_is_written_nothing():
    protocol, transport, done = await opened()
    transport.closing = True
    assert not protocol.scope["extensions"][FRAMED](b"\x81\x02{}") and transport.written == []
    done.set()
