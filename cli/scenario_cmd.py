"""`zioncheck scenario FILE.json`: the rules oracle (docs/scenarios.md)."""
import json

from zioncheck.application.scenario import ScenarioError, load, run
from zioncheck.cli import words
from zioncheck.cli.options import CommandFailed, add_bus


def add(sub) -> None:
    p = sub.add_parser("scenario", help=words.SCENARIO_HELP, description=words.SCENARIO_DESCRIPTION)
    p.add_argument("file", metavar=words.METAVAR_FILE, help=words.SCENARIO_FILE_HELP)
    p.add_argument("--nats", action="store_true", help=words.SCENARIO_NATS_HELP)
    add_bus(p)
    p.set_defaults(func=main)


def main(args) -> int:
    try:
        with open(args.file, "rb") as f:
            scenario = load(f.read())
    except OSError as error:
        raise CommandFailed(words.CANNOT_READ.format(file=args.file, reason=words.os_reason(error))) from None
    except ScenarioError as error:   # the oracle's own record of what is wrong, as the scenario's author reads it
        raise CommandFailed(f"{args.file}: {error}") from None
    if args.nats:
        from zioncheck.cli.scenario_over_nats import run_over_nats
        from zioncheck.services.observability import configure_logging
        configure_logging("warning")
        outcome = run_over_nats(scenario, args.nats_url, args.credentials)
    else:
        outcome = run(scenario)
    print(json.dumps(outcome, indent=2))
    return 0

