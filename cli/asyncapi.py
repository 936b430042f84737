"""The AsyncAPI 3.0 document of the NATS side, generated from contracts/ and the topology.

FastStream cannot describe msgspec Structs, so the payload schemas come from
msgspec.json.schema_components and the addresses from services/bus/topology.py's subject
functions. docs/asyncapi.json is the committed copy; `zioncheck asyncapi -o
docs/asyncapi.json` regenerates it, and tests/test_asyncapi.py fails when it drifts.

msgspec writes JSON Schema 2020-12 with OpenAPI's discriminator object; AsyncAPI 3.0's
default schema format builds on draft-07, so `_draft07` rewrites those two constructs:
a tuple's prefixItems become an items array, and a tagged union's discriminator
becomes AsyncAPI's form, the tag's property name, declared and required.

Operations are written from the side of the table's clients: a platform sends
commands and receives views, the feed, scores, standings and refusals; the house's
own services also receive the log; the dealer also sends dealer commands and answers
reshuffle requests.

To document a new message, add one line to MESSAGES (and, for a new subject, one
line to CHANNELS and one to OPERATIONS).
"""
import json
import re
from dataclasses import dataclass
from importlib.metadata import version
from typing import Literal

import msgspec

from zioncheck.contracts.archive import (
    HistoryAsk,
    HistoryPage,
    IndexEntry,
    PartAsk,
    RecordsRefused,
    Removal,
    Removed,
)
from zioncheck.contracts.commands import (
    DEALER,
    PLAY,
    TIMER,
    DealerCommand,
    Reshuffle,
    SeatCommand,
    StartGame,
    TimerCommand,
)
from zioncheck.contracts.dealer import ReshuffleRefused, ReshuffleRequest
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.feed import FeedBatch
from zioncheck.contracts.intake import KEY_HEADER, KEY_MAX, Refused, StreamAck, Taken
from zioncheck.contracts.log import Batch
from zioncheck.contracts.scores import HandScored, Standings
from zioncheck.contracts.views import PublicView, SeatView
from zioncheck.services.bus.topology import (
    ARCHIVE_BUCKET,
    BATCH_HEADER,
    FEED,
    HISTORY,
    REMOVALS,
    RESHUFFLE,
    SCORES,
    STANDINGS,
    VIEWS,
    bot_view_key,
    commands_stream,
    feed_subject,
    game_key,
    history_subject,
    intake_subject,
    kv_subject,
    log_stream,
    log_subject,
    public_feed_subject,
    public_view_key,
    records_subject,
    rejected_subject,
    removal_subject,
    remove_subject,
    removed_subject,
    schedule_subject,
    score_subject,
    seat_view_key,
    standings_key,
    stored_command_subject,
    stream_configs,
    view_live_subject,
)
from zioncheck.services.wiring import SPECS

REGENERATE = "zioncheck asyncapi -o docs/asyncapi.json"
GAME = "{game}"   # the channel parameters, as AsyncAPI writes them in an address
SEAT = "{seat}"
PARTITION = "{partition}"
TENANT = "{tenant}"
TENANT_GAME = game_key(TENANT, GAME)   # what a tenant sends and reads names tenant and game as two tokens
PARAMETERS = {
    "tenant": {"description": ("The tenant: a platform login's user name (docs/security.md#tenants). Every "
                               "subject and key a tenant sends or reads names it; the server refuses another's."),
               "examples": ["acme"]},
    "partition": {"description": ("The game's partition, 0 to P - 1: fnv-1a 32 of the game id mod P, as the intake "
                                  "and the dealer compute it for every command they store."),
                  "examples": ["0"]},
    "game": {"description": ("The game id: one subject token of letters, digits, - and _ (at most 64 characters). "
                             "Where only the house reads (commands, the log, timers), a tenant's game is named by "
                             "one token, its key <tenant>=<game> (the default tenant's by its bare id)."),
             "examples": ["table-7"]},
    "seat": {"description": "A seat number, 0 to the game's players - 1.", "examples": ["2"]},
    "kind": {"description": ("`hand` for a batch that starts the game or ends a hand, `move` for any other. "
                             "Subscribe to zc.log.<partition>.<game>.* for a game's whole log, in order."),
             "enum": ["hand", "move"], "examples": ["move"]},
}
KIND = "{kind}"
SCHEMAS = "#/components/schemas/{name}"


