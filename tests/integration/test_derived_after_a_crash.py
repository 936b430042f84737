"""The views and the feed are derived and stored off the synced path: killed mid-game with every service,
the server comes back, the game plays on, and its views are its log's again while a reader who resumes
the feed by seq misses nothing and sees nothing twice. A server that comes back without some views or
feed batches has them written again by the projector (its sweep), and the gateway's spectators get
each batch once although those written again stand at other places in the feed's stream."""
import json
import subprocess
import sys

import pytest
from nats.js.errors import NotFoundError

from over_nats import until
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
from zioncheck.services.gateway.live import Hubs, Spectator
from zioncheck.services.wiring import prepare_topology

pytestmark = pytest.mark.integration

HOUSE = ["table", "dealer", "scoring", "projector", "intake", "bots"]
SEATS = 4


def serve(server: NatsServer) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "zioncheck.cli.main", "serve", *HOUSE, *server.cli_args,
                             "--log-level", "error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def start_bot_game(server: NatsServer, game: str, first_hand: int = 6, bot_seconds: float = 0.05) -> None:
    platform = await GameClient.connect(server.access, "platform")
    try:
        await platform.send(game, StartGame(game_id=game, players=SEATS, first_hand=first_hand,
                                            seats=["greedy"] * SEATS, limits=Limits(bot_seconds=bot_seconds)),
                            msg_id=f"start-{game}", patience=30)
    finally:
        await platform.close()


class FeedReader:
    """A reader of one game's feed that resumes by seq, as a platform's does: it reads the feed page by page
    and keeps each batch past the last seq it kept, to check for gaps and repeats."""

    def __init__(self, game: str):
        self.game, self.seqs = game, []

    async def read(self, js) -> None:
        place = 0
        while True:
            found, place = await read_some(js, FEED, feed_subject(self.game), place, 200)
            for _, data in found:
                seq = decode_feed_batch(data).seq
                if not self.seqs or seq > self.seqs[-1]:
                    self.seqs.append(seq)
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


async def public_seqs(js, game: str) -> list[int]:
    """The seq of each of the game's log batches that has anything public: every feed batch's."""
    stamped = await read_stamped(js, game)
    return [n for n, (batch, _) in enumerate(stamped, 1) if feed_batch(game, n, batch.events)]


async def game_over(js, game: str) -> bool:
    return project([batch for batch, _ in await read_stamped(js, game)]).game.game_over


async def test_views_and_feed_are_off_the_synced_path(tmp_path):
    server = NatsServer(tmp_path / "jetstream")
    try:
        await prepare_topology(server.access)
        operator = await GameClient.connect(server.access, "operator")
        views = await operator.js.stream_info(kv_stream(VIEWS))
        feed = await operator.js.stream_info(FEED)
        await operator.close()
        assert off_the_synced_path(views.config) and off_the_synced_path(feed.config)
        assert not feed.config.allow_atomic   # the server keeps async persistence to streams without them
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
        await start_bot_game(house.server, game, first_hand=5)   # two hands: a game in play to kill
        reader = FeedReader(game)

        async def half_way() -> bool:
            await reader.read(house.operator.js)
            return len(reader.seqs) >= 40
        await until(half_way, 120, "the game never got under way")
        await house.server_again(kill=True, services_too=True)
        js = house.operator.js

        async def over() -> bool:
            await reader.read(js)
            return await game_over(js, game)
        await until(over, 240, "the game did not play on to its end after the crash")
        await until(lambda: views_are_the_logs(js, game), 30, "the views are not the log's projection")
        public = await public_seqs(js, game)

        async def fed() -> bool:   # the last feed batch is written beside the last views, maybe a moment after
            await reader.read(js)
            return reader.seqs[-1:] == public[-1:]
        await until(fed, 30, "the feed never got its last batch")
        assert reader.seqs == public, "the feed, read on by seq, has every public batch once"
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


def feed_seqs(spectator: Spectator) -> list[int]:
    """The seq of each feed batch sent to the spectator, in the order sent."""
    frames = [json.loads(spectator.frames.get_nowait()) for _ in range(spectator.frames.qsize())]
    return [frame["batch"]["seq"] for frame in frames if frame["kind"] == "feed"]


async def test_a_spectator_gets_every_feed_batch_once_after_the_server_lost_the_feed(tmp_path):
    house, game = House(tmp_path), "watched-1"
    gateway = None
    try:
        await house.start()
        js = house.operator.js
        # Places in the feed's stream that the lost feed does not take again: another game's feed, purged
        # (as the archiver purges an archived game's).
        for _ in range(60):
            await js.publish(feed_subject("gone-1"), b"{}")
        await js.purge_stream(FEED, subject=feed_subject("gone-1"))
        await start_bot_game(house.server, game, first_hand=5, bot_seconds=0.2)
        gateway = await GameClient.connect(house.server.access, "gateway")
        hubs = Hubs(gateway.js, await gateway.js.key_value(VIEWS))
        spectator = Spectator(backlog=100_000)
        hub = await hubs.join(game, spectator)

        async def moved() -> bool:
            return len(hub.feed) >= 10
        await until(moved, 60, "the game never moved")

        # The whole feed lost with the server: the projector writes it again from the log, at places below
        # those the gateway has read.
        house.services.kill()
        house.services.wait()
        await js.delete_stream(FEED)
        await prepare_topology(house.server.access)
        await house.server_again(kill=True, services_too=True)
        js = house.operator.js
        before = hub.feed[-1][0]

        async def moved_on() -> bool:
            return len(hub.feed) > 0 and hub.feed[-1][0] >= before + 70 or await game_over(js, game)
        await until(moved_on, 180, "the spectator got nothing past the lost feed")
        public = await public_seqs(js, game)
        sent = feed_seqs(spectator)
        assert sent == public[:len(sent)] and sent[-1] >= before + 20, \
            "the spectator got every feed batch once, in order, those after the loss too"
    finally:
        if gateway is not None:
            await hubs.close()
            await gateway.close()
        await house.stop()
