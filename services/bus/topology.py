"""Streams, subjects and buckets: the NATS side of the wire contract.

    zc.cmd.<game>.<origin>  commands (stream ZC_COMMANDS); the stream sequence totally
                      orders each game's commands whatever their origin. The origin says who
                      may have sent it, because only that role may publish there:
                      `play` (platforms, the gateway, bots: a game's start and seats' moves)
                      and `dealer` (deals and seed reveals). Filter zc.cmd.<game>.* for a game
    zc.timer.<game>   the game's one pending deadline (R19, R21), kept in ZC_COMMANDS as a JetStream
                      message schedule (headers Nats-Schedule: @at <time>, Nats-Schedule-Target:
                      zc.cmd.<game>.timer). Only the table publishes here; publishing again
                      replaces the deadline. When it comes, the server itself stores the
                      payload, a timeout command, on zc.cmd.<game>.timer with the header
                      Nats-Scheduler: zc.timer.<game>, which no client can set
    zc.log.<game>.<kind>  the game log (stream ZC_LOG): append-only, written by the table
                      only; kind `hand` for a batch that starts the game or ends a hand, `move`
                      for any other. Follow zc.log.<game>.* for the whole log; the dealer and
                      scoring read only zc.log.*.hand, a few batches a hand instead of hundreds
    zc.live.<game>.<kind>  each batch the log stored, republished by the server on core NATS
                      (headers Nats-Sequence and Zc-Batch): a cheap live feed. A core
                      subscriber on zc.log.> would also see appends the stream refused
    zc.score.<game>   per-hand scores and totals (stream ZC_SCORES)
    zc.feed.<game>    the redacted public feed, one message per log batch with anything
                      public in it (stream ZC_FEED, contracts.feed.FeedBatch)
    zc.rejected.<game>  refusals of commands for games that were never started (core NATS,
                      published by the table only)
    zc.dealer.reshuffle  the table asks the dealer for an R16 reshuffle (request/reply; only
                      the table may ask, only the dealer answers)
    KV zc_standings   latest standings per game; KV zc_dealer_seeds the dealer's secrets
    KV zc_views       the projector's views: `<game>.public` (contracts.views.PublicView)
                      and `<game>.seat.<n>` (SeatView); give a seat's key to that seat only
"""
import contextlib
import uuid
from collections.abc import Callable

import structlog
from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig, RePublish, StorageType, StreamConfig
from nats.js.errors import BadRequestError, NotFoundError

from zioncheck.contracts.commands import PLAY, TIMER

COMMANDS, LOG, SCORES, FEED = "ZC_COMMANDS", "ZC_LOG", "ZC_SCORES", "ZC_FEED"
STANDINGS, SEEDS, VIEWS = "zc_standings", "zc_dealer_seeds", "zc_views"
RESHUFFLE = "zc.dealer.reshuffle"
# Each log batch's number in its game's log, from 1: a reader on core NATS, which may drop
# a message, sees a gap in these and reads the missing batches back from the stream.
BATCH_HEADER = "Zc-Batch"


def command_subject(game: str, origin: str = PLAY) -> str:
    """Where `origin` sends a game's commands; origin "*" is all of a game's commands (a filter)."""
    return f"zc.cmd.{game}.{origin}"


COMMAND_SUBJECTS = "zc.cmd.*.*"
SCHEDULE_SUBJECTS = "zc.timer.*"
# What the server puts on a fired schedule's message: the schedule's subject. A client's publish
# carrying it is refused by the server, so it tells the table which schedule a timeout came from.
SCHEDULER_HEADER = "Nats-Scheduler"


def schedule_subject(game: str) -> str:
    """Where the table keeps a game's pending deadline (a message schedule; R19, R21)."""
    return f"zc.timer.{game}"


def schedule_headers(game: str, at: str) -> dict[str, str]:
    """The headers that make a message on schedule_subject(game) a schedule: deliver its payload on
    the game's timer subject at `at` (RFC 3339, UTC)."""
    return {"Nats-Schedule": f"@at {at}", "Nats-Schedule-Target": command_subject(game, TIMER)}


def origin_of(subject: str) -> str:
    """The command subject's origin token, "" when the subject has another shape."""
    parts = subject.split(".")
    return parts[3] if len(parts) == 4 else ""


LOG_SUBJECTS = "zc.log.*.*"
HAND_BOUNDARIES = "zc.log.*.hand"


def log_subject(game: str, kind: str = "*") -> str:
    """One kind of a game's log batches; by default all of them, in order (a filter)."""
    return f"zc.log.{game}.{kind}"


def live_subject(game: str, kind: str = "*") -> str:
    """Where the server republishes what the log stored."""
    return f"zc.live.{game}.{kind}"


def score_subject(game: str) -> str:
    return f"zc.score.{game}"


def feed_subject(game: str) -> str:
    return f"zc.feed.{game}"


def public_view_key(game: str) -> str:
    return f"{game}.public"