def _duplicate_window(stream: str) -> float:
    return next(c.duplicate_window for c in stream_configs() if c.name == stream)


COMMANDS, LOG = commands_stream(PARTITION), log_stream(PARTITION)  # ZC_COMMANDS_{partition}, ZC_LOG_{partition}


@dataclass(frozen=True)
class Header:
    name: str
    description: str
    required: bool = False
    values: tuple[str, ...] = ()
    pattern: str = ""


@dataclass(frozen=True)
class Channel:
    address: str | None   # None: the requester's reply inbox
    title: str
    description: str


@dataclass(frozen=True)
class Operation:
    action: Literal["send", "receive"]
    channel: str
    summary: str
    reply: str = ""       # the channel an answer goes back on


@dataclass(frozen=True)
class Message:
    operation: str        # the operation that carries it (its reply, when `reply`)
    payload: object       # a Struct, or a union of Structs named by `name`
    summary: str
    headers: tuple[Header, ...] = ()
    name: str = ""
    reply: bool = False

    @property
    def schema(self) -> str:
        return self.name or self.payload.__name__


COMMAND_KEY = Header(KEY_HEADER, (
    f"Optional. The sender's idempotency key for this command, 1 to {KEY_MAX} printable ASCII characters: the "
    f"intake stores the first command with a given key for its game and answers a repeat within "
    f"{_duplicate_window(commands_stream(0)):g} s with the first one's seq (duplicate: true), so a send can be "
    f"retried without playing the command twice."))
STORED_ID = Header("Nats-Msg-Id", "in:<game>:<key>: set by the intake from the sender's Zc-Key, when there is one.")
DEALER_ID = Header("Nats-Msg-Id", "deal:<game>:<hand> or reveal:<game>:<hand>: one deal and one reveal per hand.")
SCHEDULE = Header("Nats-Schedule", "@at <RFC 3339 UTC time>: when the server delivers the timeout.",
                  required=True)
SCHEDULE_TARGET = Header("Nats-Schedule-Target", "zc.cmd.<partition>.<game>.timer: where the server delivers it.",
                         required=True)
SCHEDULER = Header("Nats-Scheduler", (
    "zc.timer.<partition>.<game>: set by the server on what a schedule delivers, and refused on any client's "
    "publish; the table takes a timeout only with its own game's schedule here."), required=True)
LOG_ID = Header("Nats-Msg-Id", "<game>:<cause>: the table's append id, one batch per command.", required=True)
LOG_GUARD = Header("Nats-Expected-Last-Subject-Sequence", (
    "The log's previous sequence for this game when the table appended: the single-writer guard."),
    required=True, pattern="^[0-9]+$")
LOG_NUMBER = Header(BATCH_HEADER, (
    "The batch's number in its game's log, from 1: a reader on zc.live.<game>.* that sees a gap "
    "reads the missing batches back from the stream."), required=True, pattern="^[1-9][0-9]*$")
LOG_GUARD_SUBJECT = Header("Nats-Expected-Last-Subject-Sequence-Subject", (
    "zc.log.<partition>.<game>.*: the guard counts both kinds of the game's batches."), required=True)
SCORE_ID = Header("Nats-Msg-Id", "score:<game>:<hand>: one score message per hand.", required=True)
FEED_ID = Header("Nats-Msg-Id", (
    "feed:<game>:<seq>: one message per log batch; a rebuild (zioncheck rebuild-views --feed) "
    "republishes without it, so a reader drops any seq it has already applied."))
INDEX_ID = Header("Nats-Msg-Id", "index:<game>:<started_at>: the archiver's, one entry a game.", required=True)
REMOVED_ID = Header("Nats-Msg-Id", "removed:<game>: the archiver's, one record a game.", required=True)
REMOVAL_AT = Header("Nats-Schedule", "@at <RFC 3339 UTC time>: when the game's retention has run.", required=True)
REMOVAL_TARGET = Header("Nats-Schedule-Target", "zc.remove.<game>: where the server delivers it.", required=True)
REMOVAL_BY = Header("Nats-Scheduler", (
    "zc.removal.<game>: set by the server on what a schedule delivers; the archiver removes a game only "
    "when its own schedule delivered the removal."), required=True)
