"""`zioncheck run`: the main job. A whole game of bots through the real services."""
import asyncio
import sys
import time

from zioncheck.application.replay import state_hash
from zioncheck.cli import words
from zioncheck.cli.live import Face, face_for, narrate
from zioncheck.cli.options import (
    Opened,
    add_bus,
    add_pace,
    add_seats,
    add_service_options,
    check_pace,
    check_service_options,
    game_rules,
    me,
    replay_hint,
    seat_bots,
    serve_metrics,
    start_game,
    whole,
)
from zioncheck.client import Follower, GameClient
from zioncheck.contracts.commands import DEFAULT_RULES, Rules
from zioncheck.domain import GameState, evolve
from zioncheck.services.bus.access import Access, connect
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import new_game_id
from zioncheck.services.history import entry_of
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import HOUSE, Services


def add(sub) -> None:
    p = sub.add_parser("run", help=words.RUN_HELP, description=words.RUN_DESCRIPTION)
    add_pace(p, 0.15, words.RUN_PACE_HELP)
    add_seats(p)
    p.add_argument("--seed", type=whole, metavar=words.METAVAR_SEED, help=words.BOTS_SEED_HELP)
    add_bus(p)
    add_service_options(p, "warning")
    p.set_defaults(func=main)


def main(args) -> int:
    names = seat_bots(args.bots, args.players)   # every option is checked before anything starts
    rules = game_rules(args.rules)
    check_pace(args.pace)
    check_service_options(args)
    configure_logging(args.log_level)
    serve_metrics(args.metrics_port)
    game = Opened(new_game_id())
    try:
        with bus(args.nats_url, args.credentials) as access:
            print(words.NATS_AT.format(servers=", ".join(access.servers)))
            asyncio.run(_play(access, names, args.pace, args.seed, game, rules))
    except KeyboardInterrupt:
        if game.started:   # the game is in the store as far as it went: say how to see it
            print("\n" + words.GAME_STOPPED.format(game=game.id) + "\n" + replay_hint(game.id), flush=True)
        raise
    print("\n" + replay_hint(game.id))
    return 0


async def _play(access: Access, names: list[str], pace: float, seed: int | None, game: Opened,
                rules: Rules = DEFAULT_RULES) -> None:
    services = await Services().start(HOUSE, access)
    client = await GameClient.connect(access, "gateway")   # a login that follows the log, as this program tells it all
    follower = await client.follow(game.id)
    shown = asyncio.create_task(_show(follower, face_for(sys.stdout)))
    bots = None
    try:   # this program plays every seat; a bots service on the same server does not sit down
        bots = await start_game(client, follower, game.id, len(names), seats=names, pace=pace, seed=seed,
                                opened=game, rules=rules)
        await follower.wait_until(lambda f: f.state.game_over, timeout=None)
        await follower.wait_until(lambda f: all(f.state.seeds))  # the dealer reveals the last hand's seed
        await shown
        await _standings(client, game.id)
        print(words.LIVE_STATE_HASH.format(hash=state_hash(follower.state)))
        await _archived(access, game.id)
    finally:
        shown.cancel()
        if bots is not None:
            await bots.stop()
        await follower.stop()
        await client.close()
        await services.stop()


ARCHIVE_WAIT = 20.0   # seconds to wait for the archiver to write the game's archive and index it


async def _archived(access: Access, game: str) -> None:
    """Say where the archiver put the game, once it has indexed it (with the operator's login, when at hand)."""
    if "operator" not in access.users():
        return
    nc = await connect(access, "operator")
    try:
        deadline = time.monotonic() + ARCHIVE_WAIT
        while time.monotonic() < deadline:
            entry = await entry_of(nc.jetstream(), game)
            if entry is not None:
                print(words.ARCHIVED_AS.format(where=entry.where, kib=f"{entry.size / 1024:.1f}", game=game, me=me()))
                return
            await asyncio.sleep(0.2)
        print(words.NOT_ARCHIVED_YET.format(seconds=f"{ARCHIVE_WAIT:g}"))
    finally:
        await nc.close()


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
