"""`zioncheck rebuild-views` and `zioncheck view`: the projector's views, recomputed from the logs or read."""
import sys

import msgspec

from zioncheck.cli import words
from zioncheck.cli.options import add_bus, whole
from zioncheck.cli.view_admin import read_view, rebuild_views


def add(sub) -> None:
    p = sub.add_parser("rebuild-views", help=words.REBUILD_VIEWS_HELP, description=words.REBUILD_VIEWS_DESCRIPTION)
    p.add_argument("games", nargs="*", metavar=words.METAVAR_GAME, help=words.REBUILD_GAMES_HELP)
    p.add_argument("--feed", action="store_true", help=words.REBUILD_FEED_HELP)
    add_bus(p, words.NATS_URL_STORE)
    p.add_argument("--replicas", type=whole, metavar=words.METAVAR_N, help=words.REBUILD_REPLICAS_HELP)
    p.set_defaults(func=rebuild)
    p = sub.add_parser("view", help=words.VIEW_HELP, description=words.VIEW_DESCRIPTION)
    p.add_argument("game", metavar=words.METAVAR_GAME, help=words.GAME_ID_HELP)
    p.add_argument("--seat", type=whole, metavar=words.METAVAR_SEAT, help=words.VIEW_SEAT_HELP)
    add_bus(p, words.NATS_URL_STORE)
    p.set_defaults(func=view)


def rebuild(args) -> int:
    done = rebuild_views(args.nats_url, args.games, args.feed, args.replicas, args.credentials,
                         say=lambda line: print(line, flush=True))
    print(words.say("cli.VIEWS_REBUILT", count=len(done)))
    return 0


def view(args) -> int:
    data = read_view(args.nats_url, args.game, args.seat, args.credentials)
    sys.stdout.buffer.write(msgspec.json.format(data, indent=2) + b"\n")
    return 0