CAUSE = Header("Zc-Cause", (
    "The commands-stream sequence (publish ack seq) of the refused command, in decimal."),
    required=True, pattern="^[1-9][0-9]*$")

CHANNELS = {
    "commands": Channel(intake_subject(TENANT_GAME), "Commands", (
        "Request/reply to the intake (queue group zc-intake, NATS Services API): a game's start and its "
        "seats' moves. Platforms, the gateway and the bots send here; no stream captures this subject, "
        "and whatever headers a request carries, none reaches a stream. The intake answers `Refused` with "
        "a reason (nothing stored), or stores the command (its stores of many games share one synced write) "
        "and answers `Taken`: the command's seq in its game's commands stream (an intake of an earlier "
        "version let the stream answer with its own ack, `StreamAck`, which decode_reply reads too). "
        "Refused: larger than 16 KiB, empty, nested deeper than 8, not a command, or with a field no command "
        "of its type declares (bad_command, with the R18 refusal), a bad game id or key, a move for a game not "
        "in play (no_game), a start past the tenant's games in play or past its share of the views or the feed "
        "(too_many_games), the tenant over its commands or bytes a second (over_rate, saying when to send "
        "again). A limit of the store, or the tenant's share of the feed held whole, reads as store_full "
        "(contracts.intake.decode_reply). The seq comes back "
        "as the `cause` of the command's batch in the log: the views show it as `applied` once folded, "
        "and a seat's view lists the seat's refusals by it. The intake stores it on "
        f"{stored_command_subject(PARTITION, GAME, PLAY)} in stream {COMMANDS}, which only it may publish on.")),
    "commandReply": Channel(None, "Intake answers", "The requester's reply inbox."),
    "dealerCommands": Channel(stored_command_subject(PARTITION, GAME, DEALER), "Dealer commands", (
        f"The dealer's deals and seed reveals for one game (stream {COMMANDS}, ordered with the "
        "seats' commands). Only the dealer's login may publish here: the table takes authority from "
        "the subject, never from a header. A deal or reveal on any other subject is refused.")),
    "schedules": Channel(schedule_subject(PARTITION, GAME), "A game's deadline", (
        f"A JetStream message schedule in stream {COMMANDS} (allow_msg_schedules): the game's one "
        "pending timeout (R19, R21). Only the table publishes here, after each batch that starts a "
        "turn or leaves no person at the game; publishing again replaces the deadline. The table's "
        "commands consumer does not read this subject.")),
    "timerCommands": Channel(stored_command_subject(PARTITION, GAME, TIMER), "Timeouts", (
        f"What a game's schedule delivers when its time comes (stream {COMMANDS}, ordered with every "
        "other command). Nobody may publish here: the server itself stores the schedule's payload. "
        "The table refuses a timeout that no schedule of its game delivered, and leaves one that "
        "came after its turn out of the log (timer_stale).")),
    "log": Channel(log_subject(PARTITION, GAME, KIND), "Game log", (
        f"The game log (stream {LOG}): append-only, written by the table only, one Batch per "
        "command of a started game, accepted or refused (R18). `cause` is the command's publish "
        "ack seq. Follow zc.log.<partition>.<game>.* for all of it; zc.log.<partition>.*.hand carries "
        "only the batches "
        "that start a game or end a hand. Once stored, each batch is republished on core NATS at "
        "zc.live.<game>.<kind> (headers Nats-Sequence and Zc-Batch added): the cheap way to follow "
        "a game live. A core subscriber on zc.log.> would also hear appends the stream refused. "
        "It holds every hand's cards: only the house's own services may read it; platforms and "
        "spectators read the views and the feed.")),
    "scores": Channel(score_subject(TENANT_GAME), "Scores", f"Per-hand scores and running totals (stream {SCORES})."),
    "rejected": Channel(rejected_subject(TENANT_GAME), "Refusals outside a game", (
        "Core NATS, not stored: refusals of commands for a game that was never started (a "
        "StartGame the rules refuse among them), which has no log to hold them. Zc-Cause names "
        "the refused command.")),
    "standings": Channel(kv_subject(STANDINGS, standings_key(TENANT_GAME)), "Standings", (
        f"The KV bucket {STANDINGS}, key <tenant>.<game>: the game's latest standings, put when a game "
        "starts, a hand ends or the game ends. Read it by a direct get naming its subject "
        f"on `js.key_value(\"{STANDINGS}\")`; each put is a message on this subject.")),
    "feed": Channel(feed_subject(TENANT_GAME), "Public feed", (
        f"The redacted public feed (stream {FEED}), written by the projector: one FeedBatch per log "
        "batch with anything public in it, each event as a spectator may see it. A stock draw names "
        "no card, a deal shows hand sizes, the stock count and the commitment, a reshuffle the new "
        "stock's size; refusals are left out. `seq` is the log batch's number (from 1), the views' "
        "count: replay the stream from the start, or from after a view's seq. The server republishes each "
        f"batch it stores on {public_feed_subject(TENANT_GAME)}: readers outside the house make no consumer, they "
        "follow that subject and read the stream by direct get.")),
    "publicView": Channel(kv_subject(VIEWS, public_view_key(TENANT_GAME)), "Public view", (
        f"The KV bucket {VIEWS}, key <tenant>.<game>.public: all a spectator may know of the game. The projector "
        f"sends it live on {view_live_subject(public_view_key(TENANT_GAME))} as the log grows (batches close "
        "together share one view), stored nowhere, and stores it when the game settles: at a hand's end, when "
        "the game has had no batch for 0.5 s, and at least every 2 s of play; the server republishes each put "
        "on the same subject. So the stored view may be up to 2 s behind a game in play: subscribe first, then "
        "read it with a direct get (`kv.get`), and keep the highest `seq` (since version 0.2.0; before it, "
        "every view was stored). Take a live view only when its `Nats-Subject` header names the key "
        "(`$KV.zc_views.<key>`), as both the projector's and the server's copies do. `applied` is "
        "the command whose batch was folded last: a command whose publish ack seq is at most "
        "`applied` has been handled.")),
    "seatView": Channel(kv_subject(VIEWS, seat_view_key(TENANT_GAME, SEAT)), "Seat view", (
        f"The KV bucket {VIEWS}, key <tenant>.<game>.seat.<seat>: the public view plus that seat's own cards "
        "and its latest refusals (R18), whose details may name its cards. Once `public.applied` is at "
        "least a command's seq (the intake's answer), the command was refused if a refusal has that seq as "
        "`cause`, else accepted. Give each seat its own key only (NATS permissions, or a gateway). Sent live "
        f"and stored as the public view is, live on {view_live_subject(seat_view_key(TENANT_GAME, SEAT))}.")),
    "botView": Channel(kv_subject(VIEWS, bot_view_key(TENANT_GAME, SEAT)), "Bot seat view", (
        f"The KV bucket {VIEWS}, key <tenant>.<game>.bot.<seat>: the seat view of a seat the house's bots service "
        "plays (a seat its start gives a bot, when `bots_by` is \"service\"), put with the seat's own view. The "
        "bots' login reads these keys and nothing else of a game (no log, no other seat's view): the bots "
        "service plays each seat from its own view. Sent live and stored as the public view is, live on "
        f"{view_live_subject(bot_view_key(TENANT_GAME, SEAT))}.")),
    "historyList": Channel(records_subject(TENANT, "list"), "Archived games", (
        "Request/reply to the records service (queue group zc-records, NATS Services API): a page of the "
        "tenant's archived games, each an IndexEntry (its manifest: seats, times, hands, outcome, winners, "
        "totals), oldest archived first; ask for the next page with `after` set to the page's `next`. A game "
        "is archived once it has ended (docs/history.md). A tenant's login may ask for its own games only.")),
    "historyListReply": Channel(None, "Archived games' pages", "The requester's reply inbox."),
    "archive": Channel(records_subject(TENANT, f"get.{GAME}"), "A game's archive", (
        "Request/reply to the records service: an ended game's signed archive (contracts/archive.py), part by "
        "part: each answer carries the header Zc-Parts, how many parts to ask for (PartAsk, from 0), and the "
        "bytes of its part; joined, they are the archive file, which `zioncheck verify` checks with the "
        "house's public key and `zioncheck replay` replays, with no server. An answer without Zc-Parts is a "
        "RecordsRefused.")),
    "archiveReply": Channel(None, "Archive parts", "The requester's reply inbox."),
    "reshuffle": Channel(RESHUFFLE, "Reshuffle requests", (
        "Request/reply: the table asks the dealer for an R16 reshuffle (queue group zc-dealer). Only "
        "the table may ask and only the dealer may listen; the dealer answers only for a live hand "
        "whose stock is empty, with the count of that hand's real pile.")),
    "reshuffleReply": Channel(None, "Reshuffle replies", "The requester's reply inbox."),
    "history": Channel(history_subject(TENANT, GAME), "History index", (
        f"Stream {HISTORY}: one IndexEntry a finished game, written by the archiver once the game's signed "
        f"archive is in the Object Store bucket {ARCHIVE_BUCKET} (or a folder of files), read back and verified; "
        "`where` names it there. Kept for ever: the stream takes one entry a subject and refuses a second, "
        "and nobody deletes or purges one. Read it by batched direct gets (`zioncheck history`).")),
    "removals": Channel(removal_subject(GAME), "A finished game's removal", (
        f"A JetStream message schedule in stream {REMOVALS}, the archiver's alone: the game's removal from the "
        "hot streams, due when its retention has run (`zioncheck serve --retention`), naming what its archive "
        "holds. Only the archiver publishes here, after the game's index entry.")),
    "removalsDue": Channel(remove_subject(GAME), "Removals due", (
        f"What a removal's schedule delivers when it is due (stream {REMOVALS}). Nobody may publish here. "
        "The archiver then checks that the game is over in its log, indexed, and its archive in the store, "
        "and purges the game's commands and log up to what the archive holds, its pending deadline, feed, "
        "scores, views, standings, mark in the register of games in play and seeds.")),
    "removed": Channel(removed_subject(TENANT_GAME), "A game's removal, done", (
        f"Stream {HISTORY}, beside the game's index entry: the record that the game left the hot streams, "
        "written by the archiver before it purges anything, once, and kept for ever. The archiver takes out "
        "again, as it says, whatever of the game a server brings back after an unclean shutdown "
        "(docs/history.md, \"Removed for good\").")),
}

