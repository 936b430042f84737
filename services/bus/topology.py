"""Streams, subjects and buckets: the NATS side of the wire contract.

Games are spread over P partitions (set at deploy: `zioncheck credentials --deploy
--partitions P`, or the embedded server's --partitions). A game's partition is
fnv-1a(game id) mod P, computed by the server's subject mapping `partition(P, 1)` in the
account (services/bus/access.py: mappings) where commands are published, and by
`partition_of` below where a reader names one game's log; tests/integration/test_partitions.py
proves the two agree. Each partition p has its own commands stream ZC_COMMANDS_<p> and log
stream ZC_LOG_<p>, so synced appends of different partitions go on in parallel.

    zc.in.<tenant>.<game>  where a platform, the gateway and the bots hand a game's commands to the intake
                      (services/intake), a request answered with contracts.intake.Taken or Refused.
                      No stream captures it: only house services publish where a stream stores
    zc.cmd.<p>.<game>.<origin>  a game's commands as stream ZC_COMMANDS_<p> stores them: origin `play`
                      from the intake, `dealer` from the dealer, `timer` from the server's schedules.
                      The stream sequence totally orders each game's commands whatever their origin.
                      Filter zc.cmd.<p>.<game>.* for a game
    zc.timer.<p>.<game>  the game's one pending deadline (R19, R21), kept in ZC_COMMANDS_<p> as a
                      JetStream message schedule (headers Nats-Schedule: @at <time>,
                      Nats-Schedule-Target: zc.cmd.<p>.<game>.timer). Only the table publishes
                      here; publishing again replaces the deadline. When it comes, the server
                      itself stores the payload, a timeout command, on zc.cmd.<p>.<game>.timer with
                      the header Nats-Scheduler: zc.timer.<p>.<game>, which no client can set
    zc.log.<p>.<game>.<kind>  the game log (stream ZC_LOG_<p>): append-only, written by the table
                      only; kind `hand` for a batch that starts the game or ends a hand, `move`
                      for any other. Follow zc.log.<p>.<game>.* for the whole log; the dealer and
                      scoring read only zc.log.<p>.*.hand, a few batches a hand instead of hundreds
    zc.live.<game>.<kind>  each batch a log stream stored, republished by the server on core NATS
                      (headers Nats-Stream, Nats-Sequence and Zc-Batch): a cheap live feed, the same
                      subject whatever the partition
    zc.view.<key>     each view the projector stores, republished by the server (key <game>.public,
                      <game>.seat.<n> or <game>.bot.<n>): how readers that make no consumers follow views
    zc.public.<game>  each feed batch stored, republished by the server
    zc.partitions     published by a service to learn P: the account maps it to zc.partitions.<P>
    zc.score.<game>   per-hand scores and totals (stream ZC_SCORES)
    zc.feed.<game>    the redacted public feed, one message per log batch with anything
                      public in it (stream ZC_FEED, contracts.feed.FeedBatch)
    zc.rejected.<game>  refusals of commands for games that were never started, and those past the
                      fill of refusals a game's log keeps (core NATS, published by the table only)
    zc.chat.<tenant>.<game>  a game's chat lines among its seats (core NATS, never stored): only the
                      gateway publishes and hears it, and passes each line to the game's pages
    zc.open.<tenant>.<game>  the register of games in play (stream ZC_OPEN, one message a game): the
                      intake puts a game there before it stores its start (once it has counted the
                      tenant's games there), the table takes it out once it is over; the intake
                      stores no move of a game not there (services/bus/open_games.py)
    zc.history.<tenant>.<game>  the history index (stream ZC_HISTORY): one contracts.archive.IndexEntry a
                      game, written by the archiver once the game's archive is in the bucket zc_archive (an
                      Object Store) or a folder, read back and checked; never replaced or removed
    zc.removal.<game>  a finished game's removal from the hot streams, pending until its retention has run
                      (stream ZC_REMOVALS, a message schedule the archiver sets); when due, the server
                      delivers it on zc.remove.<game> and the archiver removes the game's commands, log,
                      feed, scores, views, standings, mark in the register and seeds, which its archive holds
    zc.history.<tenant>.<game>.removed  the record that a game left the hot streams (ZC_HISTORY, one
                      contracts.archive.Removed a game, for ever), which the archiver goes by to take out again
                      whatever of the game comes back (services/archiver: recheck)
    zc.records.<tenant>.list, zc.records.<tenant>.get.<game>  a tenant asks the records service
                      (services/records) for its archived games and a game's signed archive
                      (request/reply; no stream captures it)
    zc.dealer.reshuffle  the table asks the dealer for an R16 reshuffle (request/reply; only
                      the table may ask, only the dealer answers)
    KV zc_standings   latest standings per game; KV zc_dealer_seeds the dealer's secrets
    KV zc_views       the projector's views: `<game>.public` (contracts.views.PublicView)
                      and `<game>.seat.<n>` (SeatView); give a seat's key to that seat only. A seat
                      the bots service plays has its SeatView under `<game>.bot.<n>` too, which only
                      the bots' login reads (and a platform's, which reads every seat of its games)

Scores, feed and the buckets stay single: a few writes a hand, or written by the projector
off the synced path. A subject stored in a partition's commands stream (a timer's schedule
and its target, for example) gets its partition token in `command_stream_subjects` and a
mapping in access.py, so it lands in the same stream as the game's other commands.
"""
import asyncio
import contextlib
import json
import os
import re
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import structlog
from nats.js import JetStreamContext
from nats.js.api import (
    DiscardPolicy,
    KeyValueConfig,
    ObjectStoreConfig,
    PersistMode,
    RePublish,
    StorageType,
    StreamConfig,
)
from nats.js.errors import BadRequestError, NotFoundError

