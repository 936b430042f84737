"""The command line's papercuts: one seat range everywhere (R1), refused at once in one line; unknown bots in
one line; every option checked before anything starts; a log or game that is not there said in one line; and every
subcommand ends quietly when the reader of its output goes away."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from zioncheck.application.simulation import play_game
from zioncheck.cli import options, play_cmd, run_cmd, serve_cmd
from zioncheck.cli.main import READER_GONE, main
from zioncheck.contracts.log import write_jsonl
from zioncheck.domain.dealing import MAX_PLAYERS, MIN_PLAYERS

STATIC = Path(__file__).parent.parent / "services" / "gateway" / "static"
SEATED = ["run", "play", "simulate"]   # the subcommands that seat players
RANGE = f"{MIN_PLAYERS}..{MAX_PLAYERS}"


def zioncheck(*args: str, stdout=subprocess.PIPE, timeout: float = 30) -> subprocess.CompletedProcess:
    """The command as a person runs it: its own process, so a command that hangs fails the test by timing out."""
    return subprocess.run([sys.executable, "-m", "zioncheck.cli.main", *args], stdout=stdout,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, timeout=timeout)


def one_line_refusal(result: subprocess.CompletedProcess, command: str) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"zioncheck {command}: ")
    return line


@pytest.mark.parametrize("command", SEATED)
@pytest.mark.parametrize("players", [MIN_PLAYERS - 1, MAX_PLAYERS + 1])
def test_r1_a_seat_count_the_table_would_refuse_is_refused_at_once_in_one_line(command, players):
    line = one_line_refusal(zioncheck(command, "--players", str(players)), command)
    assert f"--players must be {RANGE}, not {players}" in line


@pytest.mark.parametrize("command", SEATED)
def test_r1_every_help_says_the_range_the_table_keeps(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert f"--players N seats at the table, {RANGE} (default 4)" in helped
    assert not re.search(r"\b2\.\.20\b", helped)


def test_r1_the_web_form_offers_the_range_the_table_keeps():
    page = (STATIC / "index.html").read_text()
    assert f'id="players" type="number" min="{MIN_PLAYERS}" max="{MAX_PLAYERS}"' in page


def test_r1_the_largest_table_plays_in_process():
    result = zioncheck("simulate", "--players", str(MAX_PLAYERS), "--games", "1", timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"{MAX_PLAYERS - 1:>4}  greedy" in result.stdout


@pytest.mark.parametrize("command", SEATED)
def test_an_unknown_bot_is_refused_in_one_line_that_names_the_bots(command):
    line = one_line_refusal(zioncheck(command, "--bots", "greedy,foo"), command)
    assert line.endswith("unknown bot 'foo': the bots are greedy, random, strong, expert, "
                         "or by level easy (random), normal (greedy), hard (strong)")


@pytest.mark.parametrize("command", SEATED)
def test_r24_an_unknown_game_is_refused_in_one_line_that_names_the_games(command):
    line = one_line_refusal(zioncheck(command, "--rules", "canasta"), command)
    assert line.endswith("unknown game 'canasta': the games are zioncheck, contract, liverpool")


@pytest.mark.parametrize("preset", ["contract", "liverpool"])
def test_r24_simulate_plays_the_game_rules_names(preset, tmp_path):
    result = zioncheck("simulate", "--rules", preset, "--games", "1", "--players", "3", "--log", str(tmp_path),
                       timeout=120)
    assert result.returncode == 0, result.stderr
    [log] = tmp_path.glob("*.jsonl")
    assert f'"rules":{{"preset":"{preset}"}}' in log.read_text().splitlines()[0]


def test_a_seat_off_the_table_is_refused_in_one_line():
    line = one_line_refusal(zioncheck("play", "--players", "3", "--seat", "3"), "play")
    assert line.endswith("--seat must be 0..2 at a table of 3, not 3")


@pytest.fixture(scope="module")
def game_log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("log") / "game.jsonl"
    path.write_bytes(write_jsonl(play_game(["greedy", "greedy"], "7", "pipe-game").log))
    return path


@pytest.mark.parametrize("args", [["replay", "{log}"], ["simulate", "--games", "2"], ["asyncapi"], ["--help"],
                                  ["replay", "--help"]], ids=" ".join)
def test_every_subcommand_ends_quietly_when_the_reader_of_its_output_is_gone(args, game_log):
    read, write = os.pipe()
    os.close(read)   # as `| head` does once it has read its lines: every write finds no reader
    try:
        result = zioncheck(*(a.format(log=game_log) for a in args), stdout=write)
    finally:
        os.close(write)
    assert result.stderr == ""
    assert result.returncode == (0 if "--help" in args else READER_GONE)   # argparse's help ignores it itself


@pytest.mark.parametrize("command", [["serve", "table"], ["games"], ["replay", "some-game"], ["run"], ["history"],
                                     ["export", "--parquet", "season"]])
def test_a_server_that_does_not_answer_is_said_in_one_line(command, tmp_path):
    result = zioncheck(*command, "--nats-url", "nats://127.0.0.1:1", "--credentials", str(tmp_path), timeout=20)
    assert result.returncode == 2
    assert "cannot reach NATS at nats://127.0.0.1:1" in one_line_refusal(result, command[0])


def test_a_login_missing_from_the_credentials_folder_is_said_in_one_line(tmp_path):
    from zioncheck.services.bus.embedded import NatsServer
    server = NatsServer(tmp_path / "jetstream")
    try:
        result = zioncheck("serve", "table", "--nats-url", server.url, "--credentials", str(tmp_path / "empty"))
    finally:
        server.stop()
    assert result.returncode == 2
    assert "no credentials for 'table'" in one_line_refusal(result, "serve")


@pytest.mark.parametrize(("argv", "reason"), [
    (["run", "--pace", "-1"], "--pace must be 0..10, not -1"),
    (["run", "--pace", "10.5"], "--pace must be 0..10, not 10.5"),
    (["run", "--metrics-port", "70000"], "--metrics-port must be 0..65535, not 70000"),
    (["play", "--pace", "-0.5"], "--pace must be 0..10, not -0.5"),
    (["serve", "--port", "65536"], "--port must be 0..65535, not 65536"),
    (["serve", "--open-games", "0"], "--open-games must be at least 1, not 0"),
    (["serve", "--idle-minutes", "-1"], "--idle-minutes must be more than 0, not -1"),
], ids=" ".join)
def test_a_bad_option_is_refused_in_one_line_naming_it_before_anything_starts(argv, reason, monkeypatch, capsys):
    """The bounds the table keeps (the bots' pace, R19-R21's Limits) and a port's: exit 2 at once, NATS not started."""
    def start(*args, **kwargs):
        raise AssertionError("started before every option was checked")
    for command in (run_cmd, play_cmd, serve_cmd):
        monkeypatch.setattr(command, "bus", start)
    monkeypatch.setattr(options.observability, "serve_metrics", start)
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [f"zioncheck {argv[0]}: {reason}"]


@pytest.mark.parametrize("value", ["x", "nan", "inf"])
def test_a_pace_that_is_no_number_is_refused_by_name(value):
    result = zioncheck("run", "--pace", value)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == f"zioncheck run: error: argument --pace: not a number: '{value}'"


def test_a_missing_log_file_or_an_unknown_game_id_is_said_in_one_line_with_no_server(tmp_path):
    missing = tmp_path / "game.jsonl"
    assert one_line_refusal(zioncheck("replay", str(missing)), "replay").endswith(f"no such file: {missing}")
    assert one_line_refusal(zioncheck("replay", "game 1"), "replay").endswith(
        "game 1 is neither a file nor a game id (letters, digits, - and _)")
    (tmp_path / "notes.jsonl").write_text('{"seq": 1}\n')
    assert one_line_refusal(zioncheck("replay", str(tmp_path / "notes.jsonl")), "replay").endswith(
        "is not a game log: line 1 holds no event")
    assert one_line_refusal(zioncheck("replay", str(tmp_path)), "replay").endswith(
        f"cannot read {tmp_path}: it is a folder")