OPERATIONS = {
    "sendCommand": Operation("send", "commands", "A platform opens a game and sends its seats' moves.",
                             reply="commandReply"),
    "sendDealerCommand": Operation("send", "dealerCommands",
                                   "The dealer deals each hand, reshuffles and reveals seeds."),
    "scheduleTimeout": Operation("send", "schedules", "The table sets a game's next deadline."),
    "receiveTimeout": Operation("receive", "timerCommands", "The table takes a timeout as a command of its game."),
    "receiveLog": Operation("receive", "log", "The house's services follow a game's log, each batch with its cause."),
    "receiveScores": Operation("receive", "scores", "Follow a game's per-hand scores."),
    "receiveRejected": Operation("receive", "rejected", "Hear refusals of commands for games never started."),
    "receiveStandings": Operation("receive", "standings", "Read or watch a game's standings."),
    "receiveFeed": Operation("receive", "feed", "Follow a game as a spectator sees it, or replay it."),
    "receivePublicView": Operation("receive", "publicView", "Read or watch a game's public view."),
    "receiveSeatView": Operation("receive", "seatView", "Read or watch one seat's view: its cards and the "
                                 "outcome of its commands."),
    "receiveBotView": Operation("receive", "botView", "The bots service follows each seat it plays by that "
                                "seat's view alone."),
    "listArchived": Operation("send", "historyList", "A platform lists its archived games.",
                              reply="historyListReply"),
    "fetchArchive": Operation("send", "archive", "A platform fetches an ended game's signed archive.",
                              reply="archiveReply"),
    "replyReshuffle": Operation("receive", "reshuffle", "The dealer answers the table's R16 reshuffle request.",
                                reply="reshuffleReply"),
    "receiveHistory": Operation("receive", "history", "Read a finished game's entry in the history index."),
    "scheduleRemoval": Operation("send", "removals", "The archiver sets a finished game's removal from the hot "
                                 "streams."),
    "receiveRemoval": Operation("receive", "removalsDue", "The archiver takes a finished game out of the hot "
                                "streams when its removal falls due."),
    "recordRemoval": Operation("send", "removed", "The archiver records that a game left the hot streams."),
}