from zioncheck.contracts.commands import TIMER

# ZC_COMMANDS and ZC_LOG are the streams of the layout before partitions (`zioncheck migrate` moves them).
COMMANDS, LOG, SCORES, FEED, OPEN = "ZC_COMMANDS", "ZC_LOG", "ZC_SCORES", "ZC_FEED", "ZC_OPEN"
STANDINGS, SEEDS, VIEWS = "zc_standings", "zc_dealer_seeds", "zc_views"
RESHUFFLE = "zc.dealer.reshuffle"
# Every table instance answers here, so each can count the instances sharing the partitions.
TABLES_HERE = "zc.tables.here"
# Each log batch's number in its game's log, from 1: a reader on core NATS, which may drop
# a message, sees a gap in these and reads the missing batches back from the stream.
BATCH_HEADER = "Zc-Batch"
# On a batch that begins a deadline (R19-R23): when the table's clock says it falls, in seconds since
# the epoch. The views show it as a countdown (domain/views/projection.py); the log's data never holds it.
DUE_HEADER = "Zc-Due-At"


INTAKE_SUBJECTS = "zc.in.*.*"
INTAKE_GROUP = "zc-intake"
RECORDS_GROUP = "zc-records"   # the records service's queue group and its name in the Services API


def intake_subject(game: str) -> str:
    """Where a game's commands are handed to the intake: zc.in.<tenant>.<game> (game, a game key)."""
    return f"zc.in.{_tenant_game(game)}"


def stored_command_subject(partition: int, game: str, origin: str = "*") -> str:
    """A game's commands as its partition's stream stores them; origin "*" is all of them (a filter)."""
    return f"zc.cmd.{partition}.{game}.{origin}"


# What the server puts on a fired schedule's message: the schedule's subject. A client's publish
# carrying it is refused by the server, so it tells the table which schedule a timeout came from.
SCHEDULER_HEADER = "Nats-Scheduler"
SCHEDULE_HEADER = "Nats-Schedule"   # what makes a stored message a schedule (its time: `@at <RFC 3339>`)
SCHEDULE_SUBJECTS = "zc.timer.*.*"


def schedule_subject(partition: int, game: str) -> str:
    """Where the table keeps a game's pending deadline (a message schedule; R19, R21), in the
    game's partition's commands stream."""
    return f"zc.timer.{partition}.{game}"


def schedule_headers(partition: int, game: str, at: str) -> dict[str, str]:
    """The headers that make a message on schedule_subject a schedule: deliver its payload on the
    game's timer subject at `at` (RFC 3339, UTC)."""
    return {SCHEDULE_HEADER: f"@at {at}", "Nats-Schedule-Target": stored_command_subject(partition, game, TIMER)}


def origin_of(subject: str) -> str:
    """The command subject's origin token (published or stored form), "" for another shape."""
    parts = subject.split(".")
    if parts[:2] != ["zc", "cmd"]:
        return ""
    return parts[4] if len(parts) == 5 else parts[3] if len(parts) == 4 else ""


def log_subject(partition: int, game: str, kind: str = "*") -> str:
    """One kind of a game's log batches in its partition; by default all of them, in order (a filter)."""
    return f"zc.log.{partition}.{game}.{kind}"


def commands_stream(partition: int) -> str:
    return f"{COMMANDS}_{partition}"


def log_stream(partition: int) -> str:
    return f"{LOG}_{partition}"


def log_partition(stream: str) -> int | None:
    """The partition a stream named by log_stream holds the logs of; None for any other name."""
    prefix, _, number = stream.rpartition("_")
    return int(number) if prefix == LOG and number.isdigit() else None


def command_stream_subjects(partition: int) -> list[str]:
    return [stored_command_subject(partition, "*", "*"), schedule_subject(partition, "*")]


def log_stream_subjects(partition: int) -> list[str]:
    return [log_subject(partition, "*", "*")]


def hand_boundaries(partition: int) -> str:
    return log_subject(partition, "*", "hand")


def fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def partition_of(game: str, partitions: int) -> int:
    """A game's partition: fnv-1a 32 of its id mod P, as the server's mapping `partition(P, 1)` computes it."""
    return fnv1a32(game.encode()) % partitions


@dataclass(frozen=True)
class Layout:
    """Where a game's streams and subjects are, for P partitions."""
    partitions: int

    def of(self, game: str) -> int:
        return partition_of(game, self.partitions)

    def log_stream(self, game: str) -> str:
        return log_stream(self.of(game))

    def log_subject(self, game: str, kind: str = "*") -> str:
        return log_subject(self.of(game), game, kind)

    def commands_stream(self, game: str) -> str:
        return commands_stream(self.of(game))

    def command_filter(self, game: str) -> str:
        return stored_command_subject(self.of(game), game, "*")

    def log_streams(self) -> list[str]:
        return [log_stream(p) for p in range(self.partitions)]

    def commands_streams(self) -> list[str]:
        return [commands_stream(p) for p in range(self.partitions)]


def live_subject(game: str, kind: str = "*") -> str:
    """Where the server republishes what the log stored."""
    return f"zc.live.{game}.{kind}"


