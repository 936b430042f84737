"""The bots service: a game's bot seats are in its log, so bots and gateway may die at any moment.

Real processes, as `zioncheck serve bots` and `zioncheck serve gateway` run them, killed with
SIGKILL mid-game; the table, dealer, scoring and projector run in this process.
"""
import asyncio
import os
import signal
import sys

import httpx
import pytest

from gateway_helpers import KEY, keys_file  # noqa: F401 - keys_file is a fixture
from over_nats import new_game
from zioncheck.contracts.commands import StartGame
from zioncheck.contracts.events import GameStarted
from zioncheck.services.bots.service import BotsService
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import free_port
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


async def test_each_look_over_the_store_reads_only_the_starts_stored_since_the_last(nats_server, client, monkeypatch):
    """A look costs what was stored since the one before, not the whole store: a game is looked up
    once, when its start is new; a game without bot seats, or over, is never taken up."""
    services = await Services().start(["table", "dealer", "scoring", "intake"], nats_server.access)
    nc = await connect(nats_server.access, "bots")
    bots = BotsService(nc, nc.jetstream(), seed=1, rescan=3600)
    looked: list[str] = []
    real = bots._not_over

    async def not_over(game, where):
        looked.append(game)
        return await real(game, where)
    monkeypatch.setattr(bots, "_not_over", not_over)

    async def started(seats: list[str]) -> str:
        game = new_game()
        follower = await client.follow(game)
        await client.send(game, StartGame(game_id=game, players=len(seats), seats=seats))
        await follower.wait_until(lambda f: f.state.started)
        await follower.stop()
        return game
    try:
        first = await started(["person", "greedy"])
        assert await bots.resume() == 1 and looked == [first] and set(bots.playing) == {first}
        assert await bots.resume() == 0 and looked == [first]            # nothing new: nothing looked up
        people, second = await started(["person", "person"]), await started(["greedy", "person"])
        assert await bots.resume() == 1 and sorted(looked[1:]) == sorted([people, second])
        assert set(bots.playing) == {first, second}
    finally:
        await bots.stop()
        await nc.close()
        await services.stop()
