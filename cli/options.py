"""Options several subcommands share, declared once; the checks every option passes before a command starts
anything; and the one-line failure a command ends with."""
import argparse
import math
import os
import sys
from dataclasses import dataclass

import msgspec

from zioncheck.bots import NAMES
from zioncheck.cli import words
from zioncheck.client import Follower, GameClient
from zioncheck.contracts.commands import (
    BOT_LEVELS,
    DEFAULT_RULES,
    PRESETS,
    STARTER,
    ZIONCHECK,
    Limits,
    Rules,
    StartGame,
)
from zioncheck.contracts.events import GameStarted
from zioncheck.contracts.reasons import explain_refusal
from zioncheck.domain.dealing import MAX_PLAYERS, MIN_PLAYERS
from zioncheck.domain.refusal import refusal_of
from zioncheck.domain.timers import LIMIT_BOUNDS
from zioncheck.services import observability
from zioncheck.services.bots.service import BotsService

PACE = LIMIT_BOUNDS["bot_seconds"]   # the bots' pause before each move: the bounds the table keeps
PORTS = (0, 65535)
DEFAULT_LIMITS = Limits()   # a game's clock as StartGame sets it (R19-R23)
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


class CommandFailed(Exception):
    """A failure a person reads: main prints it as one line, `zioncheck COMMAND: <message>`, and exits `code`."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


@dataclass
class Opened:
    """The game a command opens: its id, known before it starts, and whether the table has started it."""
    id: str
    started: bool = False


async def start_game(client: GameClient, follower: Follower, game: str, players: int,
                     seats: list[str] | None = None, pace: float = 0.0, seed: int | None = None,
                     opened: Opened | None = None, limits: Limits = DEFAULT_LIMITS,
                     rules: Rules = DEFAULT_RULES) -> BotsService:
    """Open the game and play the seats `seats` gives a bot (at `pace` seconds a move) in this
    program, the game's start saying so (no bots service sits down at them); or fail in one line
    with the table's reason. `opened` is marked once the table has started it; `limits`, the game's
    clock (R19-R23); `rules`, the game played (R24). Returns the bots, to stop once the game is over."""
    start = StartGame(game_id=game, players=players, seats=seats or [], bots_by=STARTER,
                      limits=msgspec.structs.replace(limits, bot_seconds=pace), rules=rules)
    started = await client.play(follower, start)
    if refused := refusal_of(started):
        why = explain_refusal(refused.reason, refused.detail, words.language)
        raise CommandFailed(words.START_REFUSED.format(why=why), 1)
    if opened is not None:
        opened.started = True
    bots = BotsService(client.nc, client.js, seed=seed)
    if isinstance(started[0], GameStarted):
        bots.play(game, started[0])
    return bots


def replay_hint(game: str) -> str:
    """The lines that say how to replay `game`, naming this command as the person called it
    (.venv/bin/zioncheck after `make run`)."""
    return words.REPLAY_IT.format(me=me(), game=game)


def me() -> str:
    """This command as the person called it, for the commands it tells them to run next: .venv/bin/zioncheck
    after `make run`, else zioncheck."""
    path = os.path.relpath(sys.argv[0]) if sys.argv and sys.argv[0] else "zioncheck"
    return path if path.startswith(".venv") else "zioncheck"


# --- declaring options ------------------------------------------------------------------------------------------

def add_bus(p, default: str | None = None) -> None:
    """Where NATS is and which logins to use; `default` says what happens without --nats-url."""
    p.add_argument("--nats-url", metavar=words.METAVAR_URL,
                   help=words.NATS_URL_HELP.format(default=default or words.NATS_URL_START))
    p.add_argument("--credentials", metavar=words.METAVAR_DIR, help=words.CREDENTIALS_HELP)


def add_seats(p, bots_default: str = "greedy") -> None:
    """--players, --bots and --rules: how many seats, which bot plays each, and the game played (R24)."""
    p.add_argument("--players", type=whole, default=4, metavar=words.METAVAR_N,
                   help=words.PLAYERS_HELP.format(low=MIN_PLAYERS, high=MAX_PLAYERS, default=4))
    p.add_argument("--bots", default=bots_default, metavar=words.METAVAR_BOTS,
                   help=words.BOTS_HELP.format(names=", ".join(NAMES), levels=levels(), default=bots_default))
    p.add_argument("--rules", default=ZIONCHECK, metavar=words.METAVAR_RULES,
                   help=words.RULES_HELP.format(names=", ".join(PRESETS), default=ZIONCHECK))


def add_pace(p, default: float, help_word: str) -> None:
    """--pace: the bots' pause before each move, in seconds."""
    p.add_argument("--pace", type=number, default=default, metavar=words.METAVAR_SECONDS,
                   help=help_word.format(low=f"{PACE[0]:g}", high=f"{PACE[1]:g}", default=f"{default:g}"))


