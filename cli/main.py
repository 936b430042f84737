"""The `zioncheck` command: one subcommand per job, each with its own --help.

Whatever a subcommand fails with that a person should read is one line on stderr here
(options.CommandFailed); and when the reader of its output goes away (`| head`), the
command ends quietly, with the status a shell gives a command that SIGPIPE stopped.
"""
import argparse
import contextlib
import os
import sys

import nats.errors
import structlog

from zioncheck.cli import (
    archive_cmd,
    asyncapi_cmd,
    credentials_cmd,
    games_cmd,
    history_cmd,
    migrate_cmd,
    openapi_cmd,
    play_cmd,
    replay_cmd,
    run_cmd,
    scenario_cmd,
    serve_cmd,
    simulate_cmd,
    verify_cmd,
    views_cmd,
    words,
)
from zioncheck.cli.options import CommandFailed
from zioncheck.contracts.languages import LANGUAGES
from zioncheck.services.bus.access import NoLogin
from zioncheck.services.bus.topology import NoPartitions, PartitionMismatch
from zioncheck.services.observability import configure_logging

SUBCOMMANDS = [run_cmd, play_cmd, serve_cmd, scenario_cmd, simulate_cmd, replay_cmd, games_cmd, history_cmd,
               views_cmd, migrate_cmd, credentials_cmd, archive_cmd, verify_cmd, asyncapi_cmd, openapi_cmd]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="zioncheck", description=words.ZIONCHECK_DESCRIPTION)
    p.add_argument("--lang", choices=LANGUAGES, help=words.LANG_HELP)   # read before parsing: see main
    sub = p.add_subparsers(dest="command", required=True, metavar=words.METAVAR_COMMAND)
    for module in SUBCOMMANDS:
        module.add(sub)
    return p


READER_GONE = 128 + 13   # 128 + SIGPIPE, as a shell reports a command its pipe's reader stopped


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not structlog.is_configured():   # a line the house logs goes to stderr, never into a command's output
        configure_logging("warning")
    try:
        # The language comes first, as the help and every word depend on it: --lang anywhere, or the environment.
        words.use(words.choose_language(argv, os.environ))
    except words.UnknownLanguage as failure:
        print(f"zioncheck: {failure}", file=sys.stderr)
        return 2
    try:
        args = parser().parse_args(_without_lang(argv))
        try:
            return args.func(args) or 0
        except CommandFailed as failure:
            print(f"zioncheck {args.command}: {failure}", file=sys.stderr)
            return failure.code
        except BrokenPipeError:
            raise  # the reader went away: handled below, quietly
        except (PartitionMismatch, NoPartitions) as error:  # the store's or server's partitions, in one line
            print(f"zioncheck {args.command}: {error}", file=sys.stderr)
            return 2
        except ConnectionError:  # no server answers at the address given
            where = getattr(args, "nats_url", None) or words.EMBEDDED_NATS
            print(f"zioncheck {args.command}: {words.NO_NATS.format(where=where)}", file=sys.stderr)
            return 2
        except (nats.errors.NoServersError, nats.errors.ConnectionClosedError) as error:
            where = getattr(args, "nats_url", None) or words.EMBEDDED_NATS
            print(f"zioncheck {args.command}: {words.NATS_REFUSED.format(where=where, error=error)}",
                  file=sys.stderr)
            return 2
        except NoLogin as error:
            print(f"zioncheck {args.command}: {words.NO_LOGIN.format(user=error.user, folder=error.folder)}",
                  file=sys.stderr)
            return 2
        except PermissionError as error:
            print(f"zioncheck {args.command}: {error}", file=sys.stderr)
            return 2
    except KeyboardInterrupt:
        print(words.INTERRUPTED, file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return READER_GONE


def _without_lang(argv: list[str]) -> list[str]:
    """`argv` without its --lang, which any subcommand takes and main has already read."""
    out, skip = [], False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
        elif arg == "--lang" and i + 1 < len(argv):
            skip = True
        elif not arg.startswith("--lang="):
            out.append(arg)
    return out


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that nothing left in its buffer fails again when Python exits."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
