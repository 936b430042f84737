"""Logs and metrics every service shares: structlog JSON lines and Prometheus counters."""
import logging
import sys
from collections import OrderedDict

import msgspec
import structlog
from prometheus_client import Counter, Gauge, Histogram, start_http_server

COMMANDS = Counter("zc_commands_total", "Commands the table applied, by outcome and R18 reason",
                   ["outcome", "reason"])
APPEND_SECONDS = Histogram("zc_append_seconds", "Time to append one batch to a game's log",
                           buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0))
EVENTS_APPENDED = Counter("zc_events_appended_total", "Events appended to game logs")
ACTIVE_GAMES = Gauge("zc_active_games", "Games the table holds in memory that are not over")
LOG_CONFLICTS = Counter("zc_log_conflicts_total", "Appends refused because another writer moved the log")
DROPPED = Counter("zc_messages_dropped_total", "Messages given up for good: no game to refuse them in, "
                  "undecodable, or failing every delivery", ["what"])
TIMERS_SCHEDULED = Counter("zc_timers_scheduled_total", "Deadlines the table set as message schedules (R19, R21)")
READS_BEHIND = Counter("zc_reads_behind_total", "Reads of a stream that a replica answered short of a message the "
                       "reader knew of, asked again (read your writes, services/bus/log_store.py)")
TIMERS_HEALED = Counter("zc_timers_healed_total", "Deadlines the table set again for games whose schedule was lost")
REFUSED_ASKS = Counter("zc_dealer_refusals_total", "Reshuffle requests the dealer refused, by reason", ["reason"])
DEALS = Counter("zc_deals_total", "Hands the dealer dealt")
RESHUFFLES = Counter("zc_reshuffles_total", "R16 reshuffles the dealer made")
SEEDS_REVEALED = Counter("zc_seeds_revealed_total", "Hand seeds the dealer revealed")
HANDS_SCORED = Counter("zc_hands_scored_total", "Hands the scoring service scored")
VIEWS_WRITTEN = Counter("zc_views_written_total", "Writes of a game's views (public and every seat) to KV zc_views")
INTAKE = Counter("zc_intake_total", "Commands handed to the intake: taken (stored) or refused, by reason",
                 ["outcome", "reason"])
RECORDS = Counter("zc_records_total", "Tenants' questions the records service answered (list, get) or refused, "
                  "and archives the index names that the store could not give (missing)", ["outcome"])
FEED_PUBLISHED = Counter("zc_feed_batches_total", "Redacted feed batches the projector published")
GAMES_ARCHIVED = Counter("zc_games_archived_total", "Finished games archived: written, read back, verified and indexed")
ARCHIVE_BYTES = Counter("zc_archive_bytes_total", "Bytes of the archives written")
ARCHIVE_FAILURES = Counter("zc_archive_failures_total", "Steps of archiving or removing a game that failed, by step: "
                           "each is tried again later, and nothing leaves the hot streams meanwhile", ["step"])
ARCHIVE_WAITS = Counter("zc_archive_waits_total", "Ended games not archived yet because something the record needs "
                        "was still to come, by what: the table's last commands, a hand's seed", ["waiting_for"])
GAMES_REMOVED = Counter("zc_games_removed_total", "Archived games taken out of the hot streams once their retention "
                        "ran")
CAME_BACK = Counter("zc_removed_came_back_total", "Messages of games removed from the hot streams found there again "
                    "(a server's restart after an unclean shutdown brings some back) and taken out again, by stream",
                    ["stream"])
JUNK = Counter("zc_junk_skipped_total", "Messages a house reader could not decode, or did not expect, on a house "
               "subject: skipped (or written over, where the reader is the subject's writer), by reader and by what "
               "it was reading", ["reader", "what"])
LEFT_HOT = Counter("zc_archive_left_hot_total", "Messages a removal left in the hot streams, by why: stored after "
                   "the game's archive was made, or in a stream made denying purges", ["why"])


_junk_log = structlog.get_logger("house")
_junk_told: OrderedDict[tuple, None] = OrderedDict()   # the messages told already (skipped), the last JUNK_TOLD
JUNK_TOLD = 10_000


def skipped(reader: str, what: str, where: str, why: str, seq: int = 0) -> None:
    """A message `reader` cannot use, found reading `what` at `where` (a subject, a key) at stream sequence
    `seq` (0: not known): one log line, no traceback, and one count, once for each message a reader finds,
    however often it reads it again. The caller skips it, or writes over it where the subject is its own."""
    told = (reader, what, where, seq)
    if told in _junk_told:
        return
    _junk_told[told] = None
    if len(_junk_told) > JUNK_TOLD:
        _junk_told.popitem(last=False)
    JUNK.labels(reader, what).inc()
    _junk_log.warning("junk_skipped", reader=reader, what=what, where=where[:120], why=why[:200], seq=seq)


_log_encoder = msgspec.json.Encoder(enc_hook=repr)   # anything JSON has no form for is logged as its repr


def _json_line(event: dict, **_) -> str:
    """A log line's JSON: msgspec's encoder, a third cheaper than json.dumps for the table's line per command."""
    return _log_encoder.encode(event).decode()


def configure_logging(level: str = "info", stream=sys.stderr) -> None:
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(serializer=_json_line),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=True,
    )


def serve_metrics(port: int | None) -> None:
    """Expose /metrics over HTTP; port 0 or None means no endpoint."""
    if port:
        start_http_server(port, addr="127.0.0.1")