MESSAGES = [
    Message("sendCommand", StartGame, "Open a game.", (COMMAND_KEY,)),
    Message("sendCommand", SeatCommand, "A seat's move (docs/scenarios.md).", (COMMAND_KEY,), name="SeatCommand"),
    Message("sendCommand", Taken, "Stored: the command's seq in its game's commands stream.", reply=True),
    Message("sendCommand", StreamAck, "Stored, as an intake of an earlier version answered: the commands stream's "
                                      "own ack.", reply=True),
    Message("sendCommand", Refused, "Not stored, and why.", reply=True),
    Message("sendDealerCommand", DealerCommand, "A deal, reshuffle or seed reveal: the dealer's only.",
            (DEALER_ID,), name="DealerCommand"),
    Message("scheduleTimeout", TimerCommand, "The timeout the server delivers when the deadline comes.",
            (SCHEDULE, SCHEDULE_TARGET), name="TimerCommand"),
    Message("receiveTimeout", TimerCommand, "A turn's timeout (R19), a game's abandonment (R21), a held window's "
            "release (R22) or a pause's end (R23).",
            (SCHEDULER,), name="TimerCommand"),
    Message("receiveLog", Batch, "The events one command caused, appended atomically.",
            (LOG_ID, LOG_GUARD, LOG_GUARD_SUBJECT, LOG_NUMBER)),
    Message("receiveScores", HandScored, "One hand's scores, once per hand (R15, R16).", (SCORE_ID,)),
    Message("receiveRejected", Rejected, "A refusal (R18) of a command for a game that was never started.", (CAUSE,)),
    Message("receiveStandings", Standings, "A game's standings (R17)."),
    Message("receiveFeed", FeedBatch, "The public side of one log batch.", (FEED_ID,)),
    Message("receivePublicView", PublicView, "A game's public view: no card not on the table or the pile."),
    Message("receiveSeatView", SeatView, "One seat's view: the public view, the seat's cards and its refusals."),
    Message("receiveBotView", SeatView, "The view of a seat the bots service plays: its cards and its refusals."),
    Message("listArchived", HistoryAsk, "Which archived games: dates, a seat, an outcome, a winner, a page."),
    Message("listArchived", HistoryPage, "A page of the tenant's archived games.", reply=True),
    Message("listArchived", RecordsRefused, "No page, and why.", reply=True),
    Message("fetchArchive", PartAsk, "Which part of the archive (from 0)."),
    Message("fetchArchive", RecordsRefused, "No archive, and why (no such archived game, or the store failed).",
            reply=True),
    Message("replyReshuffle", ReshuffleRequest, "How many cards lie below the pile's top card."),
    Message("replyReshuffle", Reshuffle, "The order of the new stock.", reply=True),
    Message("replyReshuffle", ReshuffleRefused, "No order: the reshuffle asked is not due.", reply=True),
    Message("receiveHistory", IndexEntry, "What a finished game's archive holds, and where it is.", (INDEX_ID,)),
    Message("scheduleRemoval", Removal, "The game's removal, once its retention has run.",
            (REMOVAL_AT, REMOVAL_TARGET)),
    Message("receiveRemoval", Removal, "The game's removal, due.", (REMOVAL_BY,)),
    Message("recordRemoval", Removed, "The removal done, when, and each stream's last sequence then.",
            (REMOVED_ID,)),
]


