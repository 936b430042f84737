"""The archiver: each finished game's signed archive, and, once its retention has run, the game out of the
hot streams (docs/history.md, The archiver).

Archiving, when a game ends (the log's hand batch with GameEnded, which an abandoned game's holds too):

1. Settled? The game must still be over in its log (an end delivered again once the game has left the
   hot streams finds nothing to do). Its pending deadline is taken out (a game over takes no timeout);
   then the table must have decided every command stored for the game (its consumer's ack floor), and
   every hand the dealer dealt must have its seed revealed (a stacked game's starter deals, with no
   seeds). Not yet:
   the end comes again a little later (nak with a delay), for SETTLE_SECONDS after the game ended at
   most; then the game is archived as the store holds it, and that is said.
2. The record: the game's commands and log batches as its partition's streams stored them (the log up to
   the last batch a command of the record caused), and the standings folded from its hand batches as
   the scoring service folds them (domain/standings.py), made into a GameRecord, packed and signed.
3. The store: written under `<game key>.zca`, read back, and checked: the same bytes, and `verify`
   with the house's public key finds nothing (but seeds never revealed, which the record shows itself).
4. The index: one IndexEntry on zc.history.<tenant>.<game>, which ZC_HISTORY keeps for ever and never
   lets be replaced.
5. The removal: a message schedule on zc.removal.<key> for the game's end plus the retention, naming
   what the archive holds.

Only then is the end acked. Killed at any point, the end is delivered again (to this instance once it
is back, or to another) and each step is done again or found done: packing is deterministic, so a
game's archive written again is the same file; an archive already under the name is kept when it is
this game's and intact (one content a game, even when the streams grew meanwhile); the index entry
found is checked to be this game's.

Removal, when the server delivers zc.remove.<key> (with its schedule's Nats-Scheduler mark, which no
client can set): the game must be over in its log (a game in play is never touched), indexed, and its
archive in the store. Then the record of its removal is written beside its index entry (kept for ever),
and its commands up to the last one archived, its pending deadline, its log up to the last batch archived,
its feed, scores, views, standings, mark in the register of games in play and seeds are purged, in that
order (the log after the commands: a game whose log is left is over and takes nothing); all that once more
AGAIN_SECONDS later, for a writer that read the game just before, and then the removal itself goes.
A message stored after the archive was made stays, and is counted; so does one in a stream made
denying purges, which the server never lifts (a store made before archives).

What comes back: nats-server 2.15.1, started again after an unclean shutdown, brings back messages a stream
dropped for its subject's limit wherever the last on that subject was purged since (a removed game's first
standings, its views, its mark in the register). On its start and on every server it comes to, the
archiver takes out again, as their records say, whatever of removed games is there (`recheck`).
"""
import asyncio
import calendar
import contextlib
import datetime
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import msgspec
import structlog
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import RawStreamMsg
from nats.js.errors import APIError, DigestMismatchError, NotFoundError

from zioncheck.application.archive import Damaged, NotOver, make_record, pack, unpack, verify
from zioncheck.contracts.archive import Archive, GameRecord, IndexEntry, Removal, Removed, StoredBatch, StoredCommand
from zioncheck.contracts.events import GameEnded, GameStarted, HandDealt, SeedRevealed
from zioncheck.contracts.log import Batch, decode_batch, encode, readable
from zioncheck.domain import standings as fold_standings
from zioncheck.services.archive_store import ArchiveStore, TooLarge
from zioncheck.services.bus import tasks
from zioncheck.services.bus.access import server_id
from zioncheck.services.bus.consumers import Again
from zioncheck.services.bus.log_store import batches as log_batches
from zioncheck.services.bus.log_store import due_at, ended, last_seq, per_game, read_stored, subject_counts
from zioncheck.services.bus.publish import publish_stored
from zioncheck.services.bus.topology import (
    ANY_GAME,
    FEED,
    HISTORY,
    OPEN,
    OPEN_SUBJECTS,
    REMOVAL_SUBJECTS,
    REMOVALS,
    REMOVE_SUBJECTS,
    SCHEDULER_HEADER,
    SCORES,
    SEEDS,
    STANDINGS,
    VIEWS,
    commands_stream,
    feed_subject,
    game_of,
    history_subject,
    kv_stream,
    kv_subject,
    layout,
    log_stream,
    log_subject,
    open_subject,
    origin_of,
    removal_headers,
    removal_subject,
    remove_subject,
    removed_subject,
    schedule_subject,
    score_subject,
    seed_key,
    standings_key,
    stored_command_subject,
    tenant_of,
    view_keys,
)
from zioncheck.services.history import Unreadable, entry_of
from zioncheck.services.observability import (
    ARCHIVE_BYTES,
    ARCHIVE_FAILURES,
    ARCHIVE_WAITS,
    CAME_BACK,
    GAMES_ARCHIVED,
    GAMES_REMOVED,
    LEFT_HOT,
    skipped,
)