# --- tenants -----------------------------------------------------------------------------
# Each platform login is a tenant (services/bus/access.py). The house names a tenant's game by one
# subject token, its game key `<tenant>=<game>` (`=` is no letter of a game id or a login name), in
# everything only the house reads: commands, the log, timers, seeds. The default tenant's games keep
# their bare ids, as every game stored before tenants has. What a tenant reads and sends carries the
# tenant as a token of its own, so the server's permissions keep tenants apart:
#   zc.in.<tenant>.<game>, $KV.zc_views.<tenant>.<game>.public | .seat.<n>, $KV.zc_standings.<tenant>.<game>,
#   zc.feed.<tenant>.<game>, zc.public.<tenant>.<game>, zc.score.<tenant>.<game>, zc.rejected.<tenant>.<game>
TENANT_MARK = "="
DEFAULT_TENANT = "platform"   # the embedded server's platform login, and every game stored before tenants
ANY_GAME = f"*{TENANT_MARK}*"  # a key standing for every game of every tenant, in the patterns made from it


def game_key(tenant: str, game: str) -> str:
    """The house's name for a tenant's game."""
    return game if tenant == DEFAULT_TENANT else f"{tenant}{TENANT_MARK}{game}"


HISTORY = "ZC_HISTORY"               # the history index: one IndexEntry an archived game (services/history.py)
HISTORY_SUBJECTS = "zc.history.*.*"
ARCHIVE_BUCKET = "zc_archive"         # the Object Store bucket of games' archives (services/archive_store.py)


def history_subject(tenant: str, game: str) -> str:
    """Where the index keeps a game's entry: `game` is the id its tenant gave it ("*" for every game)."""
    return f"zc.history.{tenant}.{game}"


REMOVED_SUBJECTS = "zc.history.*.*.removed"


def removed_subject(key: str) -> str:
    """Where ZC_HISTORY keeps the record that the game `key` left the hot streams (contracts.archive.Removed),
    beside its index entry."""
    return f"{history_subject(*tenant_of(key))}.removed"


def archive_stream() -> str:
    """The stream behind the archive bucket."""
    return f"OBJ_{ARCHIVE_BUCKET}"


def archive_subjects() -> list[str]:
    """What the archive bucket's stream stores: its objects' chunks and their descriptions."""
    return [f"$O.{ARCHIVE_BUCKET}.C.>", f"$O.{ARCHIVE_BUCKET}.M.>"]


# A finished game's removal from the hot streams, once its retention has run (services/archiver): the archiver
# keeps it as a message schedule on zc.removal.<key> in the house's stream ZC_REMOVALS, and the server delivers
# it, when due, on zc.remove.<key>, where nobody else may publish.
REMOVALS = "ZC_REMOVALS"
REMOVAL_SUBJECTS, REMOVE_SUBJECTS = "zc.removal.*", "zc.remove.*"


def removal_subject(game: str) -> str:
    """Where the archiver keeps a finished game's removal, pending (`game`, its key)."""
    return f"zc.removal.{game}"


def remove_subject(game: str) -> str:
    """Where the server delivers a game's removal when it falls due."""
    return f"zc.remove.{game}"


def removal_headers(game: str, at: str) -> dict[str, str]:
    """The headers that make a message on removal_subject a schedule: deliver it on remove_subject at `at`
    (RFC 3339, UTC)."""
    return {"Nats-Schedule": f"@at {at}", "Nats-Schedule-Target": remove_subject(game)}


RECORDS_SUBJECTS = "zc.records.*.>"   # where tenants ask the records service about their archived games
PARTS_HEADER = "Zc-Parts"            # how many parts the records service sends an archive in


def records_subject(tenant: str, what: str) -> str:
    """Where a tenant asks the records service (services/records): `list`, or `get.<game>`."""
    return f"zc.records.{tenant}.{what}"


def tenant_of(key: str) -> tuple[str, str]:
    """A game key's tenant and the game id the tenant gave it."""
    tenant, mark, game = key.partition(TENANT_MARK)
    return (tenant, game) if mark else (DEFAULT_TENANT, key)


def _tenant_game(key: str) -> str:
    """A game key as two tokens, tenant and game: how it stands in what a tenant reads."""
    tenant, game = tenant_of(key)
    return f"{tenant}.{game}"


def score_subject(game: str) -> str:
    return f"zc.score.{_tenant_game(game)}"


def feed_subject(game: str) -> str:
    return f"zc.feed.{_tenant_game(game)}"


def public_view_key(game: str) -> str:
    return f"{_tenant_game(game)}.public"


def seat_view_key(game: str, seat: int) -> str:
    return f"{_tenant_game(game)}.seat.{seat}"


def bot_view_key(game: str, seat: int) -> str:
    """Where the view of a seat the bots service plays is kept as well: the bots' login reads these keys
    and no other view (access.py)."""
    return f"{_tenant_game(game)}.bot.{seat}"


BOT_VIEWS = "*.*.bot.*"   # every bot seat's view key of every game of every tenant (a pattern)


def view_keys(game: str) -> str:
    """Every view key of a game, its public view's and each seat's (a pattern)."""
    return f"{_tenant_game(game)}.>"


def standings_key(game: str) -> str:
    """Where the scoring service keeps a game's standings in KV zc_standings."""
    return _tenant_game(game)


def seed_key(game: str, hand: int) -> str:
    """Where the dealer keeps a hand's secret seed in KV zc_dealer_seeds (the house's alone)."""
    return f"{game}.{hand}"


def open_subject(game: str) -> str:
    """Where the register of games in play (stream ZC_OPEN) marks `game` open; `game_key(tenant, "*")`
    stands for every game of a tenant."""
    return f"zc.open.{_tenant_game(game)}"


OPEN_SUBJECTS = "zc.open.*.*"


def rejected_subject(game: str) -> str:
    return f"zc.rejected.{_tenant_game(game)}"


