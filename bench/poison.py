"""Poison soak: garbage and poison commands poured on live games, none of which may stop one.

Four bot games play through the services (the table alone in one process, the dealer
and scoring in another, as `zioncheck serve` runs them, logging at info) while a
platform login sends 10,000 bad commands: empty, truncated, not JSON, nested deeper
than the bound, too large for the stream, unknown types, dealer commands, starts of
other games, and commands on subjects that name no game. Then it checks that every
game finished, no service died, each bad command that reached the stream was refused
in its game's log (or counted as dropped when it named no game), and the services
wrote at most one log line for each.
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
from zioncheck.client import GameClient
from zioncheck.contracts.commands import StartGame
from zioncheck.domain.refusal import refusal_of
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import NatsServer, free_port
from zioncheck.services.bus.log_store import read_batches
from zioncheck.services.bus.topology import command_subject
from zioncheck.services.observability import configure_logging
from zioncheck.services.wiring import prepare_topology

POISON, GAMES, PLAYERS = 10_000, 4, 4


def bad_commands(game: str, rng: random.Random) -> list[tuple[str, bytes]]:
    """(subject, payload) of every kind of bad command, for one game."""
    subject = command_subject(game)
    return [
        (subject, b""),
        (subject, b'{"type": "draw_stock", "seat"'),
        (subject, bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 60)))),
        (subject, b"[" * 5000 + b"]" * 5000),
        (subject, b'{"type": "draw_stock", "seat": 0, "pad": "' + b"x" * 20_000 + b'"}'),
        (subject, b'{"type": "shuffle_the_deck", "seat": 0}'),
        (subject, b'{"type": "deal", "hand": 2, "hands": [["AS"], ["2S"]], "stock": []}'),
        (subject, b'{"type": "start_game", "game_id": "someone-else", "players": 4}'),
        (subject, b'{"type": "discard", "seat": 0, "card": "ZZ"}'),
        (subject, b'{"type": "draw_stock", "seat": 99}'),
        ("zc.cmd.*.play", b'{"type": "draw_stock", "seat": 0}'),
        ("zc.cmd." + "x" * 65 + ".play", b'{"type": "draw_stock", "seat": 0}'),
    ]


async def soak(server: NatsServer) -> dict:
    bots = await GameClient.connect(server.access, "bots")
    platform = await connect(server.access, "platform")
    js = platform.jetstream()
    games = [f"soak-{i}-{random.getrandbits(24):06x}" for i in range(GAMES)]
    followers = [await bots.follow(game) for game in games]
    for game in games:
        await bots.send(game, StartGame(game_id=game, players=PLAYERS))
    plays = [asyncio.create_task(play_seats(bots, f, {s: make_bot("greedy", random.Random(s)) for s in range(PLAYERS)},
                                            random.Random(i), pace=0.002)) for i, f in enumerate(followers)]
    rng = random.Random(7)
    sent = {"stored": 0, "refused_by_stream": 0, "no_game": 0}
    poisoned: dict[int, str] = {}   # the stream sequences of the bad commands it stored, and their games
    started = time.perf_counter()
    for index in range(POISON):
        game = games[index % GAMES]
        subject, data = rng.choice(bad_commands(game, rng))
        if subject.startswith("zc.cmd.*") or len(subject) > 80:
            await platform.publish(subject, data)
            sent["no_game"] += 1
            continue
        try:
            poisoned[(await js.publish(subject, data, timeout=10)).seq] = game
            sent["stored"] += 1
        except Exception:  # noqa: BLE001 - larger than the stream takes: never stored, nothing to refuse
            sent["refused_by_stream"] += 1
    poured = time.perf_counter() - started
    await asyncio.wait_for(asyncio.gather(*plays), timeout=600)
    finished = sum(f.state.game_over for f in followers)
    refused = 0   # bad commands whose batch in the log is a refusal
    for game in games:
        last = max((seq for seq, g in poisoned.items() if g == game), default=0)
        for _ in range(600):  # the table may still be working through what was poured after the game ended
            batches = [batch for _, batch in await read_batches(bots.js, game)]
            if batches[-1].cause >= last:
                break
            await asyncio.sleep(0.1)
        refused += sum(batch.cause in poisoned and refusal_of(batch.events) is not None for batch in batches)
    for follower in followers:
        await follower.stop()
    await bots.close()
    await platform.close()
    return {"finished": finished, "refused": refused, "poured": poured, "poisoned": poisoned, **sent}


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
                                              (["dealer", "scoring"], logs[1], []))]
        try:
            for process in services:
                assert b"serving" in process.stdout.readline()
            result = asyncio.run(soak(server))
            alive = sum(process.poll() is None for process in services)
            dropped = _metric(metrics, 'zc_messages_dropped_total{what="command"}')
        finally:
            for process in services:
                process.terminate()
                process.wait()
            server.stop()
        lines = sum(_about_poison(line, result["poisoned"]) for log in logs for line in log.read_text().splitlines())
    bad = result["stored"] + result["no_game"]
    return [
        Row("poison: games finished", result["finished"], f"of {GAMES}",
            f"{POISON:,} bad commands poured on {GAMES} live 4-bot games over NATS", GAMES,
            f"services alive {alive} of 2; wedged {GAMES - result['finished']}"),
        Row("poison: refused or dropped", result["refused"] + dropped, f"of {bad:,} that reached the bus", "", bad,
            f"{result['refused']:,} refused in their games' logs, {dropped:.0f} dropped (no game), "
            f"{result['refused_by_stream']:,} too large for the stream"),
        Row("poison: log lines about them", lines, f"for {bad:,}", "one line at most each", bad, at_most=True),
        Row("poison: poured", POISON / result["poured"], "commands/s", "one platform connection"),
    ]


def _about_poison(line: str, poisoned: set[int]) -> bool:
    """A service's log line about one of the bad commands (or a message it dropped)."""
    try:
        entry = json.loads(line)
    except ValueError:
        return True  # anything else a service printed counts against it
    return entry.get("event") == "message_dropped" or entry.get("seq") in poisoned


def _metric(port: int, name: str) -> float:
    from urllib.request import urlopen
    for line in urlopen(f"http://127.0.0.1:{port}/metrics").read().decode().splitlines():
        if line.startswith(name):
            return float(line.split()[-1])
    return 0.0


if __name__ == "__main__":
    for row in run():
        print(row)
