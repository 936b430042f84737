"""Fixtures and helpers for the gateway tests: a real uvicorn server on a free loopback port, real services."""
import asyncio
import contextlib

import httpx
import pytest
from nats.js.errors import KeyNotFoundError

from over_nats import stacked_game
from zioncheck.contracts.commands import Discard, DrawStock, GoDown
from zioncheck.contracts.views import decode_public_view, decode_seat_view
from zioncheck.services.bus.topology import VIEWS, public_view_key, seat_view_key
from zioncheck.services.gateway import tokens
from zioncheck.services.gateway.keys import HEADER
from zioncheck.services.gateway.limits import Limits
from zioncheck.services.gateway.server import Running

SECRET = b"a test secret that is long enough"
KEY = "platform-key-for-the-tests-only"
PLATFORM = {HEADER: KEY}     # the header that opens games

# R17: a stacked sixth hand that seat 0 wins at once, so the game ends in three moves.
LAST_HANDS = [["AC", "2C", "3C", "4C", "9H", "10H", "JH", "QH", "7S", "7D", "7C", "KD", "KS", "KH"], ["2S", "JK"]]
LAST_STOCK = ["5D", "6D"]
GOING_OUT = [DrawStock(seat=0),
             GoDown(seat=0, melds=[["7S", "7D", "7C"], ["AC", "2C", "3C", "4C"], ["KD", "KS", "KH"],
                                   ["9H", "10H", "JH", "QH"]]),
             Discard(seat=0, card="5D")]
# R8, R9: an early hand in play, seat 0 to draw first.
HANDS = [["AS", "2S", "9D", "KC"], ["3S", "4S", "9C", "KH"]]
STOCK = ["5S", "6S", "7S", "8S"]


@pytest.fixture
def keys_file(tmp_path):
    path = tmp_path / "platform-keys"
    path.write_text(f"# the tests' platform\ntests:{KEY}\n")
    return path


@pytest.fixture
async def gateway(services, nats_server, keys_file):
    running = await Running.start(nats_server.access, port=0, secret=SECRET, backlog=256, platform_keys=keys_file)
    yield running
    await running.stop()


@contextlib.asynccontextmanager
async def limited(nats_server, keys_file, **limits):
    """A gateway with the given limits (services.gateway.limits.Limits), and an HTTP client of it."""
    running = await Running.start(nats_server.access, port=0, secret=SECRET, platform_keys=keys_file,
                                  limits=Limits(**limits))
    try:
        async with httpx.AsyncClient(base_url=running.url, timeout=20) as http:
            yield running, http
    finally:
        await running.stop()


@pytest.fixture
async def http(gateway):
    async with httpx.AsyncClient(base_url=gateway.url, timeout=20) as client:
        yield client


def token(game: str, seat: int, ttl: float = 600, secret: bytes = SECRET, now: float | None = None) -> str:
    return tokens.issue(secret, game, seat, ttl, now)


def bearer(value: str) -> dict:
    return {"Authorization": f"Bearer {value}"}


async def game_in_play(client, public: bool = True):
    """A stacked early hand, seat 0 to draw, its views written: (follower, token of seat 0, token of seat 1).
    Public unless asked otherwise: anyone may watch it at the gateway."""
    follower = await stacked_game(client, 2, HANDS, STOCK, public=public)
    await views_written(client, follower)
    return follower, token(follower.game, 0), token(follower.game, 1)


async def views_written(client, follower, players: int = 2, timeout: float = 10.0) -> None:
    """Until the game's public view and each seat's cover every batch the follower read: the projector
    writes them a moment after the table logs a batch, and the gateway serves what it wrote."""
    kv = await client.js.key_value(VIEWS)
    keys = {public_view_key(follower.game): decode_public_view}
    keys |= {seat_view_key(follower.game, seat): decode_seat_view for seat in range(players)}

    async def seq(key: str) -> int:
        with contextlib.suppress(KeyNotFoundError):
            return keys[key]((await kv.get(key)).value).seq
        return -1
    async with asyncio.timeout(timeout):
        while min([await seq(key) for key in keys]) < len(follower.batches):
            await asyncio.sleep(0.025)


async def finished_game(client, public: bool = True):
    """A game over (seat 0 went out at once in hand 6), its views written; public unless asked otherwise."""
    follower = await stacked_game(client, 2, LAST_HANDS, LAST_STOCK, hand=6, public=public)
    for move in GOING_OUT:
        await follower.outcome(await client.send(follower.game, move))
    assert follower.state.game_over
    await views_written(client, follower)
    return follower


async def eventually(read, check, timeout: float = 10.0):
    """Call `read()` until `check(value)` holds; returns the value."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = await read()
        if check(value):
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"never came true; last value: {value!r}"[:500])
        await asyncio.sleep(0.05)
