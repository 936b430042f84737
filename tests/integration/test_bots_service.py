"""The bots service: a game's bot seats and where they stand are in their views, so bots and gateway may die at
any moment.

Real processes, as `zioncheck serve bots` and `zioncheck serve gateway` run them, killed with
SIGKILL mid-game; the table, dealer, scoring and projector run in this process.
"""
import asyncio
import os
import signal
import sys

import httpx
import pytest
from nats.js.errors import KeyNotFoundError

from gateway_helpers import KEY, keys_file  # noqa: F401 - keys_file is a fixture
from over_nats import new_game
from zioncheck.client import read_view
from zioncheck.contracts.commands import STARTER, HandRule, Rules, StartGame
from zioncheck.contracts.events import GameStarted
from zioncheck.contracts.views import decode_seat_view
from zioncheck.services.bots import service
from zioncheck.services.bots.service import BotsService
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import free_port
from zioncheck.services.bus.topology import VIEWS, bot_view_key, game_of
from zioncheck.services.gateway.keys import HEADER
from zioncheck.services.wiring import Services


async def serve(nats_server, tmp_path, *names: str, port: int | None = None, keys=None):
    """`zioncheck serve NAME...` in a process of its own, once it says it serves."""
    more = ["--port", str(port), "--platform-keys", str(keys)] if port else []
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "zioncheck.cli.main", "serve", *names, *more, *nats_server.cli_args,
        "--log-level", "warning", stdout=asyncio.subprocess.PIPE,
        stderr=open(tmp_path / f"{'-'.join(names)}.log", "ab"), env=os.environ | {"ZIONCHECK_HOME": str(tmp_path)})
    async with asyncio.timeout(30):
        assert (await process.stdout.readline()).startswith(b"serving ")
    return process


async def kill(process) -> None:
    os.kill(process.pid, signal.SIGKILL)
    await process.wait()


@pytest.mark.long   # a whole game through kills: `make test-long`
async def test_a_bot_game_finishes_though_its_bots_and_its_gateway_are_killed_mid_game(
        nats_server, client, tmp_path, keys_file):  # noqa: F811
    house = await Services().start(["table", "dealer", "scoring", "projector", "intake"], nats_server.access)
    port = free_port()
    bots = await serve(nats_server, tmp_path, "bots")
    gateway = await serve(nats_server, tmp_path, "gateway", port=port, keys=keys_file)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=20) as http:
            created = await http.post("/games", json={"players": 3, "seats": ["greedy", "random", "greedy"],
                                                      "pace": 0}, headers={HEADER: KEY})
            assert created.status_code == 201, created.text
        game = created.json()["game_id"]
        follower = await client.follow(game)
        started = follower.batches[0].events[0]
        assert isinstance(started, GameStarted) and started.seats == ["greedy", "random", "greedy"]
        await follower.wait_until(lambda f: f.state.hand >= 2, timeout=120)
        await kill(bots)
        await kill(gateway)
        moved = len(follower.batches)
        bots = await serve(nats_server, tmp_path, "bots")   # no gateway at all from here on
        await follower.wait_until(lambda f: f.state.game_over, timeout=300)
        assert len(follower.batches) > moved and not follower.state.abandoned
        assert follower.state.winners
        timed_out = [e for b in follower.batches for e in b.events if type(e).__name__ == "TurnTimedOut"]
        assert not timed_out, "the bots service played every turn; no deadline had to"
    finally:
        for process in (bots, gateway):
            if process.returncode is None:
                await kill(process)
        await house.stop()


async def stored_bot_view(client, game: str, seat: int, over: bool = False) -> None:
    """Wait until the projector has stored the view of a seat the bots service plays (`over`: one of the game
    over)."""
    views = await client.js.key_value(VIEWS)
    async with asyncio.timeout(10):
        while True:
            try:
                if decode_seat_view((await views.get(bot_view_key(game, seat))).value).public.game_over >= over:
                    return
            except KeyNotFoundError:
                pass
            await asyncio.sleep(0.05)


async def test_each_look_over_the_stored_bot_views_reads_a_game_once_and_takes_up_those_in_play(
        nats_server, client, monkeypatch):
    """A look (at start, then every `rescan`) lists the bot views stored and reads one of each game it does not
    play: a game whose bots are not the service's has none; a game it plays is not read again; a game over is
    read once, by each service, and never taken up."""
    services = await Services().start(["table", "dealer", "scoring", "projector", "intake"], nats_server.access)
    nc = await connect(nats_server.access, "bots")
    bots = BotsService(nc, nc.jetstream(), seed=1, rescan=3600)
    read: list[str] = []

    async def reading(nc, key, timeout=5.0):
        read.append(game_of(f"$KV.{VIEWS}.{key}"))
        return await read_view(nc, key, timeout)
    monkeypatch.setattr(service, "read_view", reading)

    async def started(seats: list[str], **more) -> str:
        game = new_game()
        follower = await client.follow(game)
        await client.send(game, StartGame(game_id=game, players=len(seats), seats=seats, **more))
        await follower.wait_until(lambda f: f.state.started)
        await follower.stop()
        return game
    again = player = None
    try:
        first = await started(["person", "greedy"])
        await stored_bot_view(client, first, 1)
        assert await bots.resume() == 1 and read == [first] and set(bots.playing) == {first}
        assert await bots.resume() == 0 and read == [first]            # played here: not read again
        people = await started(["person", "person"])
        theirs = await started(["greedy", "person"], bots_by=STARTER)   # the starter plays its bots
        second = await started(["greedy", "person"])
        await stored_bot_view(client, second, 0)
        assert await bots.resume() == 1 and read == [first, second]
        assert set(bots.playing) == {first, second} and not {people, theirs} & set(bots.playing)
        player = BotsService(nc, nc.jetstream(), seed=2, rescan=3600)
        await player.start()   # follows the bot views as they come: it plays the next game to its end
        read.clear()
        one_hand = Rules(hands=(HandRule(dealt=7, sets=2, runs=0),))
        quick = await started(["greedy", "random"], rules=one_hand)
        follower = await client.follow(quick)
        await follower.wait_until(lambda f: f.state.game_over, timeout=60)
        assert follower.state.winners and read == []
        await follower.stop()
        await stored_bot_view(client, quick, 0, over=True)
        assert await bots.resume() == 0 and read == [quick]   # over: read once, not taken up
        assert await bots.resume() == 0 and read == [quick]   # and never read again
        again = BotsService(nc, nc.jetstream(), seed=1, rescan=3600)   # as after a restart
        assert await again.resume() == 2 and set(again.playing) == {first, second}
        assert await again.resume() == 0 and sorted(read[1:]) == sorted([first, second, quick])
    finally:
        for other in (again, player):
            if other is not None:
                await other.stop()
        await bots.stop()
        await nc.close()
        await services.stop()
