"""`zioncheck rebuild-views` and `zioncheck view`: the projector's views, recomputed from the logs or read."""
import sys

import msgspec

from zioncheck.cli.options import add_bus
from zioncheck.cli.view_admin import read_view, rebuild_views


def add(sub) -> None:
    p = sub.add_parser("rebuild-views", help="recompute games' public and seat views from their logs",
                       description="Fold each stored game's log (every game, or those named) into its public "
                                   "view and its seats' views and write them to KV zc_views, as the projector "
                                   "does. Safe while the projector runs: a view is never replaced by an older "
                                   "one. With --feed, also purge each game's public feed (zc.feed.<game>) and "
                                   "publish it again from the log; stop the projector first, or a batch it "
                                   "publishes meanwhile may land ahead of the republished ones.")
    p.add_argument("games", nargs="*", metavar="GAME", help="game ids (default: every stored game)")
    p.add_argument("--feed", action="store_true", help="also rebuild the public feed (readers see it again)")
    add_bus(p, "the embedded one's store")
    p.add_argument("--replicas", type=int, help="JetStream replicas if the bucket must be made (an existing "
                                                "stream keeps its own unless this is given)")
    p.set_defaults(func=rebuild)
    p = sub.add_parser("view", help="print a game's public view, or one seat's, as JSON",
                       description="Print the view the projector keeps for a game in KV zc_views: the public "
                                   "one, all a spectator may see, or with --seat that seat's, which adds its "
                                   "own cards.")
    p.add_argument("game", help="the game id")
    p.add_argument("--seat", type=int, help="the seat whose view to print (default: the public view)")
    add_bus(p, "the embedded one's store")
    p.set_defaults(func=view)


def rebuild(args) -> int:
    try:
        done = rebuild_views(args.nats_url, args.games, args.feed, args.replicas, args.credentials,
                             say=lambda line: print(line, flush=True))
    except ValueError as error:
        print(f"zioncheck rebuild-views: {error}", file=sys.stderr)
        return 2
    print(f"rebuilt {len(done)} game{'s' * (len(done) != 1)}")
    return 0


def view(args) -> int:
    try:
        data = read_view(args.nats_url, args.game, args.seat, args.credentials)
    except ValueError as error:
        print(f"zioncheck view: {error}", file=sys.stderr)
        return 2
    sys.stdout.buffer.write(msgspec.json.format(data, indent=2) + b"\n")
    return 0