log = structlog.get_logger("archiver")

DAY = 86_400.0
DEFAULT_RETENTION = DAY          # how long a finished game stays hot after it ends (--retention)
MAX_RETENTION = 3_650 * DAY      # ten years: past that, keep the games hot by not running the archiver
SETTLE_SECONDS = 600.0           # how long an ended game waits for its last commands and seeds before it is archived
FIRST_WAIT, LONGEST_WAIT = 0.25, 30.0   # a game's end comes again after these, doubling, while it waits or fails
WORKING_SECONDS = 1.0            # how often a delivery being worked on is said to be (its ack_wait is 2 s)
AGAIN_SECONDS = 5.0              # a removal is done once more this long after the first, for a writer late with a game
SERVER_CHECK_SECONDS = 2.0       # how often the archiver looks whether its server is one it has rechecked
TABLES = "zc-tables"             # the table's consumer of each commands stream (services/wiring.py)
GAME_ENDED = b'"game_ended"'     # in a log batch's JSON when it holds GameEnded: the rest are acked undecoded
PURGE_DENIED = 10110             # the server's error code for a purge of a stream made denying purges
# A fault a recovery check injects: the archiver kills itself (SIGKILL) at the step this names (FAULTS).
FAULT_AT = "ZIONCHECK_ARCHIVER_FAULT_AT"
FAULTS = ("written", "indexed", "scheduled", "purging")


@dataclass(frozen=True)
class Archived:
    """A game's archive as the store and the index hold it."""
    record: GameRecord
    where: str
    size: int