CHAT_SUBJECTS = "zc.chat.*.*"


def chat_subject(game: str) -> str:
    """Where the gateways pass a game's chat lines to each other (core NATS: no stream captures it)."""
    return f"zc.chat.{_tenant_game(game)}"


# What a tenant reads or sends, the register of games in play and the history index name the game by two tokens
# after these prefixes.
_TENANT_FACING = {"in", "feed", "score", "rejected", "public", "view", "open", "history", "$KV.zc_views",
                  "$KV.zc_standings"}


def game_of(subject: str) -> str:
    """The game key a subject names. zc.cmd.<p>.<key>.<origin>, zc.log.<p>.<key>.<kind> and
    zc.timer.<p>.<key> carry the partition before it, zc.live.<key>.<kind> and a seed's
    $KV.zc_dealer_seeds.<key>.<hand> not; what a tenant reads names tenant and game as two tokens
    (zc.feed.<tenant>.<game>, $KV.zc_views.<tenant>.<game>.public, ...)."""
    parts = subject.split(".")
    if len(parts) < 3:
        return ""
    if parts[1] in ("cmd", "log", "timer") and parts[2].isdigit() and len(parts) >= 4:
        return parts[3]
    if (parts[1] in _TENANT_FACING or f"{parts[0]}.{parts[1]}" in _TENANT_FACING) and len(parts) >= 4:
        return game_key(parts[2], parts[3])
    return parts[2]


def partition_in(subject: str) -> int | None:
    """The partition a stored command or log subject names, None for another shape."""
    parts = subject.split(".")
    if len(parts) == 5 and parts[1] in ("cmd", "log") and parts[2].isdigit():
        return int(parts[2])
    return None


GAME_ID_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
GAME_ID_MAX = 64
_GAME_ID = re.compile(f"[{re.escape(GAME_ID_LETTERS)}]{{1,{GAME_ID_MAX}}}")  # one check a command: no loop in Python


def valid_game_id(game: str) -> bool:
    """A game id is 1 to 64 of the ASCII letters, digits, - and _: one NATS subject token,
    never a wildcard, the same in every subject and key that names the game. A tenant's name is
    made of the same letters."""
    return _GAME_ID.fullmatch(game) is not None


def valid_game_key(key: str) -> bool:
    """A game id, or a tenant's name, `=` and a game id (game_key); never the default tenant's
    name that way, whose games keep their bare ids."""
    tenant, mark, game = key.rpartition(TENANT_MARK)
    if mark and (tenant == DEFAULT_TENANT or not valid_game_id(tenant)):
        return False
    return valid_game_id(game)


def new_game_id(kind: str = "game") -> str:
    """A fresh game id: `kind`, a hyphen and 12 random hex digits ("game-1a2b3c4d5e6f")."""
    game = f"{kind}-{uuid.uuid4().hex[:12]}"
    if not valid_game_id(game):
        raise ValueError(f"not a game id: {game!r} (1 to {GAME_ID_MAX} ASCII letters, digits, - and _)")
    return game


def kv_stream(bucket: str) -> str:
    """The stream behind a KV bucket."""
    return f"KV_{bucket}"


def kv_subject(bucket: str, key: str) -> str:
    """The subject a KV bucket keeps `key` on (a key may hold wildcards): what a watch, a direct get
    and a permission name."""
    return f"$KV.{bucket}.{key}"


MAX_COMMAND_BYTES = 16 * 1024   # far above any real command; a larger one is refused by the stream
GIB = 1024 ** 3


@dataclass(frozen=True)
class StoreLimits:
    """How much the store may hold. The account's JetStream storage is capped at `total_bytes`, and
    every stream and bucket has its own byte limit, its share of the total; the shares add up to the
    whole, so the limits together fit the account's cap (access.py) and the server's max_file_store
    (embedded.py) exactly. At a limit the store refuses what is new and keeps everything it holds: the
    limited streams discard new, and a full account refuses any publish. The commands streams must discard
    old, as message schedules require, so the intake refuses a tenant's command once its game's commands
    stream holds COMMANDS_HIGH_WATER of its limit: none is ever pushed out (the rest is room for the
    dealer's and the timers' commands); a game keeps its last `game_batches` commands of each origin (the
    older ones were decided into its log long before). A game's log holds at most `game_batches` batches
    of a kind. A tenant has at most `tenant_games` games in play, and holds at most `tenant_share` of the
    feed, of the views bucket and of the register of games in play (the intake's checks).
    docs/scaling.md sizes them; a deployment sets the total with ZIONCHECK_STORE_GIB."""
    total_bytes: int = 16 * GIB
    game_batches: int = 40_000    # a whole game takes about 1,500
    tenant_games: int = 10_000    # games a tenant has in play at once: ZIONCHECK_TENANT_GAMES
    tenant_share: float = 0.25    # of each part every tenant shares, the most one tenant holds: ZIONCHECK_TENANT_SHARE

    # Each part's share of the total: the log and the commands are the record while a game is hot, the archive
    # for ever after (its games leave the hot streams once their retention has run); the rest is derived.
    SHARES = {"commands": 0.12, "log": 0.42, FEED: 0.10, OPEN: 0.01, SCORES: 0.02, VIEWS: 0.07, STANDINGS: 0.02,
              SEEDS: 0.02, ARCHIVE_BUCKET: 0.18, HISTORY: 0.02, REMOVALS: 0.02}
    COMMANDS_HIGH_WATER = 0.95
    # What the parts every tenant shares store a message, subject, headers and the store's record included
    # (docs/scaling.md, Limits): a feed batch, on average over a game (measured 150-233 bytes of batch from 2
    # to 64 seats, and up to 330 beside it with 64-letter tenant and game ids); a view at its largest (a
    # 64-seat game's seat view, 14 KB); a mark in the register (its subject and record).
    FEED_BATCH_BYTES = 1024
    VIEW_BYTES = 16 * 1024
    MARK_BYTES = 256

    def bytes_of(self, part: str, partitions: int = 1) -> int:
        return int(self.total_bytes * self.SHARES[part] / partitions)

    def tenant_feed_batches(self) -> int:
        """How many feed batches one tenant's games may hold: its share of the feed."""
        return int(self.bytes_of(FEED) * self.tenant_share / self.FEED_BATCH_BYTES)

    def tenant_view_keys(self) -> int:
        """How many views one tenant's games may hold (a game's public one, one a seat, one a bot seat's):
        its share of the views bucket."""
        return int(self.bytes_of(VIEWS) * self.tenant_share / self.VIEW_BYTES)

    def tenant_games_in_play(self) -> int:
        """How many games one tenant may have in play: `tenant_games`, within its share of the register."""
        return min(self.tenant_games, int(self.bytes_of(OPEN) * self.tenant_share / self.MARK_BYTES))

    @classmethod
    def configured(cls) -> "StoreLimits":
        gib = _configured("ZIONCHECK_STORE_GIB", "a number of GiB from 1", float, 1, cls.total_bytes / GIB)
        games = _configured("ZIONCHECK_TENANT_GAMES", "a whole number of games from 1", int, 1, cls.tenant_games)
        share = _configured("ZIONCHECK_TENANT_SHARE", "a fraction above 0, at most 1", float, 1e-9, cls.tenant_share)
        if share > 1:
            raise ValueError(f"ZIONCHECK_TENANT_SHARE must be a fraction above 0, at most 1, not {share!r}")
        return cls(total_bytes=int(gib * GIB), tenant_games=games, tenant_share=share)


