"""A finished game's archive: made from what the store holds, packed, signed, and checked by anyone.

Pure: bytes and keys in, bytes or findings out (contracts/archive.py says what a file holds).
`verify` needs the house's public key alone, and reports every finding it makes, not only the first,
each with the place it is found (a batch's log sequence, a hand): `zioncheck verify` tells them in
the reader's words (`tell.verify.<what>`).
"""
import hashlib
import itertools
from typing import Literal, NamedTuple

import msgspec
import zstandard
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from zioncheck.application.replay import state_hash
from zioncheck.contracts import events as ev
from zioncheck.contracts.archive import (
    FORMAT,
    MAGIC,
    MARK,
    Archive,
    Column,
    Digests,
    GameRecord,
    Manifest,
    Packed,
    Seed,
    Signed,
    StoredBatch,
    StoredCommand,
)
from zioncheck.contracts.log import Batch, Entry, NotABatch, entries_of, readable
from zioncheck.domain import GameState, evolve
from zioncheck.domain.audit import audit
from zioncheck.domain.fairness import commitment

LEVEL = 9                   # zstd's: a game packs in milliseconds, at about a tenth of its JSON
MAX_UNPACKED = 256 << 20    # what a file may unpack to: far above any game (a game's log is capped)
MAX_FINDINGS = 20           # changed batches told one by one, up to this many

Finding = Literal[
    "unreadable",         # not an archive, or damaged past reading (detail says how)
    "unknown_format",     # a format this reader does not know
    "other_key",          # signed by another key than the one given
    "bad_signature",      # the signature does not cover what the file says: its manifest or chain changed
    "batch_changed",      # a batch is not the one the chain and its mark were made from
    "batch_missing",      # fewer batches than the manifest counts, or a gap where one was
    "batch_extra",        # more batches than the manifest counts
    "batches_reordered",  # a batch stands before one stored earlier
    "batch_unreadable",   # a batch's JSON is not a log batch, and the signature does not vouch for the batches
    "commands_changed",   # the commands are not those signed
    "seeds_changed",      # the seeds are not those signed
    "standings_changed",  # the standings are not those signed
    "marks_changed",      # the batches' marks are not those signed
    "seed_mismatch",      # a hand's seed does not give its commitment (or its deal, or a reshuffle)
    "seed_missing",       # a hand dealt whose seed was never revealed
    "unplayable",         # the batches do not fold into a game: an event the state before it cannot take
    "state_hash",         # the fold of the batches is not the game the manifest names
]


class Problem(NamedTuple):
    """One finding: what is wrong, and where (`seq` a batch's log sequence, `hand` a hand's number)."""
    what: Finding
    seq: int = 0
    hand: int = 0
    detail: str = ""


class Damaged(Exception):
    """The bytes are not a readable archive; the message says why."""


class NotOver(Exception):
    """A record is made of a game that has ended, and this one has not."""


_encoder = msgspec.msgpack.Encoder()
_packed_decoder = msgspec.msgpack.Decoder(Packed)


# --- keys -------------------------------------------------------------------------------------

def new_signing_key() -> tuple[bytes, str]:
    """A fresh ed25519 key: its 32 private bytes, and its public key in hex."""
    private = Ed25519PrivateKey.generate()
    raw = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                serialization.NoEncryption())
    return raw, public_key_of(raw)


def public_key_of(signing_key: bytes) -> str:
    public = Ed25519PrivateKey.from_private_bytes(signing_key).public_key()
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


# --- making a record ----------------------------------------------------------------------------