class ArchiverService:
    """Fed the hand batches of every partition's log and the removals that fall due (services/wiring.py)."""

    def __init__(self, js: JetStreamContext, store: ArchiveStore, signing_key: bytes, public_key: str,
                 retention: float = DEFAULT_RETENTION):
        self.js, self.store = js, store
        self.signing_key, self.public_key = signing_key, public_key
        self.retention = retention
        self.sealed: dict[str, bool] = {}   # whether each log stream denies purges (_sealed)
        self.rechecked: set[str] = set()    # the servers (by id) on which what came back of removed games is out
        self.watch: asyncio.Task | None = None

    async def on_stored(self, raw: Msg) -> None:
        """One delivery: a hand batch of a log, or a removal due. Raises Again to have it come back later."""
        if raw.subject.startswith("zc.log."):
            if GAME_ENDED in raw.data and any(isinstance(e, GameEnded) for e in decode_batch(raw.data).events):
                await self._working(raw, self._archive_ended(raw))
        elif raw.subject.startswith("zc.remove."):
            await self._working(raw, self._remove_due(raw))

    async def _working(self, raw: Msg, work) -> None:
        """Do `work`, telling the server every WORKING_SECONDS that the delivery is being worked on."""
        async def say() -> None:
            while True:
                await asyncio.sleep(WORKING_SECONDS)
                with contextlib.suppress(Exception):
                    await raw.in_progress()
        saying = asyncio.ensure_future(say())
        try:
            await work
        finally:
            await tasks.stop([saying])

    # --- archiving --------------------------------------------------------------------------------------

    async def _archive_ended(self, raw: Msg) -> None:
        key = game_of(raw.subject)
        delivered = raw.metadata.num_delivered or 1
        ended_at = raw.metadata.timestamp.timestamp() if raw.metadata.timestamp else time.time()
        try:
            archived = await self.archive(key, patient=time.time() - ended_at < SETTLE_SECONDS)
        except Waiting as waiting:
            ARCHIVE_WAITS.labels(waiting.what).inc()
            raise Again(_wait(delivered)) from None
        except Failed as failure:
            ARCHIVE_FAILURES.labels(failure.step).inc()
            log.error("archive_failed", game=key, step=failure.step, error=str(failure)[:300], delivered=delivered)
            raise Again(_wait(delivered)) from None
        except (Again, asyncio.CancelledError):
            raise
        except Exception as error:  # noqa: BLE001 - the store or the bus: tried again, the game stays hot meanwhile
            ARCHIVE_FAILURES.labels("bus").inc()
            log.error("archive_failed", game=key, step="bus", error=repr(error)[:300], delivered=delivered)
            raise Again(_wait(delivered)) from None
        if archived is None:
            return
        done, again = archived
        if not again:
            GAMES_ARCHIVED.inc()
            ARCHIVE_BYTES.inc(done.size)
        manifest = done.record.manifest
        log.info("game_archived", game=key, where=done.where, store=str(self.store), bytes=done.size,
                 commands=manifest.commands, batches=manifest.batches, hands=manifest.hands, outcome=manifest.outcome,
                 again=again)

    async def archive(self, key: str, patient: bool = True) -> tuple[Archived, bool] | None:
        """Archive the game `key`, which has ended: the archive, and whether it was found archived and indexed
        already (a delivery again after a crash). None when there is nothing to archive (the game's end is gone
        from its log) or it cannot be indexed (its id is another archived game's: said and counted). Raises
        Waiting while the game is not settled (when `patient`), Failed for a step that failed."""
        where = await layout(self.js)
        p = where.of(key)
        if not await ended(self.js, p, key, "archiver"):   # its end is gone from its log (so may be a game after it)
            return await self._gone(key)
        await self._no_deadline(p, key)
        commands, batches, waiting = await self._settled(p, key)
        if not any(isinstance(e, GameEnded) for _, batch in batches if batch for e in batch.events):
            return await self._gone(key)
        if waiting and patient:
            raise Waiting(waiting)
        if waiting:
            log.warning("archived_unsettled", game=key, waited_for=waiting, seconds=SETTLE_SECONDS)
        # Folding, packing and checking a game take milliseconds of CPU: in a thread, beside the other services.
        archived = await self._store(await asyncio.to_thread(self._record, key, commands, batches))
        _fault("written")
        indexed = await self._index(archived)
        if not indexed:
            return None
        _fault("indexed")
        await self._schedule_removal(archived)
        _fault("scheduled")
        return archived, indexed == "found"

    async def _no_deadline(self, partition: int, key: str) -> None:
        """A game over takes no timeout: its pending deadline, if any, comes out before its commands are read,
        so none is stored after its record is made."""
        await self.js.purge_stream(commands_stream(partition), subject=schedule_subject(partition, key))

    async def _settled(self, partition: int, key: str
                       ) -> tuple[list[RawStreamMsg], list[tuple[RawStreamMsg, Batch | None]], str]:
        """The game's commands and the log batches they caused, as stored; and what the game still waits for
        ("" when nothing): the table's decision of a command, a hand's seed. A message of the log that is no
        batch (None beside it) is kept where it stands, as the log holds it: the record is what was stored,
        and the game's fold skips it as the table did (said and counted)."""
        stream, subject = commands_stream(partition), stored_command_subject(partition, key)
        commands, _ = await read_stored(self.js, stream, subject, whole=True,
                                        at_least=await last_seq(self.js, stream, subject))
        last = commands[-1].seq if commands else 0
        try:
            decided = (await self.js.consumer_info(stream, TABLES)).ack_floor.stream_seq or 0
        except NotFoundError:
            decided = 0
        logs, log_filter = log_stream(partition), log_subject(partition, key)
        # At least as far as the stream's leader holds the game (read your writes); not as far as the end delivered,
        # which is gone from a game removed already (its end delivered again after a crash).
        found, _ = await read_stored(self.js, logs, log_filter, whole=True,
                                     at_least=await last_seq(self.js, logs, log_filter))
        decoded = dict(log_batches([(msg.seq, msg.data or b"") for msg in found], key, "archiver"))
        batches: list[tuple[RawStreamMsg, Batch | None]] = []
        for msg in found:
            batch = decoded.get(msg.seq)
            if batch is not None and batch.cause > last:   # caused by a command stored after the commands were read
                break
            batches.append((msg, batch))
        if decided < last:
            return commands, batches, "table"
        return commands, batches, "seed" if _unrevealed(batch for _, batch in batches if batch) else ""

    async def _gone(self, key: str) -> None:
        """The game's end is no longer in its log: archived and removed already (its end delivered again after
        a crash), which its index entry says; or taken out by other hands, which is said and counted. Either
        way there is nothing to archive, and the end is not asked for again."""
        tenant, game = tenant_of(key)
        try:   # from the index's leader: a replica behind would not have an entry just written
            await self.js.get_msg(HISTORY, subject=history_subject(tenant, game))
        except NotFoundError:
            ARCHIVE_FAILURES.labels("gone").inc()
            log.error("archive_failed", game=key, step="gone",
                      error="the game's end is no longer in its log, and it was never archived")
        return None

    def _record(self, key: str, commands: list[RawStreamMsg], batches: list[tuple[RawStreamMsg, Batch | None]]
                ) -> GameRecord:
        tenant, game = tenant_of(key)
        boundaries = [(msg.seq, batch) for msg, batch in batches if batch is not None and _kind(msg) == "hand"]
        standings, _ = fold_standings.of_boundaries(boundaries)
        try:
            return make_record(
                tenant=tenant, game=game, key=key,
                commands=[StoredCommand(seq=m.seq or 0, origin=origin_of(m.subject or ""), at=_nanos(m),
                                        data=m.data or b"") for m in commands],
                batches=[StoredBatch(seq=m.seq or 0, kind=_kind(m), at=_nanos(m), data=m.data or b"",
                                     due_at=due_at(m.headers)) for m, _ in batches],
                standings=encode(standings) if standings is not None else b"")
        except (NotOver, ValueError) as error:
            raise Failed("record", f"no record can be made of the game as stored: {error!r}") from None

    async def _store(self, record: GameRecord) -> Archived:
        """The archive written (or found written: this game's, intact), read back and checked."""
        data = await asyncio.to_thread(pack, record, self.signing_key)
        manifest = record.manifest
        where = f"{manifest.key}.zca"
        existing = await self._read(where)
        theirs = await self._intact(existing) if existing not in (None, data) else None
        if theirs is not None and theirs.record.manifest.started_at != manifest.started_at:
            where = f"{manifest.key}.{manifest.started_at}.zca"   # the id of an earlier game, archived under it
            existing = await self._read(where)
            theirs = await self._intact(existing) if existing not in (None, data) else None
        if theirs is not None and theirs.record.manifest.started_at == manifest.started_at:
            # This game's, made from an earlier look at its streams: kept, so that a game has one content.
            data, record = existing, theirs.record
        elif existing not in (None, data):
            log.warning("archive_rewritten", game=manifest.key, where=where,
                        why="the store held a damaged archive under its name")
        if existing != data:
            try:
                await self.store.put(where, data)
            except (ValueError, TooLarge) as error:
                raise Failed("write", f"{self.store} cannot hold {where}: {error!r}") from None
        back = await self._read(where)
        if back != data:
            raise Failed("read_back", f"{self.store} gave back {len(back or b'')} bytes for {where}, not the "
                                      f"{len(data)} written")
        problems = await asyncio.to_thread(self._problems, back)
        if problems:
            raise Failed("verify", f"the archive read back from {where} does not verify: "
                                   f"{', '.join(p.what for p in problems)}")
        return Archived(record=record, where=where, size=len(data))

    async def _read(self, where: str) -> bytes | None:
        try:
            return await self.store.get(where)
        except (DigestMismatchError, TooLarge):
            return b""   # damaged in the store: not an archive

    def _problems(self, data: bytes) -> list:
        """What `verify` finds, but a seed never revealed: the record itself shows that one (a stacked game's
        hands, or a seed the dealer never gave in SETTLE_SECONDS)."""
        return [p for p in verify(data, self.public_key) if p.what != "seed_missing"]

    async def _intact(self, data: bytes) -> Archive | None:
        """The archive `data` holds when it is one the house signed and nothing in it changed."""
        try:
            archive = unpack(data)
        except Damaged:
            return None
        return None if await asyncio.to_thread(self._problems, data) else archive

    async def _index(self, archived: Archived) -> str:
        """The game's entry in the history index, written once: "written", or "found" (written before a crash),
        or "" when the index holds another game's entry under this id (the id used again once the first game
        had left the hot streams: said and counted, and this game stays hot)."""
        manifest = archived.record.manifest
        subject = history_subject(manifest.tenant, manifest.game)
        entry = IndexEntry(manifest=manifest, archived_at=time.time_ns(), size=archived.size, where=archived.where)
        try:
            ack = await self.js.publish(subject, msgspec.json.encode(entry),
                                        headers={"Nats-Msg-Id": f"index:{manifest.key}:{manifest.started_at}"})
            return "found" if ack.duplicate else "written"
        except APIError as refused:   # one entry a game: this game's, or another's of the same id
            try:
                held = await entry_of(self.js, manifest.key)
            except Unreadable as junk:   # kept for ever, as every entry is: this game stays hot, its archive written
                skipped("archiver", "history", subject, f"{junk}: the game is archived in {archived.where} and not "
                                                        "indexed, and stays hot")
                return ""
            if held is None:
                raise Failed("index", f"{HISTORY} refused the entry: {refused}") from None
        if held.where == archived.where and held.manifest.started_at == manifest.started_at:
            return "found"
        ARCHIVE_FAILURES.labels("id_reused").inc()
        log.error("archive_not_indexed", game=manifest.key, where=archived.where, indexed=held.where,
                  why="the index holds an earlier game of this id; this one is archived but stays hot")
        return ""

    async def _schedule_removal(self, archived: Archived) -> None:
        record = archived.record
        key = record.manifest.key
        removal = Removal(key=key, where=archived.where, commands_to=max(c.seq for c in record.commands),
                          log_to=record.batches[-1].seq)
        due = max(record.manifest.ended_at / 1e9 + self.retention, time.time() + 1.0)
        at = datetime.datetime.fromtimestamp(int(due) + 1, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        await publish_stored(self.js, removal_subject(key), msgspec.json.encode(removal), removal_headers(key, at))

    # --- removal ------------------------------------------------------------------------------------------

    async def _remove_due(self, raw: Msg) -> None:
        key = game_of(raw.subject)
        if (raw.headers or {}).get(SCHEDULER_HEADER) != removal_subject(key):
            ARCHIVE_FAILURES.labels("unscheduled").inc()
            log.warning("removal_refused", game=key[:80], why="not delivered by the game's removal schedule")
            return
        removal = msgspec.json.decode(raw.data, type=Removal)
        delivered = raw.metadata.num_delivered or 1
        try:
            why = await self.remove(key, removal)
            done = None if why else await self.removed(key)
            if done is not None and (time.time_ns() - done.at) / 1e9 < AGAIN_SECONDS:
                # Once more a little later: a writer that read the game before it left (the projector's sweep,
                # scoring) may yet write what it folded; then the removal's own messages go.
                raise Again(AGAIN_SECONDS - (time.time_ns() - done.at) / 1e9)
            if done is not None:
                await self._purge(REMOVALS, removal_subject(key))
                await self._purge(REMOVALS, remove_subject(key))
        except (asyncio.CancelledError, Again):
            raise
        except Exception as error:  # noqa: BLE001 - tried again: every purge is the same asked twice
            ARCHIVE_FAILURES.labels("remove").inc()
            log.error("removal_failed", game=key, error=repr(error)[:300], delivered=delivered)
            raise Again(_wait(delivered)) from None
        if why:
            ARCHIVE_FAILURES.labels("not_removed").inc()
            log.warning("removal_refused", game=key, why=why)

    async def remove(self, key: str, removal: Removal) -> str:
        """Take the game out of the hot streams as `removal` says; "" once done, else why nothing was. The record
        of the removal (`removed`) is written first, and from then on the game is taken out whatever its log says
        (a removal cut short is done again, to its end)."""
        if removal.key != key:
            return f"the removal names another game ({removal.key[:80]})"
        done = await self.removed(key)
        if done is None:
            p = (await layout(self.js)).of(key)
            if await ended(self.js, p, key, "archiver") is False:
                return "the game is not over in its log"
            if await self._sealed(log_stream(p)):   # a store made before archives: the game stays whole, and hot
                LEFT_HOT.labels("stream_denies_purges").inc()
                await self.js.purge_stream(REMOVALS, subject=remove_subject(key))
                return f"{log_stream(p)} was made denying purges, which the server never lifts"
            held = await entry_of(self.js, key)
            if held is None:
                return "the game has no entry in the history index"
            if held.where != removal.where or not await self.store.exists(removal.where):
                return f"its archive {removal.where} is not in {self.store} as the index says"
            done, first = await self._note_removal(p, removal), True
        else:
            first = False
        taken = await self._take_out(key, done)
        if first:
            GAMES_REMOVED.inc()
        log.info("game_removed", game=key, where=done.removal.where, left=taken.pop("left", 0), again=not first)
        return ""

    async def removed(self, key: str) -> Removed | None:
        """The record that the game `key` left the hot streams, None while it has not: from the index's leader."""
        try:
            stored = await self.js.get_msg(HISTORY, subject=removed_subject(key))
        except NotFoundError:
            return None
        return msgspec.json.decode(stored.data or b"", type=Removed)

    async def _note_removal(self, partition: int, removal: Removal) -> Removed:
        """The record of the game's removal, written before anything is taken out (or found written, by a removal
        cut short): each stream's last sequence now, past which what its subjects hold is a later game's."""
        streams = [commands_stream(partition), *(stream for stream, _ in _derived(removal.key))]
        upto = {stream: (await self.js.stream_info(stream)).state.last_seq for stream in streams}
        done = Removed(removal=removal, at=time.time_ns(), upto=upto)
        try:
            ack = await self.js.publish(removed_subject(removal.key), msgspec.json.encode(done),
                                        headers={"Nats-Msg-Id": f"removed:{removal.key}"})
        except APIError:   # one record a game, kept for ever: the one written first stands
            ack = None
        if ack is None or ack.duplicate:
            held = await self.removed(removal.key)
            if held is None:
                raise Failed("remove", f"{HISTORY} took no record of the removal of {removal.key}")
            return held
        return done

    async def _take_out(self, key: str, done: Removed) -> dict[str, int]:
        """Purge what the hot store holds of the removed game `done` names, in this order: its commands up to the
        last one archived, its pending deadline, its log up to the last batch archived (after the commands: a
        game whose log is left is over, and takes nothing more), its feed, scores, views, standings, its mark in
        the register of games in play and its seeds. Where its log holds batches past those archived, a later
        game of the same id is in play, and only what each stream held when the game left is taken. Returns
        how many messages each stream gave up, and under "left" how many purges left a message stored after the
        archive."""
        removal = done.removal
        p = (await layout(self.js)).of(key)
        commands, logs = commands_stream(p), log_stream(p)
        later = await self._later_game(p, key, removal.log_to)

        def upto(stream: str) -> int | None:
            return done.upto.get(stream) if later else None
        taken: dict[str, int] = {}

        async def purge(stream: str, subject: str, up_to: int | None, archived: bool = False) -> None:
            purged, left = await self._purge(stream, subject, up_to, archived)
            taken[stream] = taken.get(stream, 0) + purged
            taken["left"] = taken.get("left", 0) + left
        await purge(commands, stored_command_subject(p, key), removal.commands_to, archived=True)
        await purge(commands, schedule_subject(p, key), upto(commands))
        _fault("purging")
        await purge(logs, log_subject(p, key), removal.log_to, archived=True)
        for stream, subject in _derived(key):
            await purge(stream, subject, upto(stream))
        return taken

    async def _later_game(self, partition: int, key: str, log_to: int) -> bool:
        """Whether a later game of the id `key` has started: the game's log holds a start past `log_to` (what
        it holds past it else is the removed game's, stored after its archive was made)."""
        try:
            first = await self.js.get_msg(log_stream(partition), seq=log_to + 1,
                                          subject=log_subject(partition, key, "hand"), next=True)
        except NotFoundError:
            return False
        found, _ = readable([(first.seq or 0, first.data or b"")])
        return bool(found) and isinstance(next(iter(found[0][1].events), None), GameStarted)

    async def _sealed(self, stream: str) -> bool:
        """Whether `stream` was made denying purges (asked once a stream: the server never lifts the seal)."""
        if stream not in self.sealed:
            self.sealed[stream] = bool((await self.js.stream_info(stream)).config.deny_purge)
        return self.sealed[stream]

    async def _purge(self, stream: str, subject: str, up_to: int | None = None, archived: bool = False
                     ) -> tuple[int, int]:
        """Purge `stream`'s messages on `subject`, up to stream sequence `up_to` when given: how many it took,
        and, for what the archive holds (`archived`), how many purges left a message stored after it."""
        request = {"filter": subject} | ({} if up_to is None else {"seq": up_to + 1})
        try:
            answer = await self.js._api_request(f"{self.js._prefix}.STREAM.PURGE.{stream}",
                                                msgspec.json.encode(request), timeout=self.js._timeout)
        except APIError as error:
            if error.err_code != PURGE_DENIED:
                raise
            LEFT_HOT.labels("stream_denies_purges").inc()
            return 0, 1
        purged = int(answer.get("purged") or 0)
        if not archived:
            return purged, 0
        later = await last_seq(self.js, stream, subject)
        if later:
            LEFT_HOT.labels("stored_after_the_archive").inc()
            log.warning("left_hot", stream=stream, subject=subject, last=later, archived_to=up_to)
        return purged, 1 if later else 0

    # --- what came back ------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Look for what came back of removed games now, and on every server the connection comes to."""
        self.watch = asyncio.ensure_future(self._watch_servers())

    async def stop(self) -> None:
        await tasks.stop([self.watch])

    async def _watch_servers(self) -> None:
        """`recheck` on each server the connection is on that it has not been done on (a server killed and
        started again has a new id), tried again until it is done."""
        while True:
            server = server_id(self.js._nc)
            if server and server not in self.rechecked and self.js._nc.is_connected:
                try:
                    await self.recheck()
                except Exception as error:  # noqa: BLE001 - the server went away meanwhile: the next look retries
                    log.warning("recheck_failed", error=repr(error)[:200])
                else:
                    self.rechecked.add(server)
            await asyncio.sleep(SERVER_CHECK_SECONDS)

    async def recheck(self) -> list[str]:
        """Take out again whatever of a removed game is in the hot store: the games it found. nats-server 2.15.1,
        started again after an unclean shutdown, brings back a message it had dropped for its subject's limit
        (a bucket's earlier value, a mark or a removal written twice) wherever the last on that subject was purged
        since (docs/history.md, "Removed for good"). Every game something is stored of where a removal takes from
        is counted by subject (the streams' info, no message read); of those whose log holds no hand batch (a game
        in play or within its retention holds its start), each that has a record of its removal is taken out
        again, as the record says."""
        where = await layout(self.js)
        logged: set[str] = set()
        for p in range(where.partitions):
            logged |= set(per_game(await subject_counts(self.js, log_stream(p), log_subject(p, "*", "hand"))))
        held: set[str] = set()
        for stream, subjects in _everywhere(where.partitions):
            held |= set(per_game(await subject_counts(self.js, stream, subjects)))
        back = []
        for key in sorted(held - logged):
            done = await self.removed(key)
            if done is None:   # never removed: a game about to start, or not the archiver's to take
                continue
            taken = await self._take_out(key, done)
            if (time.time_ns() - done.at) / 1e9 >= AGAIN_SECONDS:   # else its removal comes again, and takes them
                for subject in (removal_subject(key), remove_subject(key)):
                    taken[REMOVALS] = taken.get(REMOVALS, 0) + (await self._purge(REMOVALS, subject))[0]
            taken.pop("left", None)
            for stream, count in taken.items():
                if count:
                    CAME_BACK.labels(stream).inc(count)
            log.warning("removed_again", game=key, came_back={s: n for s, n in taken.items() if n})
            back.append(key)
        log.info("rechecked", games=len(held), removed_again=len(back))
        return back


def _derived(key: str) -> list[tuple[str, str]]:
    """Where, besides its commands and its log, the hot store holds a game: (stream, subject), what a removal
    takes out after them."""
    return [(FEED, feed_subject(key)), (SCORES, score_subject(key)),
            (kv_stream(VIEWS), kv_subject(VIEWS, view_keys(key))),
            (kv_stream(STANDINGS), kv_subject(STANDINGS, standings_key(key))), (OPEN, open_subject(key)),
            (kv_stream(SEEDS), kv_subject(SEEDS, seed_key(key, "*")))]


def _everywhere(partitions: int) -> list[tuple[str, str]]:
    """Every game's subjects in each stream a removal takes a game out of: (stream, subjects)."""
    commands = [(commands_stream(p), subject) for p in range(partitions)
                for subject in (stored_command_subject(p, "*"), schedule_subject(p, "*"))]
    return [*commands, (FEED, feed_subject(ANY_GAME)), (SCORES, score_subject(ANY_GAME)),
            (kv_stream(VIEWS), kv_subject(VIEWS, ">")), (kv_stream(STANDINGS), kv_subject(STANDINGS, ">")),
            (OPEN, OPEN_SUBJECTS), (kv_stream(SEEDS), kv_subject(SEEDS, ">")),
            (REMOVALS, REMOVAL_SUBJECTS), (REMOVALS, REMOVE_SUBJECTS)]


class Waiting(Exception):
    """The game is not settled: it waits for `what` ("table": its last commands decided; "seed": a hand's seed)."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


class Failed(Exception):
    """A step of archiving failed (`step`), said in the message."""

    def __init__(self, step: str, why: str):
        super().__init__(why)
        self.step = step


def _wait(delivered: int) -> float:
    """How long a game's end waits before it comes again, its `delivered`-th time: doubling, to LONGEST_WAIT."""
    return min(LONGEST_WAIT, FIRST_WAIT * 2 ** min(delivered - 1, 16))


def _unrevealed(batches) -> set[int]:
    """The hands the dealer dealt whose seed the log has not revealed; none in a stacked game (R7)."""
    dealt, revealed, stacked = set(), set(), False
    for batch in batches:
        for event in batch.events:
            if isinstance(event, GameStarted):
                stacked = event.stacked
            elif isinstance(event, HandDealt):
                dealt.add(event.hand)
            elif isinstance(event, SeedRevealed):
                revealed.add(event.hand)
    return set() if stacked else dealt - revealed


def _kind(msg: RawStreamMsg) -> str:
    return (msg.subject or "").rsplit(".", 1)[-1]


def _nanos(msg: RawStreamMsg) -> int:
    """When the stream stored `msg`, in nanoseconds since 1970 (UTC), from its Nats-Time-Stamp."""
    stamp = (msg.headers or {}).get("Nats-Time-Stamp", "")
    if stamp:
        whole, _, fraction = stamp.rstrip("Z").partition(".")
        seconds = calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S"))
        return seconds * 1_000_000_000 + int((fraction + "000000000")[:9])
    return int(msg.time.timestamp() * 1_000_000_000) if msg.time else 0


def _fault(point: str) -> None:
    if os.environ.get(FAULT_AT) == point:
        os.kill(os.getpid(), signal.SIGKILL)


def built(js: JetStreamContext, credentials: Path, archive: Path | None, retention: float) -> ArchiverService:
    """The archiver of `zioncheck serve archiver`: archives in the folder `archive`, or in the bucket zc_archive,
    signed with the house's key in `credentials`."""
    from zioncheck.services.archive_store import BucketStore, FolderStore
    from zioncheck.services.bus.access import public_key, signing_key
    store: ArchiveStore = FolderStore(archive) if archive is not None else BucketStore(js, reader="archiver")
    return ArchiverService(js, store, signing_key(credentials), public_key(credentials), retention)
