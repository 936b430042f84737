"""Who plays a game's bot seats is said once, in its start (StartGame.bots_by), and the log keeps it: a game whose
starter plays its bots (`zioncheck run`, `play`) is never played by the house's bots service as well, whether the
service hears the game start or finds it in the store later."""
import pytest

from over_nats import new_game
from zioncheck.contracts.commands import SERVICE, STARTER, Limits, StartGame
from zioncheck.contracts.events import GameStarted
from zioncheck.services.bots.service import BotsService
from zioncheck.services.bus.access import connect
from zioncheck.services.wiring import Services

pytestmark = pytest.mark.integration
NO_DEADLINE = Limits(turn_seconds=3600)   # R19: no timeout plays a seat's turn while the test looks


async def test_a_game_whose_starter_plays_its_bots_is_left_alone_by_a_running_bots_service(nats_server, client):
    house = await Services().start(["table", "dealer", "scoring", "projector", "intake"], nats_server.access)
    nc = await connect(nats_server.access, "bots")
    bots = later = None
    followers = []
    try:
        bots = BotsService(nc, nc.jetstream(), seed=1, rescan=3600)
        await bots.start()
        # The starter's game first, so the service hears it start first. The service's own game seats a person who
        # never moves after its bot (seat 1, left of the dealer, plays first): it stays in play for the restart.
        games = {}
        for bots_by, seats in ((STARTER, ["greedy", "greedy"]), (SERVICE, ["person", "greedy"])):
            game = games[bots_by] = new_game()
            followers.append(follower := await client.follow(game))
            await client.send(game, StartGame(game_id=game, players=2, seats=seats, limits=NO_DEADLINE,
                                              bots_by=bots_by))
            await follower.wait_until(lambda f: f.state.hand == 1)
        starters, services = followers
        start = starters.batches[0].events[0]
        assert isinstance(start, GameStarted) and start.bots_by == STARTER, "the log says who plays the bots"
        await services.wait_until(lambda f: f.state.turn == 0)   # its bot has drawn and discarded: the service plays
        assert len(starters.batches) == 2, "only the start and the deal: no bot of the service sat down"
        assert set(bots.playing) == {games[SERVICE]}
        await bots.stop()
        later = BotsService(nc, nc.jetstream(), seed=1, rescan=3600)   # a restart reads every start stored
        await later.start()
        assert set(later.playing) == {games[SERVICE]}, "found in the store, the starter's game is not taken up"
    finally:
        for follower in followers:
            await follower.stop()
        for service in (bots, later):
            if service is not None:
                await service.stop()
        await nc.close()
        await house.stop()
