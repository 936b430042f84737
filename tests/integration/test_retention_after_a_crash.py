"""A game removed by retention never comes back: the server killed with -9 and started again, and every service
with it, a platform reads of the game what it reads of a game that never was, and no hot stream or bucket holds
anything of it (docs/history.md, "Removed for good").

nats-server 2.15.1, started again after an unclean shutdown, brings back a message its stream dropped for its
subject's limit (a bucket's superseded value, the register's mark written twice) wherever the last on that subject
was purged since: a removed game's first standings ("in play, 0 points") and views. The archiver keeps a record of
each removal beside the game's index entry, and on every start and every server it comes to takes out again
whatever of a removed game came back. The same on three nodes: tests/integration/test_cluster.py.
"""
import subprocess
import sys

import pytest

from over_nats import new_game
from removed_games import finished_game, game_in_play, hot, platform_reads, until_gone
from zioncheck.client import GameClient
from zioncheck.contracts.events import GameStarted
from zioncheck.contracts.log import Batch, encode
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import NatsServer
from zioncheck.services.bus.topology import layout, log_stream, log_subject
from zioncheck.services.projector import service as projector_service
from zioncheck.services.projector.service import ProjectorService
from zioncheck.services.scoring.service import ScoringService
from zioncheck.services.wiring import prepare_topology

pytestmark = pytest.mark.integration

GAMES = 3

# Every house service in one process, as `zioncheck serve` runs them; a finished game removed a second after it is
# archived.
SERVE = """
import asyncio, sys
from pathlib import Path
from zioncheck.services.bus.access import Access
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import SERVICES, Services, Settings

async def main():
    configure_logging("warning")
    await Services().start(SERVICES, Access((sys.argv[1],), Path(sys.argv[2])), settings=Settings(retention=1))
    await asyncio.Event().wait()

asyncio.run(main())
"""


class House:
    """The embedded server on a folder and every house service in a process of their own, each killed with -9
    and started again on the same store at will; the operator's and a platform's clients."""

    def __init__(self, folder):
        self.folder, self.server, self.services = folder, None, None
        self.operator: GameClient | None = None
        self.platform: GameClient | None = None

    async def start(self) -> "House":
        self.server = self._server()
        await prepare_topology(self.server.access)
        self._serve()
        await self._clients()
        return self

    def _server(self, port: int | None = None) -> NatsServer:
        return NatsServer(self.folder / "jetstream", port=port, log=self.folder / "nats-server.log")

    def _serve(self) -> None:
        self.services = subprocess.Popen([sys.executable, "-c", SERVE, self.server.url, str(self.server.credentials)],
                                         stdout=subprocess.DEVNULL, stderr=open(self.folder / "services.log", "ab"))

    async def _clients(self) -> None:
        self.operator = await GameClient.connect(self.server.access, "operator")
        self.platform = await GameClient.connect(self.server.access, "platform")

    async def kill(self, services_too: bool) -> None:
        """kill -9 of the server (and of the services), then each started again."""
        for client in (self.operator, self.platform):
            await client.close()
        if services_too:
            self.services.kill()
            self.services.wait()
        self.server.kill()
        self.server = self._server(self.server.port)
        if services_too:
            self._serve()
        await self._clients()

    async def stop(self) -> None:
        for client in (self.operator, self.platform):
            if client is not None:
                await client.close()
        if self.services is not None:
            self.services.kill()
            self.services.wait()
        if self.server is not None:
            self.server.stop()


async def test_a_removed_game_never_comes_back_through_kills_of_the_server_and_the_services(tmp_path):
    """Three games removed beside one in play; then the server killed with -9 three times, the services with it the
    second time. Each time the server comes back with some of the games' views, standings and marks in the register
    (nats-server 2.15.1), and each time the archiver takes them out again."""
    house = await House(tmp_path).start()
    try:
        await game_in_play(house.operator)   # its writes keep the blocks the removed games' old values are in
        games = [await finished_game(house.operator) for _ in range(GAMES)]
        await until_gone(games, house.operator, [house.platform.nc], 90, "the games were never removed whole")
        for kill, services_too in enumerate((False, True, False), 1):
            await house.kill(services_too)
            await until_gone(games, house.operator, [house.platform.nc], 60,
                             f"after kill {kill} (the services too: {services_too}) the removed games came back")
    finally:
        await house.stop()


async def test_the_projectors_sweep_writes_nothing_of_a_game_removed_after_it_was_counted(nats_server, client,
                                                                                         monkeypatch):
    """The sweep after a server's restart counts the games in the log, then projects each: a game the archiver
    removes in between has no log to fold, and gets no view (not an empty one a platform would read)."""
    await prepare_topology(nats_server.access)
    game = new_game()
    monkeypatch.setattr(projector_service, "stored_games", lambda js: _counted({game: 12}))
    nc = await connect(nats_server.access, "projector")
    platform = await connect(nats_server.access, "platform")
    try:
        assert await ProjectorService(nc.jetstream()).sweep() == 1
        assert await platform_reads(platform, game) == (None, None)
        assert (await hot(client.js, game))["views"] == 0
    finally:
        await nc.close()
        await platform.close()


async def _counted(games: dict[str, int]) -> dict[str, int]:
    return games


async def test_scoring_writes_nothing_of_a_game_removed_after_its_hand_end_was_delivered(nats_server, client):
    """A game's start delivered to scoring, and the game removed before scoring writes its standings: none are
    written (a platform would read the game as in play, at 0 points)."""
    await prepare_topology(nats_server.access)
    game, where = new_game(), await layout(client.js)
    p = where.of(game)
    start = Batch(cause=1, events=[GameStarted(game_id=game, players=2, decks=1, dealer=0, stacked=True)])
    seq = (await client.js.publish(log_subject(p, game, "hand"), encode(start))).seq
    await client.js.purge_stream(log_stream(p), subject=log_subject(p, game))   # as the archiver removes a game
    nc = await connect(nats_server.access, "scoring")
    platform = await connect(nats_server.access, "platform")
    try:
        await ScoringService(nc.jetstream()).on_log(game, seq, {}, start)
        assert await platform_reads(platform, game) == (None, None)
        assert (await hot(client.js, game))["standings"] == 0
    finally:
        await nc.close()
        await platform.close()
