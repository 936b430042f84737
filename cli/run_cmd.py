"""`zioncheck run`: the main job. A whole game of four greedy bots through the real services."""
import asyncio
import os
import sys

from zioncheck.application.replay import state_hash
from zioncheck.cli import words
from zioncheck.cli.live import Face, face_for, narrate
from zioncheck.cli.options import add_bus, add_seats, seat_bots, start_game
from zioncheck.client import Follower, GameClient
from zioncheck.domain import GameState, evolve
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import new_game_id
from zioncheck.services.observability import configure_logging, serve_metrics
from zioncheck.services.wiring import SERVICES, Services


def add(sub) -> None:
    p = sub.add_parser("run", help="play a whole game between bots over NATS, shown live",
                       description="Start NATS (embedded unless --nats-url), the dealer, table, scoring and projector "
                                   "services and four bots; play a six-hand game through them, show each "
                                   "move, the table and the scores live, and end with the standings and "
                                   "the command that replays the game.")
    p.add_argument("--pace", type=float, default=0.15,
                   help="seconds per move, 0 to 10 (0 plays at full speed; default 0.15)")
    add_seats(p)
    p.add_argument("--seed", type=int, help="seed for the bots' choices (default: random)")
    add_bus(p, "start an embedded one")
    p.add_argument("--metrics-port", type=int, default=0, help="serve Prometheus metrics on this port")
    p.add_argument("--log-level", default="warning", help="service log level (default warning)")
    p.set_defaults(func=main)


def main(args) -> int:
    names = seat_bots(args.bots, args.players)
    configure_logging(args.log_level)
    serve_metrics(args.metrics_port)
    with bus(args.nats_url, args.credentials) as access:
        print(words.NATS_AT.format(servers=", ".join(access.servers)))
        game = asyncio.run(_play(access, names, args.pace, args.seed))
    me = _command_name()
    print("\n" + words.REPLAY_IT.format(me=me, game=game))
    return 0


async def _play(access: Access, names: list[str], pace: float, seed: int | None) -> str:
    services = await Services().start(SERVICES, access)
    services.by_name["bots"].seed = seed   # the bots service plays every seat
    client = await GameClient.connect(access, "bots")
    game = new_game_id()
    follower = await client.follow(game)
    shown = asyncio.create_task(_show(follower, face_for(sys.stdout)))
    try:
        await start_game(client, follower, game, len(names), seats=names, pace=pace)
        await follower.wait_until(lambda f: f.state.game_over, timeout=None)
        await follower.wait_until(lambda f: all(f.state.seeds))  # the dealer reveals the last hand's seed
        await shown
        await _standings(client, game)
        print(f"live state hash {state_hash(follower.state)}")
    finally:
        shown.cancel()
        await follower.stop()
        await client.close()
        await services.stop()
    return game


async def _show(follower: Follower, face: Face) -> None:
    state, told = GameState(), 0
    while True:
        while told < len(follower.batches):
            for event in follower.batches[told].events:
                state = evolve(state, event)
                for line in narrate(event, state, face=face):
                    print(line, flush=True)
            told += 1
        if state.game_over:
            return
        await follower.changed(timeout=120)


async def _standings(client: GameClient, game: str) -> None:
    """The scoring service's standings, read back from its KV bucket."""
    standings = await client.final_standings(game)
    if standings is None:
        print("\n" + words.NO_STANDINGS)
        return
    order = sorted(range(standings.players), key=lambda s: standings.totals[s])
    print("\n" + words.STANDINGS)
    for place, seat in enumerate(order, 1):
        mark = words.WINNER_MARK if seat in standings.winners else ""
        print(words.STANDING.format(place=place, seat=seat, points=standings.totals[seat]) + mark)


def _command_name() -> str:
    """How the person can call this command again: .venv/bin/zioncheck after `make run`."""
    path = os.path.relpath(sys.argv[0])
    return path if path.startswith(".venv") else "zioncheck"
