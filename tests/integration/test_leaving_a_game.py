"""However a game at the terminal ends before its end (`quit`, the end of the input, Ctrl-C), `zioncheck play` and
`zioncheck run` say which game it was and how to replay it, in the reader's language, with no traceback; and the
replay they name tells the game as far as it went. (The services a command started may log a warning of their own
on the way out, a bot's move that found them stopping: that is the services' log, not the command's words.)"""
import os
import re
import signal
import subprocess
import sys

ZIONCHECK = [sys.executable, "-m", "zioncheck.cli.main"]


def started(*args: str, language: str = "en") -> subprocess.Popen:
    """`zioncheck ARGS` as a terminal starts it: in a process group of its own, which Ctrl-C reaches whole, and
    hearing Ctrl-C (a suite run as a background job would hand it down ignored)."""
    return subprocess.Popen([*ZIONCHECK, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=_hears_ctrl_c,
                            env={**os.environ, "LANGUAGE": language, "PYTHONIOENCODING": "utf-8"})


def _hears_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted_once(process: subprocess.Popen, after: str) -> tuple[str, str]:
    """Ctrl-C once the output has said `after`; all the process wrote, out and err."""
    seen = []
    while after not in (line := process.stdout.readline()):
        assert line, "".join(seen) + process.stderr.read()
        seen.append(line)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    return "".join(seen) + line + out, err


def replayed(game: str, cli_args: list[str]) -> str:
    result = subprocess.run([*ZIONCHECK, "replay", game, *cli_args], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "LANGUAGE": "en"})
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_ctrl_c_in_run_says_the_game_and_how_to_replay_it_as_far_as_it_went(nats_server):
    out, err = interrupted_once(started("run", "--pace", "0.05", *nats_server.cli_args), after="=== Hand 1")
    assert err.splitlines()[-1:] == ["interrupted"] and "Traceback" not in err, err
    game = re.search(r"^Game (game-[0-9a-f]+) stopped before its end\.$", out, re.M)[1]
    assert f"Replay it: zioncheck replay {game}" in out
    assert f"Game {game}: 4 players" in replayed(game, nats_server.cli_args)


def test_ctrl_c_in_play_says_the_game_in_the_readers_language(nats_server):
    out, err = interrupted_once(started("play", "--pace", "0.05", *nats_server.cli_args, language="ru"),
                                after="=== Раздача 1")
    assert err.splitlines()[-1:] == ["прервано"] and "Traceback" not in err, err
    game = re.search(r"^Вы вышли из игры (play-[0-9a-f]+)\.$", out, re.M)[1]
    assert f"Повтор: zioncheck replay {game}" in out


def test_quit_or_the_end_of_input_in_play_says_the_game_and_how_to_replay_it(nats_server):
    for typed in ("quit\n", ""):
        result = subprocess.run([*ZIONCHECK, "play", "--pace", "0", *nats_server.cli_args], input=typed,
                                capture_output=True, text=True, timeout=60, env={**os.environ, "LANGUAGE": "es"})
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        game = re.search(r"^Has dejado la partida (play-[0-9a-f]+)\.$", result.stdout, re.M)[1]
        assert f"Repítela: zioncheck replay {game}" in result.stdout
        assert f"Game {game}:" in replayed(game, nats_server.cli_args)