def _lower(name: str) -> str:
    return name[0].lower() + name[1:]


def _headers(headers: tuple[Header, ...]) -> dict:
    properties = {}
    for h in headers:
        schema = {"type": "string", "description": h.description}
        if h.values:
            schema["enum"] = list(h.values)
        if h.pattern:
            schema["pattern"] = h.pattern
        properties[h.name] = schema
    required = [h.name for h in headers if h.required]
    return {"type": "object", "properties": properties} | ({"required": required} if required else {})


def _draft07(schema):
    """msgspec's JSON Schema in AsyncAPI's draft-07 based format (see the module's docstring)."""
    if isinstance(schema, list):
        return [_draft07(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _draft07(value) for key, value in schema.items()}
    if "prefixItems" in out:
        out["items"] = out.pop("prefixItems")
        out["additionalItems"] = False
    if isinstance(out.get("discriminator"), dict):
        tag = out["discriminator"]["propertyName"]
        out["discriminator"] = tag
        out["properties"] = {tag: {"enum": list(schema["discriminator"]["mapping"])}}
        out["required"] = [tag]
    return out


def schemas() -> dict:
    """Every payload's schema, named as in contracts/, with the Structs they refer to."""
    tops, components = msgspec.json.schema_components([m.payload for m in MESSAGES], ref_template=SCHEMAS)
    for message, top in zip(MESSAGES, tops, strict=True):
        if top != {"$ref": SCHEMAS.format(name=message.schema)}:
            components[message.schema] = top   # a union: msgspec gives it inline
    return {name: _draft07(schema) for name, schema in components.items()}


def _channel_of(message: Message) -> str:
    operation = OPERATIONS[message.operation]
    return operation.reply if message.reply else operation.channel


def _message_ref(message: Message) -> dict:
    return {"$ref": f"#/channels/{_channel_of(message)}/messages/{_lower(message.schema)}"}


def document() -> dict:
    channels = {}
    for key, channel in CHANNELS.items():
        channels[key] = {"address": channel.address, "title": channel.title, "description": channel.description,
                         "messages": {_lower(m.schema): {"$ref": f"#/components/messages/{m.schema}"}
                                      for m in MESSAGES if _channel_of(m) == key}}
        named = re.findall(r"\{(\w+)\}", channel.address or "")
        if named:
            channels[key]["parameters"] = {name: {"$ref": f"#/components/parameters/{name}"} for name in named}
    operations = {}
    for key, operation in OPERATIONS.items():
        operations[key] = {"action": operation.action, "channel": {"$ref": f"#/channels/{operation.channel}"},
                           "summary": operation.summary,
                           "messages": [_message_ref(m) for m in MESSAGES if m.operation == key and not m.reply]}
        if operation.reply:
            operations[key]["reply"] = {
                "channel": {"$ref": f"#/channels/{operation.reply}"},
                "messages": [_message_ref(m) for m in MESSAGES if m.operation == key and m.reply]}
    messages = {}
    for m in MESSAGES:
        messages[m.schema] = {"name": m.schema, "title": m.schema, "summary": m.summary,
                              "contentType": "application/json",
                              "payload": {"$ref": SCHEMAS.format(name=m.schema)}}
        if m.headers:
            messages[m.schema]["headers"] = _headers(m.headers)
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Zioncheck Table",
            "version": version("zioncheck"),
            "description": (
                "The NATS side of the Zioncheck Table wire contract: an event-sourced contract-rummy table. "
                "Payloads are JSON encoded by msgspec from contracts/; commands and events carry their "
                "kind in `type`. Operations are written from the side of the table's clients. A command's "
                "publish ack seq is its number: the log batch that records its outcome has `cause` equal "
                f"to it. Generated by `{REGENERATE}`; do not edit by hand."),
        },
        "defaultContentType": "application/json",
        "x-services": services(),
        "channels": channels,
        "operations": operations,
        "components": {"messages": messages, "schemas": schemas(), "parameters": PARAMETERS},
    }


def services() -> list[dict]:
    """The house's services as services/wiring.py declares them: what each takes in, what it counts."""
    return [{"name": spec.name, "does": spec.does,
             "takes": [{"kind": t.kind, "subject": t.subject(PARTITION), "group": t.group}
                       | ({"stream": t.stream(PARTITION)} if t.stream else {}) for t in spec.takes],
             "metrics": [metric._name for metric in spec.metrics]} for spec in SPECS]


def render() -> str:
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"