def make_record(*, tenant: str, game: str, key: str, commands: list[StoredCommand],
                batches: list[StoredBatch], standings: bytes) -> GameRecord:
    """The record of an ended game, its manifest and seeds read off its batches. Raises NotOver for a
    game still in play. A stored message that is no log batch stays in the record where the log held it,
    and the game is folded without it, as the table folded it (`unreadable`)."""
    decoded = _batches(batches)
    state = _fold(decoded)
    if not (state.game_over or state.abandoned):
        raise NotOver(key)
    started = next((e for b in decoded for e in b.events if isinstance(e, ev.GameStarted)), None)
    seats = list(started.seats) if started and started.seats else ["person"] * state.players
    manifest = Manifest(
        tenant=tenant, game=game, key=key, seats=seats, players=state.players,
        started_at=batches[0].at, ended_at=batches[-1].at,
        hands=sum(isinstance(e, ev.HandEnded) for b in decoded for e in b.events),
        outcome="abandoned" if state.abandoned else "finished",
        winners=[] if state.abandoned else list(state.winners), totals=list(state.totals),
        commands=len(commands), batches=len(batches), events=sum(len(b.events) for b in decoded),
        state_hash=state_hash(state), rules=state.rules.preset)
    return GameRecord(manifest=manifest, commands=list(commands), batches=list(batches),
                      seeds=seeds_of(decoded), standings=standings)


def seeds_of(batches: list[Batch]) -> list[Seed]:
    """Each revealed seed beside the commitment its hand was dealt with (R7), hand by hand."""
    committed = {e.hand: e.commitment for b in batches for e in b.events if isinstance(e, ev.HandDealt)}
    return sorted((Seed(hand=e.hand, seed=e.seed, commitment=committed.get(e.hand, ""))
                   for b in batches for e in b.events if isinstance(e, ev.SeedRevealed)), key=lambda s: s.hand)


def _fold(batches: list[Batch]) -> GameState:
    state = GameState()
    for batch in batches:
        for event in batch.events:
            state = evolve(state, event)
    return state


# --- packing ------------------------------------------------------------------------------------

def genesis(key: str) -> bytes:
    """The chain's first link: the game's own, so no batch of another game fits it."""
    return hashlib.sha256(b"zioncheck archive chain 1\n" + key.encode()).digest()


def chain_head(key: str, batches: list[StoredBatch]) -> bytes:
    """The last link of the chain over `batches`: each link the sha256 of the one before and a batch."""
    previous = genesis(key)
    for batch in batches:
        previous = hashlib.sha256(previous + _encoder.encode(batch)).digest()
    return previous


def mark(batch: StoredBatch) -> bytes:
    return hashlib.sha256(_encoder.encode(batch)).digest()[:MARK]


def digests_of(record: GameRecord, marks: bytes) -> Digests:
    return Digests(commands=hashlib.sha256(_encoder.encode(record.commands)).digest(),
                   seeds=hashlib.sha256(_encoder.encode(record.seeds)).digest(),
                   standings=hashlib.sha256(record.standings).digest(), marks=hashlib.sha256(marks).digest())


def _signed(manifest: Manifest, head: bytes, digests: Digests) -> bytes:
    """The bytes the signature covers (contracts.archive.Signed)."""
    return _encoder.encode(Signed(manifest=manifest, chain_head=head, digests=digests))


def pack(record: GameRecord, signing_key: bytes) -> bytes:
    """The archive file of `record`, signed: the same record and key give the same bytes (ed25519
    signs deterministically), so writing a game twice writes the same file."""
    head, marks = chain_head(record.manifest.key, record.batches), b"".join(map(mark, record.batches))
    digests = digests_of(record, marks)
    signature = Ed25519PrivateKey.from_private_bytes(signing_key).sign(_signed(record.manifest, head, digests))
    return seal(Archive(record=record, chain_head=head, marks=marks, digests=digests,
                        key_id=public_key_of(signing_key), signature=signature))


def seal(archive: Archive) -> bytes:
    """An archive's file: the mark, then its `Packed` layout's msgpack under zstd (with its checksum)."""
    record = archive.record
    packed = Packed(manifest=record.manifest, commands=_column(record.commands, lambda c: c.origin),
                    batches=_column(record.batches, lambda b: b.kind, due=True), seeds=record.seeds,
                    standings=record.standings, chain_head=archive.chain_head, marks=archive.marks,
                    digests=archive.digests, key_id=archive.key_id, signature=archive.signature)
    return MAGIC + zstandard.ZstdCompressor(level=LEVEL, write_checksum=True).compress(_encoder.encode(packed))


