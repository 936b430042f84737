"""`zioncheck archive GAME -o FILE` writes a finished game's signed archive to a file, which `zioncheck verify FILE`
and `zioncheck replay FILE` read on a machine that never saw the server: an empty folder, no .zioncheck/, no server,
only the file and the house's public key."""
import os
import shutil
import subprocess
import sys

import msgspec
import pytest

from over_nats import new_game
from zioncheck.application.archive import new_signing_key
from zioncheck.client import GameClient
from zioncheck.contracts.archive import IndexEntry
from zioncheck.contracts.commands import StartGame
from zioncheck.services.bus.access import public_key
from zioncheck.services.bus.topology import DEFAULT_TENANT, history_subject

pytestmark = pytest.mark.integration


def zioncheck(*args: str, cwd, home: bool = True) -> subprocess.CompletedProcess:
    """The command as a person runs it in `cwd`; with `home` False, with nothing but PATH and the language: no
    ZIONCHECK_HOME, so the only .zioncheck/ it could find is one in `cwd`."""
    env = {"PATH": os.environ["PATH"], "LANGUAGE": "en"}
    if home:
        env = os.environ | env
    return subprocess.run([sys.executable, "-m", "zioncheck.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, stdin=subprocess.DEVNULL, timeout=120)


async def archived_game(client: GameClient) -> str:
    """A bot game of its last hand, dealt by the dealer (each hand's seed revealed), played to its end by the bots
    service; once the archiver has indexed it."""
    game = new_game()
    sub = await client.js.subscribe(history_subject(DEFAULT_TENANT, game), ordered_consumer=True)
    try:
        follower = await client.follow(game)
        await client.send(game, StartGame(game_id=game, players=4, first_hand=6, seats=["greedy"] * 4))
        await follower.wait_until(lambda f: f.state.game_over, timeout=120)
        await follower.stop()
        entry = msgspec.json.decode((await sub.next_msg(timeout=60)).data, type=IndexEntry)
    finally:
        await sub.unsubscribe()
    assert entry.manifest.game == game
    return game


def standings(told: str) -> str:
    [line] = [line for line in told.splitlines() if line.startswith("standings: ")]
    return line


async def test_an_archive_written_to_a_file_verifies_and_replays_in_an_empty_folder_with_no_server(
        nats_server, services, client, tmp_path):
    game = await archived_game(client)
    house = tmp_path / "house"
    house.mkdir()
    written = zioncheck("archive", game, "-o", "game.zca", *nats_server.cli_args, cwd=house)
    assert written.returncode == 0, written.stderr
    key = public_key(nats_server.credentials)
    assert f"verify game.zca --key {key}" in written.stdout, "it says how to check the file, with the house's key"
    from_store = zioncheck("replay", game, *nats_server.cli_args, cwd=house)
    assert from_store.returncode == 0, from_store.stderr

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(house / "game.zca", elsewhere / "game.zca")

    checked = zioncheck("verify", "game.zca", "--key", key, cwd=elsewhere, home=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith(f"game.zca: intact. Game {game} of {DEFAULT_TENANT}: 1 hands")
    assert "key the archive names" not in checked.stdout

    unkeyed = zioncheck("verify", "game.zca", cwd=elsewhere, home=False)
    assert unkeyed.returncode == 0, unkeyed.stdout + unkeyed.stderr
    assert "game.zca: intact." in unkeyed.stdout
    assert f"checked with {key}, the key the archive names" in unkeyed.stdout, "and it says whose key it trusted"

    _, stranger = new_signing_key()
    other = zioncheck("verify", "game.zca", "--key", stranger, cwd=elsewhere, home=False)
    assert other.returncode == 1 and "NOT intact" in other.stdout and f"signed by another key ({key})" in other.stdout

    replayed = zioncheck("replay", "game.zca", cwd=elsewhere, home=False)
    assert replayed.returncode == 0, replayed.stderr
    assert standings(replayed.stdout) == standings(from_store.stdout)
    assert replayed.stdout.splitlines()[-1] == from_store.stdout.splitlines()[-1], "the same state hash"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["game.zca"], "no server started, nothing made beside it"


async def test_archive_of_a_game_never_archived_says_so_in_one_line_and_writes_nothing(nats_server, tmp_path):
    result = zioncheck("archive", "game-never-played", "-o", "game.zca", *nats_server.cli_args, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("zioncheck archive: ")
    assert not (tmp_path / "game.zca").exists()
