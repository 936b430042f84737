"""GET /games reads the newest public views from the end of the views' store, never every game stored."""
import pytest

from zioncheck.services.bus import view_store
from zioncheck.services.bus.topology import VIEWS, ensure_topology, game_of, public_view_key, seat_view_key

pytestmark = pytest.mark.integration


async def listed(client, limit: int) -> list[str]:
    return [game_of(msg.subject) for msg in await view_store.recent_public_views(client.js, limit)]


async def test_the_newest_public_views_come_first_however_many_seat_views_were_written_after_them(
        nats_server, client, monkeypatch):
    await ensure_topology(client.js)
    kv = await client.js.key_value(VIEWS)
    for i in range(10):
        await kv.put(public_view_key(f"a{i}"), b'{"seq": 1}')
    for i in range(100):   # a tail of seat views only, each its own key (the bucket keeps one message a key)
        await kv.put(seat_view_key(f"z{i}", 0), b'{"seq": 1}')
    await kv.delete(public_view_key("a9"))
    monkeypatch.setattr(view_store, "PUBLIC_WINDOW", 1)   # a first window of 3 messages: widened three times
    assert await listed(client, 3) == ["a8", "a7", "a6"], "a deleted view is no game to list"
    await kv.put(public_view_key("a0"), b'{"seq": 2}')
    assert await listed(client, 3) == ["a0", "a8", "a7"], "a view written again is the newest"
    assert await listed(client, 50) == ["a0", "a8", "a7", "a6", "a5", "a4", "a3", "a2", "a1"], \
        "asked for more than are stored: every one, read to the stream's first message"


async def test_no_views_stored_lists_nothing(nats_server, client):
    await ensure_topology(client.js)
    assert await listed(client, 100) == []
