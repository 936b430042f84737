"""A finished game's archive: the one record that outlives the hot streams (docs/history.md).

An archive file is `MAGIC` followed by a zstd frame holding the msgpack of an `Archive` (laid out by
column, as a `Packed`, which compresses to less than half a row a message would): the
`GameRecord` as the store held it (every command and log batch byte for byte, with its stream
sequence and time), the hash chain over its batches, the digests of the rest, and the house's
ed25519 signature over `Signed` (the manifest, the chain's head and the digests). Anyone with the house's
public key checks it (`zioncheck verify`), with no server.

Format 1. A reader refuses a format it does not know, by name; a later format adds fields with
defaults, as every contract here does.
"""
from typing import Literal

import msgspec

FORMAT = 1
MAGIC = b"ZCARCHIVE1\n"   # the file's first bytes: what it is, before the compressed frame
MARK = 4                  # bytes of a batch's mark

Outcome = Literal["finished", "abandoned"]


class StoredCommand(msgspec.Struct, frozen=True, array_like=True):
    """One command as its partition's commands stream stored it: `seq` orders a game's commands
    (the `cause` of the batches it made), `origin` is `play`, `dealer` or `timer`, `data` its JSON."""
    seq: int
    origin: str
    at: int                # when the stream stored it, in nanoseconds since 1970 (UTC)
    data: bytes


class StoredBatch(msgspec.Struct, frozen=True, array_like=True):
    """One batch of the game's log as the log stream stored it (`contracts.log.Batch` JSON, byte for
    byte): `seq` is its log stream sequence, `kind` `hand` or `move`, `due_at` the deadline the table
    stamped on it (R19-R23 countdowns), if any."""
    seq: int
    kind: str
    at: int
    data: bytes
    due_at: float | None = None


class Seed(msgspec.Struct, frozen=True, array_like=True):
    """A hand's secret seed as the dealer revealed it, and the commitment it published before the
    hand (R7): sha256(seed) must equal the commitment."""
    hand: int
    seed: str
    commitment: str


class Manifest(msgspec.Struct, frozen=True, kw_only=True):
    """What an index or a person asks of a game without opening its record."""
    format: int = FORMAT
    tenant: str
    game: str              # the id the tenant gave the game
    key: str               # the house's name for it (`<tenant>=<game>`, or the game id in the default tenant)
    seats: list[str]       # who sat where: "person" or a bot's name
    players: int
    started_at: int        # the game's first batch's store time, ns since 1970 (UTC)
    ended_at: int          # its last batch's
    hands: int             # hands played to their end
    outcome: Outcome
    winners: list[int]     # the seats with the lowest total (R17); none for an abandoned game
    totals: list[int]
    commands: int
    batches: int
    events: int
    state_hash: str        # application.replay.state_hash of the fold of the batches
    # R24: the game the table played, by its preset's name (`zioncheck`, `contract` or `liverpool`, whatever
    # house options it set). Left out of the manifests made before it was named, so their signatures hold: all
    # Zioncheck games but for the few of the presets' first days, which `rules_of` reads as Zioncheck too.
    rules: str | msgspec.UnsetType = msgspec.UNSET


def rules_of(manifest: Manifest) -> str:
    """The name of the game a manifest tells of (R24): its preset, Zioncheck where it names none."""
    return manifest.rules if isinstance(manifest.rules, str) else "zioncheck"


class GameRecord(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the house kept of one game."""
    manifest: Manifest
    commands: list[StoredCommand]
    batches: list[StoredBatch]
    seeds: list[Seed]
    standings: bytes       # the zc_standings value (contracts.scores.Standings JSON) at the end


class Digests(msgspec.Struct, frozen=True, array_like=True):
    """The sha256 of the record's commands, seeds (each list's msgpack), standings and marks."""
    commands: bytes
    seeds: bytes
    standings: bytes
    marks: bytes


class Signed(msgspec.Struct, frozen=True, array_like=True):
    """What the signature covers: the manifest, the head of the chain over the batches, and the
    digests of everything else."""
    manifest: Manifest
    chain_head: bytes
    digests: Digests


class Archive(msgspec.Struct, frozen=True, kw_only=True):
    """The file's content: the record; the head of the chain over its batches (each link the sha256 of
    the link before and the batch's msgpack; the first link before any batch is
    `application.archive.genesis(key)`); a mark a batch (the first `MARK` bytes of the sha256 of its
    msgpack), which tells which batch changed when the chain no longer leads to its head; the digests;
    and who signed them (ed25519 over the msgpack of `Signed`)."""
    record: GameRecord
    chain_head: bytes
    marks: bytes
    digests: Digests
    key_id: str            # the signer's public key, hex (what `zioncheck credentials --archive-key` prints)
    signature: bytes


class Removal(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game's removal from the hot streams once its retention has run: a message schedule the
    archiver keeps on `zc.removal.<key>` (stream ZC_REMOVALS, JSON), which the server delivers on
    `zc.remove.<key>` when due. The archiver then takes out of the hot streams what the archive `where`
    holds: the game's commands up to stream sequence `commands_to` of its partition's commands stream, its
    log batches up to `log_to`, and its feed, scores, views and standings, all folded from them."""
    key: str
    where: str
    commands_to: int
    log_to: int
    v: int = 1