def add_service_options(p, log_default: str) -> None:
    """--metrics-port and --log-level, of the commands that run services."""
    p.add_argument("--metrics-port", type=whole, default=0, metavar=words.METAVAR_PORT,
                   help=words.METRICS_PORT_HELP)
    p.add_argument("--log-level", type=str.lower, choices=LOG_LEVELS, default=log_default,
                   help=words.LOG_LEVEL_HELP.format(default=log_default))


def whole(text: str) -> int:
    """A whole number given to an option; argparse names the option when this refuses the text."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(words.NOT_A_WHOLE_NUMBER.format(value=text)) from None


def number(text: str) -> float:
    """A number given to an option (not nan, not inf); argparse names the option when this refuses the text."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(words.NOT_A_NUMBER.format(value=text))
    return value


# --- checking options, before anything starts -------------------------------------------------------------------

def check_players(players: int) -> None:
    """R1: CommandFailed unless a game may seat this many, the same range the table keeps."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise CommandFailed(words.PLAYERS_OUT_OF_RANGE.format(low=MIN_PLAYERS, high=MAX_PLAYERS, players=players))


def check_range(option: str, value: float, low: float, high: float) -> None:
    """CommandFailed naming `option` unless `value` is within low..high."""
    if not low <= value <= high:
        raise CommandFailed(words.OPTION_OUT_OF_RANGE.format(option=option, low=f"{low:g}", high=f"{high:g}",
                                                             value=f"{value:g}"))


def check_pace(pace: float) -> None:
    """The bots' pace within the bounds the table keeps, which would otherwise refuse the game once NATS is up."""
    check_range("--pace", pace, *PACE)


def check_service_options(args) -> None:
    """--metrics-port a port (--log-level's choices argparse checks)."""
    check_range("--metrics-port", args.metrics_port, *PORTS)


def game_rules(name: str) -> Rules:
    """R24: the rules `--rules` names; CommandFailed for a game the table does not play."""
    if name not in PRESETS:
        raise CommandFailed(words.UNKNOWN_RULES.format(name=name, names=", ".join(PRESETS)))
    return Rules(preset=name)  # type: ignore[arg-type]  # one of PRESETS


def seat_bots(spec: str, players: int) -> list[str]:
    """The bot of each of `players` seats from `--bots` (names or levels, repeated in turn), each by its name;
    CommandFailed if either is wrong."""
    check_players(players)
    names = [BOT_LEVELS.get(name, name) for name in (given.strip() for given in spec.split(",")) if name]
    unknown = [name for name in names if name not in NAMES]
    if not names or unknown:
        raise CommandFailed(words.UNKNOWN_BOT.format(name=unknown[0] if unknown else spec, names=", ".join(NAMES),
                                                     levels=levels()))
    return [names[i % len(names)] for i in range(players)]


def levels() -> str:
    """The levels `--bots` takes, each with the bot that plays it: `easy (random), normal (greedy), hard (strong)`."""
    return ", ".join(f"{level} ({name})" for level, name in BOT_LEVELS.items())


def serve_metrics(port: int) -> None:
    """Prometheus metrics on `port` (none for 0), or CommandFailed if that port cannot be served."""
    try:
        observability.serve_metrics(port)
    except OSError as error:
        raise CommandFailed(words.CANNOT_SERVE_METRICS.format(port=port, reason=words.os_reason(error))) from None
