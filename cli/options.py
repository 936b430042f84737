"""Options several subcommands share, declared once, and the one-line failure they end with."""
from zioncheck.bots import NAMES
from zioncheck.cli import words
from zioncheck.client import Follower, GameClient
from zioncheck.contracts.commands import Limits, StartGame
from zioncheck.contracts.reasons import explain_refusal
from zioncheck.domain.dealing import MAX_PLAYERS, MIN_PLAYERS
from zioncheck.domain.refusal import refusal_of


class CommandFailed(Exception):
    """A failure a person reads: main prints it as one line, `zioncheck COMMAND: <message>`, and exits `code`."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


async def start_game(client: GameClient, follower: Follower, game: str, players: int,
                     seats: list[str] | None = None, pace: float = 0.0) -> None:
    """Open the game, the bots service playing the seats `seats` gives a bot (at `pace` seconds a
    move), or fail in one line with the table's reason."""
    start = StartGame(game_id=game, players=players, seats=seats or [], limits=Limits(bot_seconds=pace))
    started = await client.play(follower, start)
    if refused := refusal_of(started):
        why = explain_refusal(refused.reason, refused.detail, words.language)
        raise CommandFailed(words.START_REFUSED.format(why=why), 1)


def add_bus(p, default: str = "start an embedded one") -> None:
    """Where NATS is and which logins to use."""
    p.add_argument("--nats-url", help=words.NATS_URL_HELP.format(default=default))
    p.add_argument("--credentials", metavar="DIR", help=words.CREDENTIALS_HELP)


def add_seats(p, bots_default: str = "greedy") -> None:
    """--players and --bots: how many seats, and which bot plays each."""
    p.add_argument("--players", type=int, default=4,
                   help=words.PLAYERS_HELP.format(low=MIN_PLAYERS, high=MAX_PLAYERS, default=4))
    p.add_argument("--bots", default=bots_default, help=words.BOTS_HELP.format(names=", ".join(NAMES),
                                                                               default=bots_default))


def check_players(players: int) -> None:
    """R1: CommandFailed unless a game may seat this many, the same range the table keeps."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise CommandFailed(words.PLAYERS_OUT_OF_RANGE.format(low=MIN_PLAYERS, high=MAX_PLAYERS, players=players))


def seat_bots(spec: str, players: int) -> list[str]:
    """The bot of each of `players` seats from `--bots` (names repeated in turn); CommandFailed if either is wrong."""
    check_players(players)
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = [name for name in names if name not in NAMES]
    if not names or unknown:
        raise CommandFailed(words.UNKNOWN_BOT.format(name=unknown[0] if unknown else spec, names=", ".join(NAMES)))
    return [names[i % len(names)] for i in range(players)]
