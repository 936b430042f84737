"""The whole path's CPU a command, an earlier commit against the working tree, in turns:
`python -m bench.turns REV [--rounds N] [GAMES ...]` (default 2 rounds, 20 and 120 games).

REV is exported into a folder of its own (`git archive`) with a `.venv` of its own (made once, kept under
.zioncheck/turns/REV for the next run), and the two trees run `bench.peer.whole_path` one after the other,
each round in the other order, so the machine's drift falls on both alike. Prints each run as it ends and
the best of each side, the CPU a command of every process from /proc (bench/service.py).
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = ("import json, sys; from bench.peer import whole_path; found = whole_path(int(sys.argv[1]), None); "
       "print('FOUND ' + json.dumps({k: found[k] for k in ('rate', 'cpu_us', 'p99_ms', 'view_p99_ms')}))")


def tree_of(rev: str) -> Path:
    """REV's files and a virtual environment with them installed, made once."""
    folder = ROOT / ".zioncheck" / "turns" / rev
    if not (folder / ".venv" / ".installed").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
        print(f"installing {rev} into {folder}/.venv (once)", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(folder / ".venv")], check=True)
        subprocess.run([str(folder / ".venv/bin/pip"), "install", "--quiet", "-e", ".[dev,bench]"], cwd=folder,
                       check=True)
        (folder / ".venv" / ".installed").touch()
    return folder


def one(tree: Path, games: int) -> dict:
    done = subprocess.run([str(tree / ".venv/bin/python"), "-c", RUN, str(games)], cwd=tree, capture_output=True,
                          text=True)
    found = [line for line in done.stdout.splitlines() if line.startswith("FOUND ")]
    return json.loads(found[0][6:]) if found else {"failed": done.stderr.strip().splitlines()[-1:]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.turns", description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", help="the earlier commit (a name git knows: HEAD~1, a hash, a tag)")
    parser.add_argument("games", nargs="*", type=int, default=[20, 120], help="concurrent games (default 20 120)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, each side once a round (default 2)")
    args = parser.parse_intermixed_args(argv)
    sides = {args.rev: tree_of(args.rev), "working tree": ROOT}
    found: dict[tuple[str, int], list[dict]] = {}
    for round_ in range(args.rounds):
        order = list(sides.items()) if round_ % 2 == 0 else list(reversed(sides.items()))
        for games in args.games:
            for name, tree in order:
                result = one(tree, games)
                found.setdefault((name, games), []).append(result)
                print(time.strftime("%H:%M:%S"), f"round {round_ + 1}, {games} games, {name}: {result}", flush=True)
    for games in args.games:
        best = {name: min((r["cpu_us"] for r in found[(name, games)] if "cpu_us" in r), default=float("nan"))
                for name in sides}
        before, after = best[args.rev], best["working tree"]
        print(f"{games} games: CPU a command, best of {args.rounds}: {args.rev} {before:,.0f} us, "
              f"working tree {after:,.0f} us ({after / before:.2f} times)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
