"""Poison soak: garbage and poison commands poured on live games, none of which may stop one.

Four bot games play through the services (the table alone in one process, the dealer,
scoring and the intake in another, as `zioncheck serve` runs them, logging at info) while
a platform login hands the intake 10,000 bad commands: empty, truncated, not JSON, nested
deeper than the bound, too large, unknown types, dealer commands, starts of other games,
game ids that are none, and well-formed moves the rules refuse. Then it checks that every
game finished, no service died, each command the intake could not read was refused there
and never stored, each one it stored was refused in its game's log, the commands streams
grew by the stored ones alone, and the services wrote at most one log line for each.
"""
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import Row
from zioncheck.bots import make_bot
from zioncheck.client import CommandRefused, GameClient
from zioncheck.contracts.commands import MAX_COMMAND_BYTES, StartGame
from zioncheck.domain.refusal import refusal_of
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import NatsServer, free_port
from zioncheck.services.bus.log_store import read_batches
from zioncheck.services.bus.topology import commands_stream, layout
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import prepare_topology

POISON, GAMES, PLAYERS = 10_000, 4, 4


def bad_commands(game: str, rng: random.Random) -> list[tuple[str, bytes]]:
    """(game, payload) of every kind of bad command, for one game."""
    return [
        (game, b""),
        (game, b'{"type": "draw_stock", "seat"'),
        (game, bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 60)))),
        (game, b"[" * 5000 + b"]" * 5000),
        (game, b'{"type": "draw_stock", "seat": 0, "pad": "' + b"x" * 20_000 + b'"}'),
        (game, b'{"type": "shuffle_the_deck", "seat": 0}'),
        (game, b'{"type": "deal", "hand": 2, "hands": [["AS"], ["2S"]], "stock": []}'),
        (game, b'{"type": "start_game", "game_id": "someone-else", "players": 4}'),
        (game, b'{"type": "discard", "seat": 0, "card": "ZZ"}'),
        (game, b'{"type": "draw_stock", "seat": 99}'),
        ("x" * 65, b'{"type": "draw_stock", "seat": 0}'),
    ]


async def soak(server: NatsServer) -> dict:
    bots = await GameClient.connect(server.access, "gateway")   # follows the log
    platform = await GameClient.connect(server.access, "platform")
    operator = await connect(server.access, "operator")
    games = [f"soak-{i}-{random.getrandbits(24):06x}" for i in range(GAMES)]
    followers = [await bots.follow(game) for game in games]
    for game in games:
        await bots.send(game, StartGame(game_id=game, players=PLAYERS))
    plays = [asyncio.create_task(play_seats(bots, f, {s: make_bot("greedy", random.Random(s)) for s in range(PLAYERS)},
                                            random.Random(i), pace=0.002)) for i, f in enumerate(followers)]
    rng = random.Random(7)
    sent = {"stored": 0, "refused_by_intake": 0}
    poisoned: set[tuple[str, int]] = set()   # the bad commands it stored: their games and stream sequences
    before = await _commands_bytes(operator)
    started = time.perf_counter()
    for index in range(POISON):
        game, data = rng.choice(bad_commands(games[index % GAMES], rng))
        try:
            poisoned.add((game, await platform.send(game, data)))
            sent["stored"] += 1
        except CommandRefused:
            sent["refused_by_intake"] += 1
    poured = time.perf_counter() - started
    await asyncio.wait_for(asyncio.gather(*plays), timeout=600)
    finished = sum(f.state.game_over for f in followers)
    refused = 0   # bad commands whose batch in the log is a refusal
    for game in games:
        last = max((seq for g, seq in poisoned if g == game), default=0)
        for _ in range(600):  # the table may still be working through what was poured after the game ended
            batches = [batch for _, batch in await read_batches(bots.js, game)]
            if batches[-1].cause >= last:
                break
            await asyncio.sleep(0.1)
        refused += sum((game, batch.cause) in poisoned and refusal_of(batch.events) is not None for batch in batches)
    grown = await _commands_bytes(operator) - before
    for follower in followers:
        await follower.stop()
    await bots.close()
    await platform.close()
    await operator.close()
    return {"finished": finished, "refused": refused, "poured": poured, "poisoned": poisoned, "grown": grown, **sent}


async def _commands_bytes(nc) -> int:
    js = nc.jetstream()
    partitions = (await layout(js)).partitions
    return sum([(await js.stream_info(commands_stream(p))).state.bytes for p in range(partitions)])


def run() -> list[Row]:
    configure_logging("warning")
    with tempfile.TemporaryDirectory() as folder:
        server = NatsServer(Path(folder) / "jetstream")
        asyncio.run(prepare_topology(server.access))
        logs = [Path(folder) / f"{name}.log" for name in ("table", "others")]
        metrics = free_port()
        services = [subprocess.Popen([sys.executable, "-m", "zioncheck.cli.main", "serve", *names, *server.cli_args,
                                      "--log-level", "info", *extra], stdout=subprocess.PIPE, stderr=open(log, "w"))
                    for names, log, extra in ((["table"], logs[0], ["--metrics-port", str(metrics)]),
                                              (["dealer", "scoring", "intake"], logs[1], []))]
        try:
            for process in services:
                assert b"serving" in process.stdout.readline()
            result = asyncio.run(soak(server))
            alive = sum(process.poll() is None for process in services)
        finally:
            for process in services:
                process.terminate()
                process.wait()
            server.stop()
        lines = sum(_about_poison(line, result["poisoned"]) for log in logs for line in log.read_text().splitlines())
    stored = result["stored"]
    return [
        Row("poison: games finished", result["finished"], f"of {GAMES}",
            f"{POISON:,} bad commands poured on {GAMES} live 4-bot games over NATS", GAMES,
            f"services alive {alive} of 2; wedged {GAMES - result['finished']}"),
        Row("poison: stored ones refused in their logs", result["refused"], f"of {stored:,} stored", "", stored,
            f"{result['refused_by_intake']:,} refused by the intake, never stored"),
        Row("poison: log lines about them", lines, f"for {stored:,} stored", "one line at most each", stored,
            at_most=True),
        Row("poison: commands streams grew", result["grown"] / max(stored, 1), "bytes a stored command",
            "what the intake stored, nothing for what it refused", 2 * MAX_COMMAND_BYTES, at_most=True),
        Row("poison: poured", POISON / result["poured"], "commands/s", "one platform connection"),
    ]


def _about_poison(line: str, poisoned: set[tuple[str, int]]) -> bool:
    """A service's log line about one of the bad commands (or a message it dropped)."""
    try:
        entry = json.loads(line)
    except ValueError:
        return True  # anything else a service printed counts against it
    return entry.get("event") == "message_dropped" or (entry.get("game"), entry.get("seq")) in poisoned


if __name__ == "__main__":
    for row in run():
        print(row)