def _configured(name: str, what: str, kind: type, least: float, default):
    """A number from the environment variable `name`, `default` when unset; ValueError saying `what` it
    must be for one that is not."""
    given = os.environ.get(name, "")
    if not given:
        return default
    try:
        value = kind(given)
    except ValueError:
        value = None
    if value is None or value < least:
        raise ValueError(f"{name} must be {what}, not {given!r}")
    return value


def stream_configs(replicas: int = 1, partitions: int = 1, limits: StoreLimits | None = None) -> list[StreamConfig]:
    limits = limits or StoreLimits.configured()
    common = dict(storage=StorageType.FILE, num_replicas=replicas, discard=DiscardPolicy.NEW)
    per_partition = []
    for p in range(partitions):
        per_partition += [
            # Schedules need discard old: at its byte limit the oldest commands would go, so the intake refuses
            # a tenant's command (store_full) before the stream is that full (COMMANDS_HIGH_WATER); the house
            # alone writes it. Atomic batches: the intake's stores of many games share a synced write (store_grouped).
            StreamConfig(name=commands_stream(p), subjects=command_stream_subjects(p), duplicate_window=120.0,
                         allow_direct=True, allow_msg_schedules=True, allow_atomic=True, max_msg_size=MAX_COMMAND_BYTES,
                         max_msgs_per_subject=limits.game_batches, deny_delete=True,
                         max_bytes=limits.bytes_of("commands", partitions),
                         **(common | {"discard": DiscardPolicy.OLD})),
            # Purged only by the archiver, of a game whose archive is written, checked and indexed (access.py).
            # Atomic batches: the table's appends of many games share a synced write (publish_grouped).
            StreamConfig(name=log_stream(p), subjects=log_stream_subjects(p), deny_delete=True, allow_atomic=True,
                         duplicate_window=120.0, allow_direct=True, republish=RePublish(
                             src=log_subject(p, "*", "*"), dest=live_subject("{{wildcard(1)}}", "{{wildcard(2)}}")),
                         max_bytes=limits.bytes_of("log", partitions),
                         max_msgs_per_subject=limits.game_batches, discard_new_per_subject=True, **common)]
    return per_partition + [
        StreamConfig(name=SCORES, subjects=[score_subject(ANY_GAME)], deny_delete=True,
                     allow_direct=True, max_bytes=limits.bytes_of(SCORES), **common),
        # Rebuildable from the log at any time, so no deny_purge: a rebuild purges a game's feed (the operator).
        # Off the synced path (DERIVED), so no atomic batches; the projector stores the feed as a fast batch
        # (allow_batched: each message stored as it comes, one answer for many, services/bus/fast_ingest.py).
        StreamConfig(name=FEED, subjects=[feed_subject(ANY_GAME)], duplicate_window=120.0, deny_delete=True,
                     allow_direct=True, allow_batched=True,
                     republish=RePublish(src=feed_subject(ANY_GAME), dest=public_feed_subject(
                         game_key("{{wildcard(1)}}", "{{wildcard(2)}}"))),
                     max_bytes=limits.bytes_of(FEED), **(common | derived_store(replicas))),
        # The intake and the table write it, the table purges it: one message a game in play, none once it is
        # over (and the archiver takes out a removed game's, should a server bring it back).
        StreamConfig(name=OPEN, subjects=[OPEN_SUBJECTS], deny_delete=True, allow_direct=True,
                     max_msgs_per_subject=1, max_bytes=limits.bytes_of(OPEN), **common),
        # One entry a game, written once and kept for ever: a second write on a game's subject is refused.
        # Beside each entry, the record of the game's removal from the hot streams, likewise once and for ever:
        # nothing here is ever dropped for a subject's limit (which nats-server 2.15.1 brings back after a crash).
        StreamConfig(name=HISTORY, subjects=[HISTORY_SUBJECTS, REMOVED_SUBJECTS], deny_delete=True, deny_purge=True,
                     allow_direct=True, duplicate_window=120.0, max_msgs_per_subject=1, discard_new_per_subject=True,
                     max_bytes=limits.bytes_of(HISTORY), **common),
        # The archiver's alone: one removal pending a finished game. Schedules need discard old: at its limit the
        # oldest pending removals go, and their games stay hot (nothing is lost).
        StreamConfig(name=REMOVALS, subjects=[REMOVAL_SUBJECTS, REMOVE_SUBJECTS], deny_delete=True,
                     allow_msg_schedules=True, max_msgs_per_subject=1, max_bytes=limits.bytes_of(REMOVALS),
                     **(common | {"discard": DiscardPolicy.OLD})),
    ]


