"""The views are derived and stored off the synced path, the feed's batches share synced writes: killed
mid-game with every service, the server comes back, the game plays on, and its views are its log's
again while a reader who resumes the feed where it stopped misses nothing and sees nothing twice.
A server that comes back without some views has them written again by the projector (its sweep)."""
import asyncio
import subprocess
import sys
import time

import pytest
from nats.js.errors import NotFoundError

from zioncheck.client import GameClient
from zioncheck.contracts.commands import Limits, StartGame
from zioncheck.contracts.feed import decode_feed_batch
from zioncheck.contracts.views import decode_public_view, decode_seat_view
from zioncheck.domain.views import feed_batch, project, public_view, seat_view
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.bus.log_store import read_some, read_stamped
from zioncheck.services.bus.topology import (
    FEED,
    VIEWS,
    feed_subject,
    kv_stream,
    off_the_synced_path,
    public_view_key,
    seat_view_key,
)
from zioncheck.services.wiring import prepare_topology

pytestmark = pytest.mark.integration

HOUSE = ["table", "dealer", "scoring", "projector", "intake", "bots"]
SEATS = 4


def serve(server: NatsServer) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "zioncheck.cli.main", "serve", *HOUSE, *server.cli_args,
                             "--log-level", "error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def start_bot_game(server: NatsServer, game: str) -> None:
    platform = await GameClient.connect(server.access, "platform")
    try:
        await platform.send(game, StartGame(game_id=game, players=SEATS, first_hand=6, seats=["greedy"] * SEATS,
                                            limits=Limits(bot_seconds=0.05)), msg_id=f"start-{game}", patience=30)
    finally:
        await platform.close()


class FeedReader:
    """A reader of one game's feed, page by page from where it stopped, as the gateway's feed reads it; it
    keeps every batch it is given, its seq and all, to check for gaps and repeats."""

    def __init__(self, game: str):
        self.game, self.place, self.seqs = game, 0, []

    async def read(self, js) -> None:
        while True:
            found, last = await read_some(js, FEED, feed_subject(self.game), self.place, 200)
            self.seqs += [decode_feed_batch(data).seq for _, data in found]
            self.place = last or self.place
            if len(found) < 200:
                return


async def views_are_the_logs(js, game: str) -> bool:
    stamped = await read_stamped(js, game)
    projection = project([batch for batch, _ in stamped], (due for _, due in stamped))
    kv = await js.key_value(VIEWS)
    try:
        if decode_public_view((await kv.get(public_view_key(game))).value) != public_view(projection):
            return False
        seats = [decode_seat_view((await kv.get(seat_view_key(game, seat))).value) for seat in range(SEATS)]
    except NotFoundError:   # not written (again) yet
        return False
    return seats == [seat_view(projection, seat) for seat in range(SEATS)]


async def game_over(js, game: str) -> bool:
    return project([batch for batch, _ in await read_stamped(js, game)]).game.game_over


async def until(check, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        await asyncio.sleep(0.2)


async def test_views_are_off_the_synced_path_and_the_feed_on_it(tmp_path):
    server = NatsServer(tmp_path / "jetstream")
    try:
        await prepare_topology(server.access)
        operator = await GameClient.connect(server.access, "operator")
        views = await operator.js.stream_info(kv_stream(VIEWS))
        feed = await operator.js.stream_info(FEED)
        await operator.close()
        assert off_the_synced_path(views.config)
        assert not off_the_synced_path(feed.config) and feed.config.allow_atomic
    finally:
        server.stop()


class House:
    """The embedded server on a folder, every house service in one process and the operator's client;
    the server (and the services) killed or stopped and started again on the same store at will."""

    def __init__(self, folder):
        self.folder, self.server, self.services, self.operator = folder, None, None, None

    async def start(self) -> "House":
        self.server = NatsServer(self.folder / "jetstream")
        await prepare_topology(self.server.access)
        self.services = serve(self.server)
        self.operator = await GameClient.connect(self.server.access, "operator")
        return self

    async def server_again(self, kill: bool, services_too: bool = False) -> None:
        await self.operator.close()
        if services_too:
            self.services.kill()
            self.services.wait()
        if kill:
            self.server.kill()
        else:
            self.server.stop()
        self.server = NatsServer(self.folder / "jetstream", port=self.server.port)
        if services_too:
            self.services = serve(self.server)
        self.operator = await GameClient.connect(self.server.access, "operator")

    async def stop(self) -> None:
        if self.operator is not None:
            await self.operator.close()
        if self.services is not None:
            self.services.kill()
            self.services.wait()
        if self.server is not None:
            self.server.stop()


@pytest.mark.long   # a game played on through the kill of every process: `make test-long`
async def test_killed_mid_game_with_every_service_the_views_come_back_right_and_the_feed_whole(tmp_path):
    house, game = House(tmp_path), "crash-1"
    try:
        await house.start()
        await start_bot_game(house.server, game)
        reader = FeedReader(game)

        async def half_way() -> bool:
            await reader.read(house.operator.js)
            return len(reader.seqs) >= 80
        await until(half_way, 120, "the game never got half way")
        await house.server_again(kill=True, services_too=True)
        js = house.operator.js

        async def over() -> bool:
            await reader.read(js)
            return await game_over(js, game)
        await until(over, 240, "the game did not play on to its end after the crash")
        await until(lambda: views_are_the_logs(js, game), 30, "the views are not the log's projection")
        await reader.read(js)
        stamped = await read_stamped(js, game)
        public = [n for n, (batch, _) in enumerate(stamped, 1) if feed_batch(game, n, batch.events)]
        assert reader.seqs == public, "the feed, read on from where the reader stopped, has every public batch once"
    finally:
        await house.stop()


async def test_views_a_restarted_server_lost_are_written_again_by_the_projector(tmp_path):
    house, game = House(tmp_path), "lost-1"
    try:
        await house.start()
        await start_bot_game(house.server, game)
        await until(lambda: game_over(house.operator.js, game), 240, "the game did not end")
        await until(lambda: views_are_the_logs(house.operator.js, game), 30, "the views were never written")
        await house.operator.js.purge_stream(kv_stream(VIEWS))   # every view lost, as a killed server may lose some
        assert not (await house.operator.js.stream_info(kv_stream(VIEWS))).state.messages
        # The projector may be back on the restarted server, and have swept it, before this test's own
        # connection is: what it wrote by then is checked with the rest.
        await house.server_again(kill=False)
        js = house.operator.js
        await until(lambda: views_are_the_logs(js, game), 60, "the projector did not write the views again")
    finally:
        await house.stop()
