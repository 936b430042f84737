"""`zioncheck games`, `export` and `replay GAME_ID` read a game back out of JetStream."""
import random
import subprocess
import sys

from over_nats import new_game
from zioncheck.application.replay import state_hash
from zioncheck.bots import make_bot
from zioncheck.contracts.commands import StartGame
from zioncheck.services.bots.seats import play_seats


def zioncheck(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zioncheck.cli.main", *args],
                          capture_output=True, text=True, timeout=120)


async def test_a_stored_game_replays_from_jetstream_and_from_its_export_to_the_live_hash(
        nats_server, services, client, tmp_path):
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=2))
    rng = random.Random(5)
    await play_seats(client, follower, {0: make_bot("greedy", rng), 1: make_bot("greedy", rng)}, rng)
    await follower.wait_until(lambda f: all(f.state.seeds))
    live = state_hash(follower.state)

    listed = zioncheck("games", *nats_server.cli_args)
    assert game in listed.stdout and "over" in listed.stdout
    from_stream = zioncheck("replay", game, *nats_server.cli_args)
    assert f"state hash {live}" in from_stream.stdout
    assert "seeds verified for hands 1, 2, 3, 4, 5, 6" in from_stream.stdout
    exported = tmp_path / f"{game}.jsonl"
    assert zioncheck("export", game, "-o", str(exported), *nats_server.cli_args).returncode == 0
    assert f"state hash {live}" in zioncheck("replay", str(exported)).stdout


def test_replay_of_an_unknown_game_says_so_in_one_line(nats_server):
    result = zioncheck("replay", "no-such-game", *nats_server.cli_args)
    assert result.returncode == 2
    assert "no game 'no-such-game' is stored" in result.stderr
    result = zioncheck("--lang", "ru", "replay", "no-such-game", *nats_server.cli_args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == ["zioncheck replay: игры «no-such-game» нет в хранилище "
                                          "(zioncheck games перечисляет игры)"]