class Removed(msgspec.Struct, frozen=True, kw_only=True):
    """That a game left the hot streams: written by the archiver before it takes anything out, on
    `zc.history.<tenant>.<game>.removed` beside the game's index entry (stream ZC_HISTORY, JSON), once, and
    kept for ever. It takes the game out again whatever of it comes back (docs/history.md, "Removed for
    good"): the `removal` done, when (`at`, ns since 1970, UTC), and each stream's last sequence then
    (`upto`, by stream name), past which a message on the game's subjects is a later game's of the same id."""
    removal: Removal
    at: int
    upto: dict[str, int] = {}
    v: int = 1


class Column(msgspec.Struct, frozen=True, array_like=True):
    """Stored messages as an archive file lays them out, field by field: `seqs` and `ats` as the first
    and then each one's step from the one before, `tags` each one's origin or kind, and `data` every
    message's bytes one after another, `lengths` long."""
    seqs: list[int]
    ats: list[int]
    tags: list[str]
    lengths: list[int]
    data: bytes
    due_at: list[float | None] = []


class Packed(msgspec.Struct, frozen=True, array_like=True):
    """An `Archive` as its file holds it: its record's commands and batches by column, the rest as it is."""
    manifest: Manifest
    commands: Column
    batches: Column
    seeds: list[Seed]
    standings: bytes
    chain_head: bytes
    marks: bytes
    digests: Digests
    key_id: str
    signature: bytes


class IndexEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One archived game in the history index (stream ZC_HISTORY, subject
    `zc.history.<tenant>.<game>`, JSON): what `zioncheck history` lists without opening an archive."""
    manifest: Manifest
    archived_at: int       # when the archiver wrote it, ns since 1970 (UTC)
    size: int              # the archive's bytes
    where: str             # the archive store's name for it (an object name, or a file's name in --archive DIR)
    v: int = 1


# --- a tenant's questions about its archived games (services/records) ----------------------------------

class HistoryAsk(msgspec.Struct, frozen=True, kw_only=True):
    """On zc.records.<tenant>.list: which of the tenant's archived games to list, a page at a time.
    `start`/`end` bound when a game started (ns since 1970, UTC; `end` left out); a seat or a winner
    by number or by name ("person", a bot's); `rules` the game played (R24); `after` is the page token
    a page gave."""
    start: int | None = None
    end: int | None = None
    seat: int | str | None = None
    outcome: Outcome | None = None
    won_by: int | str | None = None
    after: int = 0
    limit: int = 50
    rules: str | None = None   # R24: the games of that preset only (`zioncheck`, `contract`, `liverpool`)


class HistoryPage(msgspec.Struct, frozen=True, tag="page"):
    """The games of a page, oldest archived first, each beside its index sequence; `next` is the
    `after` of the next page, None at the last."""
    games: list[IndexEntry]
    sequences: list[int]
    next: int | None = None


class PartAsk(msgspec.Struct, frozen=True):
    """On zc.records.<tenant>.get.<game>: which part of the game's archive to send (from 0). An
    archive larger than a message is sent in parts, each answer saying how many (header `Zc-Parts`)."""
    part: int = 0


RecordsReason = Literal["bad_question", "no_such_game", "damaged", "unavailable"]

RECORDS_REFUSALS: dict[str, str] = {
    "bad_question": "not a question the records service reads: see contracts/archive.py (HistoryAsk, PartAsk)",
    "no_such_game": "no archived game of the tenant's has that id (a game is archived once it has ended)",
    "damaged": "the game is indexed but its archive cannot be read from the store: the operator is told",
    "unavailable": "the store did not answer in time: ask again",
}


class RecordsRefused(msgspec.Struct, frozen=True, tag="refused"):
    """What the records service answers instead: a reason from a closed list and a sentence."""
    reason: RecordsReason
    detail: str