def seat_view_key(game: str, seat: int) -> str:
    return f"{game}.seat.{seat}"


def seed_key(game: str, hand: int) -> str:
    """Where the dealer keeps a hand's secret seed in KV zc_dealer_seeds."""
    return f"{game}.{hand}"


def rejected_subject(game: str) -> str:
    return f"zc.rejected.{game}"


def game_of(subject: str) -> str:
    parts = subject.split(".")
    return parts[2] if len(parts) > 2 else ""


GAME_ID_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
GAME_ID_MAX = 64


def valid_game_id(game: str) -> bool:
    """A game id is 1 to 64 of the ASCII letters, digits, - and _: one NATS subject token,
    never a wildcard, the same in every subject and key that names the game."""
    return 0 < len(game) <= GAME_ID_MAX and all(c in GAME_ID_LETTERS for c in game)


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


def stream_configs(replicas: int = 1) -> list[StreamConfig]:
    common = dict(storage=StorageType.FILE, num_replicas=replicas)
    return [
        StreamConfig(name=COMMANDS, subjects=[COMMAND_SUBJECTS, SCHEDULE_SUBJECTS], duplicate_window=120.0,
                     allow_direct=True, allow_msg_schedules=True, max_msg_size=MAX_COMMAND_BYTES, **common),
        StreamConfig(name=LOG, subjects=[LOG_SUBJECTS], deny_delete=True, deny_purge=True,
                     duplicate_window=120.0, republish=RePublish(src=LOG_SUBJECTS, dest=live_subject(
                         "{{wildcard(1)}}", "{{wildcard(2)}}")), **common),
        StreamConfig(name=SCORES, subjects=["zc.score.*"], **common),
        # Rebuildable from the log at any time, so no deny_purge: a rebuild purges a game's feed.
        StreamConfig(name=FEED, subjects=["zc.feed.*"], duplicate_window=120.0, **common),
    ]


# Direct gets name the key in their subject, which is how a spectator is allowed public views only.
BUCKETS = {STANDINGS: KeyValueConfig(bucket=STANDINGS, direct=True),
           SEEDS: KeyValueConfig(bucket=SEEDS, direct=True),
           VIEWS: KeyValueConfig(bucket=VIEWS, direct=True)}

log = structlog.get_logger("topology")


async def ensure_topology(js: JetStreamContext, replicas: int | None = None,
                          say: Callable[[str], None] = lambda line: None) -> list[str]:
    """Create the streams and buckets that are missing; returns what changed, one line each.

    An existing stream is never changed by omission: its replicas change only when
    `replicas` is given and differs, and that is said. New ones get `replicas` (default 1).
    """
    changes = []
    wanted: dict[str, StreamConfig | KeyValueConfig] = {c.name: c for c in stream_configs(replicas or 1)}
    wanted.update({kv_stream(bucket): config for bucket, config in BUCKETS.items()})
    for name, config in wanted.items():
        try:
            info = await js.stream_info(name)
        except NotFoundError:
            with contextlib.suppress(BadRequestError):  # made meanwhile by another start: theirs stands
                if isinstance(config, KeyValueConfig):
                    await js.create_key_value(config=config, replicas=replicas or 1, storage=StorageType.FILE)
                else:
                    await js.add_stream(config=config)
                changes.append(f"created {name} with {replicas or 1} replica(s)")
            continue
        current = info.config
        if replicas is not None and current.num_replicas != replicas:
            changes.append(f"{name}: replicas {current.num_replicas} -> {replicas}")
            await js.update_stream(config=current.evolve(num_replicas=replicas))
        if name == COMMANDS and current.subjects != config.subjects:  # stores made before origins, or timers
            why = ("commands now name their origin: zc.cmd.<game>.play, .dealer, .timer; "
                   if COMMAND_SUBJECTS not in (current.subjects or []) else "")
            changes.append(f"{name}: subjects {', '.join(current.subjects or [])} -> {', '.join(config.subjects)} "
                           f"({why}the table keeps each game's deadline on zc.timer.<game>)")
            current = current.evolve(subjects=config.subjects)
            await js.update_stream(config=current)
        if name == COMMANDS and not current.allow_msg_schedules:  # stores made before the server's timers
            changes.append(f"{name}: message schedules on, so a turn's deadline comes back as a command")
            await js.update_stream(config=current.evolve(allow_msg_schedules=True))
        if name == kv_stream(VIEWS) and not current.allow_direct:  # stores made before direct gets
            changes.append(f"{name}: direct gets on, so spectators can read public views by key")
            await js.update_stream(config=current.evolve(allow_direct=True))
    for line in changes:
        log.info("topology", change=line)
        say(line)
    return changes


async def missing_topology(js: JetStreamContext) -> list[str]:
    """The streams (and buckets' streams) that do not exist yet."""
    missing = []
    for name in [c.name for c in stream_configs()] + [kv_stream(b) for b in BUCKETS]:
        try:
            await js.stream_info(name)
        except NotFoundError:
            missing.append(name)
    return missing
