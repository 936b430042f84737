"""Views go out live on zc.view.<key> as each batch is folded and are stored when the game settles (hand ends,
pauses): a platform's reader that subscribes first, then reads the stored view, and keeps the highest seq
(docs/integration.md; the client library's ViewFollower) ends on the log's own view through a projector
killed mid-game and a server killed mid-game."""
import asyncio
import contextlib
import random
import subprocess
import sys
import time

import pytest
from nats.js.errors import NotFoundError

from over_nats import stored_messages, until
from zioncheck.bots import make_bot
from zioncheck.client import GameClient, ViewFollower
from zioncheck.contracts.commands import StartGame
from zioncheck.contracts.views import decode_public_view, decode_seat_view
from zioncheck.domain.views import project, seat_view
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.bus.log_store import read_stamped
from zioncheck.services.bus.topology import (
    DEFAULT_TENANT,
    VIEWS,
    game_key,
    layout,
    public_view_key,
    seat_view_key,
)
from zioncheck.services.wiring import prepare_topology

pytestmark = pytest.mark.integration

GAME, SEATS = "live-1", 4


def serve(server: NatsServer, *services: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "zioncheck.cli.main", "serve", *services, *server.cli_args,
                             "--log-level", "error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def test_a_reader_that_reads_the_stored_view_and_follows_the_live_ones_ends_on_the_logs_view_through_kills(
        tmp_path):
    server = NatsServer(tmp_path / "jetstream")
    await prepare_topology(server.access)
    house = serve(server, "table", "dealer", "scoring", "intake", "bots")
    projector = serve(server, "projector")
    reader = operator = None
    try:
        platform = await GameClient.connect(server.access, "platform")
        # three hands, so that the game outlasts both kills: each is followed by 20 batches more, and a hand of
        # these bots is some 40 batches
        await platform.send(GAME, StartGame(game_id=GAME, players=SEATS, first_hand=4, seats=["strong"] * SEATS),
                            msg_id=f"start-{GAME}", patience=30)
        await platform.close()
        nc = await connect(server.access, "platform", max_reconnect_attempts=-1, reconnect_time_wait=0.2)
        reader = await ViewFollower(nc, seat_view_key(game_key(DEFAULT_TENANT, GAME), 0), decode_seat_view).start()

        async def past(seq: int) -> bool:
            return reader.seq >= seq
        await until(lambda: past(20), 60, "no live view came")
        projector.kill()                      # mid-game: its views not stored yet are lost with it
        projector.wait()
        at_kill = reader.seq
        projector = serve(server, "projector")
        await until(lambda: past(at_kill + 20), 60, "the views did not go on after the projector came back")
        server.kill()                         # and the server: the live views in flight are lost too
        server = NatsServer(tmp_path / "jetstream", port=server.port)
        at_kill = reader.seq
        await until(lambda: past(at_kill + 20), 90, "the views did not go on after the server came back")

        operator = await GameClient.connect(server.access, "operator")

        async def over() -> bool:
            stamped = await read_stamped(operator.js, GAME)
            return project([batch for batch, _ in stamped]).game.game_over
        await until(over, 240, "the game did not play on to its end")
        stamped = await read_stamped(operator.js, GAME)
        last = seat_view(project([batch for batch, _ in stamped], (due for _, due in stamped)), 0)
        await until(lambda: past(last.seq), 30, "the reader never got the last batch's view")
        assert reader.view == last, "the reader ends on the log's own view of its seat"
        assert reader.kept > 60, "it followed the game as it went, not only its stored ends"
    finally:
        if operator is not None:
            await operator.close()
        if reader is not None:
            await reader.stop()
            await reader.nc.close()
        for process in (house, projector):
            process.kill()
            process.wait()
        server.stop()


async def test_a_stored_view_is_at_most_two_seconds_behind_a_game_that_never_pauses_and_whole_once_it_does(
        services, client):
    """Four bots that move the moment they may: the game's views are stored at least every 2 s (SETTLE_MOST) all
    the same, so a reader of the stored view alone (the gateway's HTTP GET) is never further behind; and once the
    game pauses, the stored view has every batch."""
    game = "settle-1"
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=4))
    rng = random.Random(7)
    playing = asyncio.create_task(play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(4)}, rng,
                                             pace=0.01))
    where = await layout(client.js)
    kv = await client.js.key_value(VIEWS)
    samples = []
    started = time.monotonic()
    while time.monotonic() - started < 5.5 and not playing.done():
        with contextlib.suppress(NotFoundError):
            samples.append((time.time(), decode_public_view((await kv.get(public_view_key(game))).value)))
        await asyncio.sleep(0.1)
    playing.cancel()
    await asyncio.gather(playing, return_exceptions=True)
    await follower.stop()
    logged = [message.time.timestamp() for message in
              await stored_messages(client, where.log_stream(game), where.log_subject(game))]
    assert logged[-1] - logged[0] > 4, "a game that moved on while it was read"
    for at, view in samples:
        due = sum(1 for stored_at in logged if stored_at < at - 2.5)
        assert view.seq >= due, f"at {at:.1f} the stored view had {view.seq} batches of the {due} logged 2.5 s before"
    assert any(view.seq < sum(1 for t in logged if t <= at) for at, view in samples), \
        "while the game moved, its views were not stored a batch at a time"

    async def whole() -> bool:
        return decode_public_view((await kv.get(public_view_key(game))).value).seq == len(logged)
    await until(whole, 5, "the stored view never had every batch once the game paused")
