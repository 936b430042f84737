"""Streams, subjects and buckets: the NATS side of the wire contract.

    zc.cmd.<game>     commands, one subject per game (stream ZC_COMMANDS): the
                      stream sequence totally orders each game's commands
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
    zc.rejected.<game>  refusals of commands for games that were never started (core NATS)
    zc.dealer.reshuffle  the table asks the dealer for an R16 reshuffle (request/reply)
    KV zc_standings   latest standings per game; KV zc_dealer_seeds the dealer's secrets
    KV zc_views       the projector's views: `<game>.public` (contracts.views.PublicView)
                      and `<game>.seat.<n>` (SeatView); give a seat's key to that seat only
"""
from nats.js import JetStreamContext
from nats.js.api import RePublish, StorageType, StreamConfig
from nats.js.errors import BadRequestError

COMMANDS, LOG, SCORES, FEED = "ZC_COMMANDS", "ZC_LOG", "ZC_SCORES", "ZC_FEED"
STANDINGS, SEEDS, VIEWS = "zc_standings", "zc_dealer_seeds", "zc_views"
RESHUFFLE = "zc.dealer.reshuffle"
# Deals, reshuffles and reveals are accepted only with this header set to "dealer";
# in production, NATS permissions let only the dealer's account set it on zc.cmd.>.
ROLE_HEADER = "Zc-Role"
# Each log batch's number in its game's log, from 1: a reader on core NATS, which may drop
# a message, sees a gap in these and reads the missing batches back from the stream.
BATCH_HEADER = "Zc-Batch"


def command_subject(game: str) -> str:
    return f"zc.cmd.{game}"


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


def rejected_subject(game: str) -> str:
    return f"zc.rejected.{game}"


def game_of(subject: str) -> str:
    return subject.split(".")[2]


def valid_game_id(game: str) -> bool:
    """A game id is one NATS subject token: letters, digits, - and _."""
    return bool(game) and len(game) <= 64 and all(c.isalnum() or c in "-_" for c in game)


def stream_configs(replicas: int = 1) -> list[StreamConfig]:
    common = dict(storage=StorageType.FILE, num_replicas=replicas)
    return [
        StreamConfig(name=COMMANDS, subjects=["zc.cmd.*"], duplicate_window=120.0, allow_direct=True, **common),
        StreamConfig(name=LOG, subjects=[LOG_SUBJECTS], deny_delete=True, deny_purge=True,
                     duplicate_window=120.0, republish=RePublish(src=LOG_SUBJECTS, dest=live_subject(
                         "{{wildcard(1)}}", "{{wildcard(2)}}")), **common),
        StreamConfig(name=SCORES, subjects=["zc.score.*"], **common),
        # Rebuildable from the log at any time, so no deny_purge: a rebuild purges a game's feed.
        StreamConfig(name=FEED, subjects=["zc.feed.*"], duplicate_window=120.0, **common),
    ]


async def ensure_topology(js: JetStreamContext, replicas: int = 1) -> None:
    """Create the streams and buckets if missing; idempotent, safe from every service."""
    for config in stream_configs(replicas):
        try:
            await js.add_stream(config=config)
        except BadRequestError:
            await js.update_stream(config=config)
    for bucket in (STANDINGS, SEEDS, VIEWS):
        await js.create_key_value(bucket=bucket, replicas=replicas, storage=StorageType.FILE)