def archive_config(replicas: int = 1, limits: StoreLimits | None = None) -> ObjectStoreConfig:
    """The archive bucket, an Object Store: the archiver writes each finished game's archive there, named
    `<game key>.zca` (services/archiver)."""
    limits = limits or StoreLimits.configured()
    return ObjectStoreConfig(bucket=ARCHIVE_BUCKET, max_bytes=limits.bytes_of(ARCHIVE_BUCKET),
                             storage=StorageType.FILE, replicas=replicas)


def bucket_configs(limits: StoreLimits | None = None) -> dict[str, KeyValueConfig]:
    """The buckets. Direct gets name the key in their subject, which is how a spectator is allowed
    public views only; the views are republished on zc.view.<key> for readers that make no consumers."""
    limits = limits or StoreLimits.configured()
    return {STANDINGS: KeyValueConfig(bucket=STANDINGS, direct=True, max_bytes=limits.bytes_of(STANDINGS)),
            SEEDS: KeyValueConfig(bucket=SEEDS, direct=True, max_bytes=limits.bytes_of(SEEDS)),
            VIEWS: KeyValueConfig(bucket=VIEWS, direct=True, max_bytes=limits.bytes_of(VIEWS),
                                  republish=RePublish(src=kv_subject(VIEWS, ">"), dest=VIEW_LIVE_SUBJECTS))}


BUCKETS = (STANDINGS, SEEDS, VIEWS)
VIEW_LIVE_SUBJECTS = "zc.view.>"
# The views and the feed are derived from the log, rebuilt from it whenever lost: the server stores them
# without a sync a write (a server killed may lose the last of them, and the projector's sweep writes
# them again), so they take nothing of the disk's syncs from the log and the commands. On one node they
# have persist mode async; the server keeps that to unreplicated streams without atomic batches, so
# replicated they are held in memory on each replica (a node that restarts takes them from the others; a
# whole cluster that restarts comes back without them, and the projector writes them again). A feed
# batch written again may land at another place in the stream than the one lost: its readers go by each
# batch's seq, and the gateway reads a game's feed again from its start on a server it has not read.
DERIVED = (kv_stream(VIEWS), FEED)


def derived_store(replicas: int) -> dict:
    """How a stream of DERIVED is stored, off the synced path: its storage and persist mode."""
    return {"storage": StorageType.MEMORY if replicas > 1 else StorageType.FILE,
            "persist_mode": PersistMode.ASYNC if replicas == 1 else None}


def derived_stream_config(name: str, replicas: int) -> StreamConfig:
    """How the stream `name` of DERIVED is made with `replicas`: off the synced path."""
    if name == FEED:
        return next(config for config in stream_configs(replicas) if config.name == FEED)
    return bucket_stream_config(bucket_configs()[VIEWS], replicas)


def off_the_synced_path(config: StreamConfig) -> bool:
    """Whether a stream as made is stored without a sync a write (a derived one, as it should be)."""
    return config.persist_mode == PersistMode.ASYNC or config.storage == StorageType.MEMORY


def bucket_stream_config(config: KeyValueConfig, replicas: int) -> StreamConfig:
    """The stream of bucket `config`, as nats-py's create_key_value makes it (one value a key, deletes by
    markers, direct gets); the views' off the synced path (DERIVED), which a bucket's own settings cannot say."""
    derived = kv_stream(config.bucket) in DERIVED
    return StreamConfig(name=kv_stream(config.bucket), subjects=[kv_subject(config.bucket, ">")],
                        allow_direct=config.direct, allow_rollup_hdrs=True, allow_msg_ttl=True, deny_delete=True,
                        discard=DiscardPolicy.NEW, duplicate_window=120.0, max_bytes=config.max_bytes,
                        max_consumers=-1, max_msgs=-1, max_msgs_per_subject=config.history or 1,
                        num_replicas=replicas, republish=config.republish,
                        **(derived_store(replicas) if derived else {"storage": StorageType.FILE}))


def view_live_subject(key: str) -> str:
    """Where each view of `key` (public_view_key, seat_view_key) goes out live: the projector's as each batch
    is folded, and the server's republish of each one stored."""
    return f"zc.view.{key}"


def is_view_of(msg, key: str) -> bool:
    """Whether a message heard on view_live_subject(key) is a view of `key`: the projector's live views and the
    server's republish of a stored one both name the key's stored subject in `Nats-Subject`; anything else
    delivered there (a reply another login aimed at it) is no view of it."""
    return (msg.headers or {}).get("Nats-Subject") == kv_subject(VIEWS, key)


