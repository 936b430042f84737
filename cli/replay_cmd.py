"""`zioncheck replay`: fold a game's log, tell it hand by hand, check its seeds, hash its state."""
import os
import sys

import msgspec

from zioncheck.application.archive import Damaged, entries_of_record, unpack, unreadable
from zioncheck.application.replay import state_hash
from zioncheck.cli import words
from zioncheck.cli.live import face_for, narrate
from zioncheck.cli.log_reader import read_game_log, tell_skipped
from zioncheck.cli.options import CommandFailed, add_bus
from zioncheck.contracts import events as ev
from zioncheck.contracts.archive import MAGIC
from zioncheck.contracts.log import Entry, NotABatch, decode_entry
from zioncheck.domain import GameState, evolve
from zioncheck.domain.audit import audit
from zioncheck.services.bus.topology import valid_game_key

# What a replay tells: the game hand by hand (each deal, going down, claims won, joker swaps, reshuffles, turns
# and seats a bot took over, each hand's end with its table and scores, its seed), in the live game's words.
TOLD = (ev.GameStarted, ev.HandDealt, ev.WentDown, ev.ClaimWon, ev.JokerSwapped, ev.StockReshuffled,
        ev.StockExhausted, ev.TurnTimedOut, ev.SeatIdle, ev.SeatBack, ev.HandEnded, ev.SeedRevealed,
        ev.GameEnded, ev.GameAbandoned)


def add(sub) -> None:
    p = sub.add_parser("replay", help=words.REPLAY_HELP, description=words.REPLAY_DESCRIPTION)
    p.add_argument("source", metavar=words.METAVAR_SOURCE, help=words.REPLAY_SOURCE_HELP)
    p.add_argument("--archive", metavar=words.METAVAR_DIR, help=words.ARCHIVE_DIR_HELP)
    add_bus(p, words.NATS_URL_EMBEDDED)
    p.set_defaults(func=main)


def main(args) -> int:
    skipped: list[NotABatch] = []
    entries = load(args.source, args.nats_url, args.credentials, args.archive, skipped)
    face, state = face_for(sys.stdout), GameState()
    for entry in entries:
        state = evolve(state, entry.event)
        if isinstance(entry.event, TOLD):
            for line in narrate(entry.event, state, face=face):
                print(line)
    if state.players:
        ranking = sorted(range(state.players), key=lambda seat: state.totals[seat])
        print("\n" + words.REPLAY_STANDINGS.format(seats=", ".join(
            words.say("tell.seat_points", seat=seat, points=state.totals[seat]) for seat in ranking)))
    checked = audit(entries)
    seeds = [words.SEEDS_VERIFIED.format(hands=hands(checked.verified)) if checked.verified
             else words.NO_SEED_VERIFIED]
    if checked.unrevealed:
        seeds.append(words.SEEDS_UNREVEALED.format(hands=hands(checked.unrevealed)))
    print("\n" + "; ".join(seeds))
    if told := tell_skipped(skipped):
        print(told)
    for problem in checked.problems:
        print(words.FAIRNESS_PROBLEM.format(problem=words.say(f"tell.audit.{problem.what}", hand=problem.hand,
                                                                reshuffle=problem.reshuffle)))
    print(words.say("cli.EVENTS_AND_HASH", count=len(entries), hash=state_hash(state)))
    return 1 if checked.problems else 0


def hands(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))


def load(source: str, nats_url: str | None, credentials: str | None, archive: str | None = None,
         skipped: list[NotABatch] | None = None) -> list[Entry]:
    """The log a file holds, or a stored game's (hot or archived), but for the messages of a stored log
    that are no batch, added to `skipped`; CommandFailed, in one line, if there is none to read."""
    skipped = [] if skipped is None else skipped
    if os.path.exists(source):
        return _read_file(source, skipped)
    if valid_game_key(source):
        return read_game_log(source, nats_url, credentials, archive, skipped)
    if source.endswith(".jsonl") or os.sep in source:
        raise CommandFailed(words.NO_SUCH_FILE.format(file=source))
    raise CommandFailed(words.NOT_A_SOURCE.format(source=source))


def _read_file(path: str, skipped: list[NotABatch]) -> list[Entry]:
    """A log file's entries, one a line (JSON lines, as `zioncheck export` writes them), or an archive's
    (a game's archive file replays anywhere, with no server: `zioncheck verify` checks it)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        raise CommandFailed(words.CANNOT_READ.format(file=path, reason=words.os_reason(error))) from None
    if data.startswith(MAGIC):
        try:
            record = unpack(data).record
        except (Damaged, msgspec.MsgspecError) as error:
            raise CommandFailed(words.NOT_AN_ARCHIVE.format(file=path, reason=error)) from None
        skipped += unreadable(record)
        return entries_of_record(record)
    entries = []
    for number, line in enumerate(data.splitlines(), 1):
        if line.strip():
            try:
                entries.append(decode_entry(line))
            except (msgspec.MsgspecError, ValueError, TypeError, KeyError):   # not JSON, or not an event
                raise CommandFailed(words.NOT_A_LOG_LINE.format(file=path, line=number)) from None
    if not entries:
        raise CommandFailed(words.EMPTY_LOG.format(file=path))
    return entries