def _column(messages: list, tag, due: bool = False) -> Column:
    return Column(seqs=_steps([m.seq for m in messages]), ats=_steps([m.at for m in messages]),
                  tags=[tag(m) for m in messages], lengths=[len(m.data) for m in messages],
                  data=b"".join(m.data for m in messages), due_at=[m.due_at for m in messages] if due else [])


def _steps(values: list[int]) -> list[int]:
    return [b - a for a, b in zip([0, *values], values, strict=False)]


def _unsteps(steps: list[int]) -> list[int]:
    return list(itertools.accumulate(steps))


def _rows(column: Column, make) -> list:
    if not len(column.seqs) == len(column.ats) == len(column.tags) == len(column.lengths) \
            or sum(column.lengths) != len(column.data) or any(n < 0 for n in column.lengths):
        raise Damaged("its columns do not line up")
    ends = _unsteps(column.lengths)
    starts = [0, *ends[:-1]]
    return [make(seq, tag, at, column.data[start:end], n)
            for n, (seq, tag, at, start, end) in enumerate(zip(_unsteps(column.seqs), column.tags,
                                                                _unsteps(column.ats), starts, ends, strict=True))]


def unpack(data: bytes) -> Archive:
    """The archive in a file's bytes; raises Damaged, saying why, for anything else."""
    if not data.startswith(MAGIC):
        raise Damaged("not a Zioncheck archive (its first bytes are not the archive's mark)")
    try:
        raw = zstandard.ZstdDecompressor().decompress(data[len(MAGIC):], max_output_size=MAX_UNPACKED)
    except zstandard.ZstdError as error:
        raise Damaged(f"its compressed content is damaged ({error})") from None
    try:
        packed = _packed_decoder.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise Damaged(f"its content is not an archive of format {FORMAT} ({error})") from None
    due = packed.batches.due_at
    record = GameRecord(
        manifest=packed.manifest, seeds=packed.seeds, standings=packed.standings,
        commands=_rows(packed.commands, lambda seq, tag, at, data, n: StoredCommand(seq=seq, origin=tag, at=at,
                                                                                     data=data)),
        batches=_rows(packed.batches, lambda seq, tag, at, data, n: StoredBatch(
            seq=seq, kind=tag, at=at, data=data, due_at=due[n] if n < len(due) else None)))
    return Archive(record=record, chain_head=packed.chain_head, marks=packed.marks, digests=packed.digests,
                   key_id=packed.key_id, signature=packed.signature)


def batches_of(record: GameRecord) -> list[Batch]:
    """The game's log, batch by batch, as the log stream held it, but for what it held that is no batch
    (`unreadable`)."""
    return _batches(record.batches)


def _batches(stored: list[StoredBatch]) -> list[Batch]:
    return [batch for _, batch in readable((b.seq, b.data) for b in stored)[0]]


def unreadable(record: GameRecord) -> list[NotABatch]:
    """The messages of the game's log that are no batch (by their log sequence): stored there by someone
    or something but the table, kept in the record as stored, and left out of the game's fold, as the
    table left them out of the game."""
    return readable((b.seq, b.data) for b in record.batches)[1]


def entries_of_record(record: GameRecord) -> list[Entry]:
    return entries_of(batches_of(record))


# --- checking -----------------------------------------------------------------------------------