def public_feed_subject(game: str) -> str:
    """Where the server republishes each feed batch stored for `game`."""
    return f"zc.public.{_tenant_game(game)}"


log = structlog.get_logger("topology")


async def ensure_topology(js: JetStreamContext, replicas: int | None = None,
                          say: Callable[[str], None] = lambda line: None, partitions: int | None = None) -> list[str]:
    """Create the streams and buckets that are missing; returns what changed, one line each.

    An existing stream is never changed by omission: its replicas change only when
    `replicas` is given and differs, and that is said. New ones get `replicas` (default 1).
    The existing ones are brought to today's seals and limits first, so that limits lowered to make
    room for a new part free their room before that part is made.
    """
    changes = []
    partitions = partitions or (await layout(js)).partitions
    await check_partitions(js, partitions)
    wanted: dict[str, StreamConfig | KeyValueConfig | ObjectStoreConfig] = {
        c.name: c for c in stream_configs(replicas or 1, partitions)}
    wanted.update({kv_stream(bucket): config for bucket, config in bucket_configs().items()})
    wanted[archive_stream()] = archive_config(replicas or 1)
    missing = {}
    for name, config in wanted.items():
        try:
            info = await js.stream_info(name)
        except NotFoundError:
            missing[name] = config
            continue
        current = info.config
        if replicas is not None and current.num_replicas != replicas and name in DERIVED:
            # stored apart from the synced path one way alone and another replicated: made again, empty
            changes.append(f"{name}: made again with {replicas} replica(s); the projector writes it again")
            await js.delete_stream(name)
            await js.add_stream(config=derived_stream_config(name, replicas))
            continue
        if replicas is not None and current.num_replicas != replicas:
            changes.append(f"{name}: replicas {current.num_replicas} -> {replicas}")
            await js.update_stream(config=current.evolve(num_replicas=replicas))
        sealed = _sealing(current, config)
        if sealed.get("max_bytes", 0) > 0 and current.discard == DiscardPolicy.OLD and \
                info.state.bytes > sealed["max_bytes"]:
            # A stream that discards old would drop its oldest messages to fit a limit it is over: left as it is
            changes.append(f"{name} holds {info.state.bytes:,} bytes, more than its byte limit of "
                           f"{sealed.pop('max_bytes'):,}, which would push its oldest out: left unlimited (the "
                           f"account's cap bounds it) until the archiver has removed enough finished games or "
                           f"ZIONCHECK_STORE_GIB is raised; a later start sets it")
        if sealed:
            changes.append(f"{name}: {', '.join(_said(field, value) for field, value in sealed.items())}")
            await js.update_stream(config=current.evolve(**sealed))
            if name in (FEED, SCORES) and "subjects" in sealed:   # a store made before tenants
                changes.append(f"{name}: what a tenant reads names its tenant now (zc.feed.<tenant>.<game>); "
                               f"`zioncheck rebuild-views --feed` writes the views and feed of the games stored "
                               f"before again")
        if name in DERIVED and not off_the_synced_path(current):
            changes.append(f"{name} is synced to disk at every write, as the log is, though it is derived from the "
                           f"log: `zioncheck migrate` makes it again off the synced path and writes every game's "
                           f"{'feed' if name == FEED else 'views'} again from its log")
        if current.deny_purge and isinstance(config, StreamConfig) and not config.deny_purge:
            changes.append(f"{name} was made denying purges, which the server never lifts: what it holds of the "
                           f"games the archiver archives stays in it until `zioncheck migrate`, with the services "
                           f"stopped, makes it again without the seal (docs/history.md, The archiver)")
    for name, config in missing.items():
        with contextlib.suppress(BadRequestError):  # made meanwhile by another start: theirs stands
            if isinstance(config, KeyValueConfig):
                await js.add_stream(config=bucket_stream_config(config, replicas or 1))
            elif isinstance(config, ObjectStoreConfig):
                await js.create_object_store(config.bucket, config=config)
            else:
                await js.add_stream(config=config)
            changes.append(f"created {name} with {replicas or 1} replica(s)")
    changes += await spread_leaders(js, partitions)
    with contextlib.suppress(NotFoundError):
        if (await js.stream_info(LOG)).state.messages:
            changes.append(f"{LOG} holds games stored before partitions: they stay unseen until `zioncheck migrate` "
                           f"moves them (with the services stopped)")
    for line in changes:
        log.info("topology", change=line)
        say(line)
    return changes


# What a store made by an earlier version lacks, field by field: the seals and limits every stream
# has now, the subjects and schedules of timers, direct gets and republished subjects for readers
# that make no consumers. A stream's other settings are never changed by omission.
_SEALED_FIELDS = ("subjects", "allow_msg_schedules", "allow_atomic", "allow_batched", "allow_direct", "deny_delete",
                  "deny_purge", "discard", "max_bytes", "max_msgs_per_subject", "discard_new_per_subject", "republish")


def _sealing(current: StreamConfig, wanted: StreamConfig | KeyValueConfig | ObjectStoreConfig) -> dict:
    """The fields of `current` to set so that it is sealed and limited as `wanted` says. A seal against
    deletes or purges is only ever set: the server never lifts one (a stream made with it keeps it)."""
    if isinstance(wanted, KeyValueConfig):   # a bucket: its stream keeps the KV settings it was made with
        target = {"allow_direct": wanted.direct, "max_bytes": wanted.max_bytes, "republish": wanted.republish}
    elif isinstance(wanted, ObjectStoreConfig):
        target = {"max_bytes": wanted.max_bytes}
    else:
        target = {field: getattr(wanted, field) for field in _SEALED_FIELDS}
        target.update({seal: True for seal in ("deny_delete", "deny_purge") if getattr(current, seal)})
    return {field: value for field, value in target.items()
            if value is not None and not _same(getattr(current, field), value)}


