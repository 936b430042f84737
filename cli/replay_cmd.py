"""`zioncheck replay`: fold a game's log, tell it hand by hand, check its seeds, hash its state."""
import sys

import msgspec

from zioncheck.application.replay import fold_log, state_hash, story
from zioncheck.cli.options import add_bus
from zioncheck.contracts.log import read_jsonl
from zioncheck.domain.audit import audit


def add(sub) -> None:
    p = sub.add_parser("replay", help="replay a game from its log (a .jsonl file or a stored game id)",
                       description="Fold a game's event log into its final state, print the game hand by "
                                   "hand with the standings, check every revealed seed against its commitment "
                                   "and deal, and print the final state hash.")
    p.add_argument("source", help="a .jsonl log file, or a game id stored in JetStream")
    add_bus(p, "the embedded one")
    p.set_defaults(func=main)


def main(args) -> int:
    try:
        entries = _load(args)
    except (OSError, ValueError, msgspec.DecodeError, msgspec.ValidationError) as error:
        print(f"zioncheck replay: cannot read {args.source}: {error}", file=sys.stderr)
        return 2
    print("\n".join(story(entries)))
    state = fold_log(entries)
    if state.players:
        ranking = sorted(range(state.players), key=lambda seat: state.totals[seat])
        print("\nstandings: " + ", ".join(f"seat {s} {state.totals[s]}" for s in ranking))
    checked = audit(entries)
    print(f"\nseeds verified for hands {checked.verified or 'none'}"
          + (f"; not revealed for {checked.unrevealed}" if checked.unrevealed else ""))
    for problem in checked.problems:
        print(f"FAIRNESS PROBLEM: {problem}")
    print(f"{len(entries)} events; state hash {state_hash(state)}")
    return 1 if checked.problems else 0


def _load(args):
    if args.source.endswith(".jsonl"):
        with open(args.source, encoding="utf-8") as f:
            return read_jsonl(f.read())
    from zioncheck.cli.log_reader import read_game_log
    return read_game_log(args.source, args.nats_url, args.credentials)
