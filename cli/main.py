"""The `zioncheck` command: one subcommand per job, each with its own --help."""
import argparse
import sys

from zioncheck.cli import (
    asyncapi_cmd,
    credentials_cmd,
    games_cmd,
    openapi_cmd,
    play_cmd,
    replay_cmd,
    run_cmd,
    scenario_cmd,
    serve_cmd,
    simulate_cmd,
    views_cmd,
)

SUBCOMMANDS = [run_cmd, play_cmd, serve_cmd, scenario_cmd, simulate_cmd, replay_cmd, games_cmd, views_cmd,
               credentials_cmd, asyncapi_cmd, openapi_cmd]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="zioncheck", description="Zioncheck Table: the contract-rummy game service.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