def _said(field: str, value) -> str:
    if isinstance(value, RePublish):
        return f"republish {value.src} on {value.dest}"
    if isinstance(value, list):
        return f"{field} {' '.join(value)}"
    return f"{field} {getattr(value, 'value', value)}"


def _same(have, want) -> bool:
    if isinstance(want, RePublish) and isinstance(have, RePublish):
        return (have.src, have.dest, bool(have.headers_only)) == (want.src, want.dest, bool(want.headers_only))
    if isinstance(want, list) and isinstance(have, list):
        return sorted(have) == sorted(want)
    if isinstance(want, bool):
        return bool(have) == want
    return have == want


async def missing_topology(js: JetStreamContext) -> list[str]:
    """The streams (and buckets' streams) that do not exist yet."""
    missing = []
    partitions = (await layout(js)).partitions
    await check_partitions(js, partitions)
    for name in [c.name for c in stream_configs(1, partitions)] + [kv_stream(b) for b in BUCKETS] + [
            archive_stream()]:
        try:
            await js.stream_info(name)
        except NotFoundError:
            missing.append(name)
    return missing


PARTITIONS_ASK = "zc.partitions"
PARTITIONS_TOLD = "zc.partitions.*"


class NoPartitions(Exception):
    """The server maps no partitions: its account block was made before partitions."""


_layouts: "weakref.WeakKeyDictionary[object, Layout]" = weakref.WeakKeyDictionary()


async def layout(js: JetStreamContext) -> Layout:
    """The partitions the server's account maps games to, asked once per connection: a message on
    zc.partitions comes back on zc.partitions.<P> (access.py: mappings)."""
    nc = js._nc
    if nc in _layouts:
        return _layouts[nc]
    told: asyncio.Future = asyncio.get_running_loop().create_future()

    async def on_told(msg) -> None:
        if not told.done():
            told.set_result(msg.subject)
    sub = await nc.subscribe(PARTITIONS_TOLD, cb=on_told)
    plain = await nc.subscribe(PARTITIONS_ASK, cb=on_told)
    try:
        await nc.publish(PARTITIONS_ASK, b"")
        subject = await asyncio.wait_for(told, 5.0)
    except TimeoutError:
        raise NoPartitions("the server did not answer on zc.partitions (a login without that right?)") from None
    finally:
        await sub.unsubscribe()
        await plain.unsubscribe()
    if subject == PARTITIONS_ASK or not subject.rsplit(".", 1)[-1].isdigit():
        raise NoPartitions("the server maps no partitions: its accounts block predates them; make it again "
                           "with `zioncheck credentials --deploy --partitions P`")
    found = _layouts[nc] = Layout(int(subject.rsplit(".", 1)[-1]))
    return found


class PartitionMismatch(Exception):
    """The store's partition streams are not the ones the server's mapping sends games to."""


async def stream_names(js: JetStreamContext, subject: str) -> list[str]:
    """The streams holding any subject under `subject` (a filter)."""
    names: list[str] = []
    while True:
        reply = await js._nc.request("$JS.API.STREAM.NAMES", json.dumps(
            {"subject": subject, "offset": len(names)}).encode(), timeout=5.0)
        answer = json.loads(reply.data)
        page = answer.get("streams") or []
        names += page
        if not page or len(names) >= answer.get("total", 0):
            return sorted(names)


async def check_partitions(js: JetStreamContext, partitions: int) -> None:
    """Raise PartitionMismatch, in one line, when the store was made for another P than the mapping's."""
    found = {p for name in await stream_names(js, "zc.log.>") if (p := log_partition(name)) is not None}
    if found and found != set(range(partitions)):
        raise PartitionMismatch(
            f"the server maps games to {partitions} partition(s) but the store holds the logs of {len(found)} "
            f"({', '.join(log_stream(p) for p in sorted(found))}): deploy with --partitions {len(found)}, "
            f"the P the store was made with")


async def spread_leaders(js: JetStreamContext, partitions: int) -> list[str]:
    """On a cluster, the partition streams' leaders over every node in turn (a stream's appends are
    stored by its leader): ZC_COMMANDS_0 on the first node, ZC_LOG_0 on the second, and so on. Asks a
    leader to step down for the preferred node only when some node leads more than its share."""
    streams = [name for p in range(partitions) for name in (commands_stream(p), log_stream(p))]
    infos = {name: await js.stream_info(name) for name in streams}
    first = infos[streams[0]].cluster
    if first is None or not first.replicas:
        return []
    nodes = sorted({first.leader, *(peer.name for peer in first.replicas)} - {None})
    leaders = {name: info.cluster.leader for name, info in infos.items() if info.cluster}
    share = -(-len(streams) // len(nodes))
    if all(list(leaders.values()).count(node) <= share for node in nodes):
        return []
    changes = []
    for index, name in enumerate(streams):
        wanted = nodes[index % len(nodes)]
        if leaders.get(name) == wanted:
            continue
        with contextlib.suppress(Exception):  # a leader that will not move now stays; the next start tries again
            await js._nc.request(f"$JS.API.STREAM.LEADER.STEPDOWN.{name}",
                                 json.dumps({"placement": {"preferred": wanted}}).encode(), timeout=5.0)
            changes.append(f"{name}: leader {leaders.get(name)} -> {wanted}")
    return changes
