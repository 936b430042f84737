"""`zioncheck scenario FILE.json`: the rules oracle (docs/scenarios.md)."""
import json
import sys

from zioncheck.application.scenario import ScenarioError, load, run
from zioncheck.cli.options import add_bus


def add(sub) -> None:
    p = sub.add_parser("scenario", help="play one hand from a stacked deal and print the outcome as JSON",
                       description="Play one hand from a scenario file (see docs/scenarios.md) and print, as JSON, "
                                   "what became of each command and the final state. Exit 0 for any valid file "
                                   "(refused commands are results); exit 2 for a malformed one.")
    p.add_argument("file", help="the scenario, as JSON")
    p.add_argument("--nats", action="store_true", help="play it through the real services over NATS")
    add_bus(p, "start an embedded one")
    p.set_defaults(func=main)


def main(args) -> int:
    try:
        with open(args.file, "rb") as f:
            scenario = load(f.read())
    except OSError as error:
        raise SystemExit(_fail(f"cannot read {args.file}: {error.strerror}")) from None
    except ScenarioError as error:
        raise SystemExit(_fail(f"{args.file}: {error}")) from None
    if args.nats:
        from zioncheck.cli.scenario_over_nats import run_over_nats
        from zioncheck.services.observability import configure_logging
        configure_logging("warning")
        outcome = run_over_nats(scenario, args.nats_url, args.credentials)
    else:
        outcome = run(scenario)
    print(json.dumps(outcome, indent=2))
    return 0


def _fail(message: str) -> int:
    print(f"zioncheck scenario: {message}", file=sys.stderr)
    return 2
