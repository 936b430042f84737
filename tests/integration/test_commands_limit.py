"""The commands streams' byte limit on a real server: a store made before it gets it at the next start,
and a stream already over it is never made to push its oldest commands out."""
from zioncheck.contracts.commands import DrawStock
from zioncheck.contracts.log import encode
from zioncheck.services.bus.topology import (
    StoreLimits,
    commands_stream,
    ensure_topology,
    layout,
    stored_command_subject,
)


async def _as_made_before_the_limit(js, partitions: int) -> None:
    for p in range(partitions):
        config = (await js.stream_info(commands_stream(p))).config
        await js.update_stream(config=config.evolve(max_bytes=-1))


async def test_a_commands_stream_made_without_a_byte_limit_gets_it_at_the_next_start(client):
    await ensure_topology(client.js)
    where = await layout(client.js)
    await _as_made_before_the_limit(client.js, where.partitions)
    changes = await ensure_topology(client.js)
    for p in range(where.partitions):
        assert (await client.js.stream_info(commands_stream(p))).config.max_bytes == \
            StoreLimits.configured().bytes_of("commands", where.partitions)
        assert any(line.startswith(f"{commands_stream(p)}: max_bytes") for line in changes), changes


async def test_a_commands_stream_over_its_new_limit_keeps_every_command_and_the_start_says_why(client, monkeypatch):
    await ensure_topology(client.js)
    where = await layout(client.js)
    await _as_made_before_the_limit(client.js, where.partitions)
    stream = commands_stream(0)
    for _ in range(10):
        await client.js.publish(stored_command_subject(0, "g1", "play"), encode(DrawStock(seat=0)), stream=stream)
    held = (await client.js.stream_info(stream)).state
    monkeypatch.setitem(StoreLimits.SHARES, "commands", held.bytes / 2 / StoreLimits.configured().total_bytes)
    changes = await ensure_topology(client.js)
    info = await client.js.stream_info(stream)
    assert (info.state.messages, info.state.first_seq) == (held.messages, held.first_seq), "no command pushed out"
    assert info.config.max_bytes in (-1, None, 0)
    assert any(line.startswith(f"{stream} holds {held.bytes:,} bytes") and "left unlimited" in line
               for line in changes), changes


async def test_moving_a_store_before_partitions_refuses_to_push_commands_moved_already_out(client, monkeypatch):
    """`zioncheck migrate` copies each game's commands into its partition's stream, which discards old: a
    game that would take it past its byte limit is refused before it is copied, the old stream left whole."""
    from types import SimpleNamespace

    import pytest

    from zioncheck.services.migrate import MigrationRefused, _room_for
    await ensure_topology(client.js)
    partitions = (await layout(client.js)).partitions
    monkeypatch.setitem(StoreLimits.SHARES, "commands", 4096 * partitions / StoreLimits.configured().total_bytes)
    await ensure_topology(client.js)   # a limit of 4 KiB a partition
    stream = commands_stream(0)
    game = [SimpleNamespace(subject=stored_command_subject(0, "g1", "play"), data=encode(DrawStock(seat=0)))] * 10
    await _room_for(client.js, stream, game)   # some 1,900 bytes: room
    with pytest.raises(MigrationRefused, match="would pass its byte limit"):
        await _room_for(client.js, stream, game * 3)