def verify(data: bytes, public_key: str) -> list[Problem]:
    """Every finding that tells this file from the one the house signed with `public_key` (hex):
    none for an intact archive."""
    try:
        archive = unpack(data)
    except Damaged as error:
        return [Problem("unreadable", detail=str(error))]
    record = archive.record
    if record.manifest.format != FORMAT:
        return [Problem("unknown_format", detail=str(record.manifest.format))]
    problems = _signature(archive, public_key) + _chain(archive)
    found = digests_of(record, archive.marks)
    parts: list[tuple[Finding, bytes, bytes]] = [
        ("commands_changed", found.commands, archive.digests.commands),
        ("seeds_changed", found.seeds, archive.digests.seeds),
        ("standings_changed", found.standings, archive.digests.standings),
        ("marks_changed", found.marks, archive.digests.marks)]
    problems += [Problem(what) for what, ours, theirs in parts if ours != theirs]
    return problems + _game(record, signed=not problems)


def _signature(archive: Archive, public_key: str) -> list[Problem]:
    """The signature over what the file says it signed: a changed manifest, chain or digest fails it."""
    if archive.key_id != public_key.lower():
        return [Problem("other_key", detail=archive.key_id)]
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key)).verify(
            archive.signature, _signed(archive.record.manifest, archive.chain_head, archive.digests))
    except (InvalidSignature, ValueError):
        return [Problem("bad_signature")]
    return []


def _chain(archive: Archive) -> list[Problem]:
    """The batches against the chain's head, their marks and the manifest's count. When the chain no
    longer leads to its head, the marks tell which batch changed, or where one went missing."""
    record, problems = archive.record, []
    batches, counted = record.batches, record.manifest.batches
    for before, after in itertools.pairwise(batches):
        if after.seq <= before.seq:
            problems.append(Problem("batches_reordered", seq=after.seq, detail=str(before.seq)))
    if len(batches) > counted:
        problems.append(Problem("batch_extra", detail=str(len(batches) - counted)))
    if chain_head(record.manifest.key, batches) == archive.chain_head:
        return problems
    marks = [archive.marks[i:i + MARK] for i in range(0, len(archive.marks), MARK)]
    told, at = len(problems), 0
    for batch in batches:
        ours = mark(batch)
        if at + 1 < len(marks) and marks[at] != ours and marks[at + 1] == ours:   # a batch gone before this one
            problems.append(Problem("batch_missing", seq=batch.seq, detail=str(counted - len(batches))))
            at += 1
        elif at >= len(marks) or marks[at] != ours:
            problems.append(Problem("batch_changed", seq=batch.seq))
        at += 1
        if len(problems) - told >= MAX_FINDINGS:
            break
    if len(batches) < counted and not any(p.what == "batch_missing" for p in problems):
        problems.append(Problem("batch_missing", seq=batches[-1].seq + 1 if batches else 0,
                                detail=str(counted - len(batches))))
    if len(problems) == told:   # every batch has its mark, and yet the chain does not lead to its head
        problems.append(Problem("batch_changed"))
    return problems


def _game(record: GameRecord, signed: bool) -> list[Problem]:
    """The game itself: every seed against its commitment and deal, and the fold against the manifest.

    A message of the log that is no batch is a finding only where the house's signature does not vouch
    for the record (`signed` False): signed, it is what the log held when the game was archived, which the
    game went on past, as its fold here does (`unreadable` tells them)."""
    problems: list[Problem] = []
    skipped = unreadable(record)
    if skipped and not signed:
        return [Problem("batch_unreadable", seq=skipped[0].seq, detail=skipped[0].why)]
    batches = batches_of(record)
    for seed in record.seeds:
        if commitment(seed.seed) != seed.commitment:
            problems.append(Problem("seed_mismatch", hand=seed.hand))
    try:   # evolve trusts its events: a forged log can hold one the game before it cannot take
        checked, folded = audit(entries_of(batches)), _fold(batches)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
        return problems + [Problem("unplayable", detail=f"{type(error).__name__}: {error}"[:200])]
    problems += [Problem("seed_mismatch", hand=p.hand, detail=p.what) for p in checked.problems
                 if not any(q.hand == p.hand for q in problems)]
    problems += [Problem("seed_missing", hand=hand) for hand in checked.unrevealed]
    if state_hash(folded) != record.manifest.state_hash:
        problems.append(Problem("state_hash"))
    return problems
