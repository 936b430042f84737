"""The OpenAPI 3.1 document of the gateway's HTTP side, generated from contracts/ and services/gateway/wire.py.

Schemas come from msgspec.json.schema_components (JSON Schema 2020-12, which OpenAPI 3.1
takes as it is, discriminator objects included). docs/openapi.json is the committed
copy; `zioncheck openapi -o docs/openapi.json` regenerates it, and tests/test_openapi.py
fails when it drifts. The gateway serves the same document at /openapi.json.

WebSockets have no place in OpenAPI: each is documented as the GET of its handshake,
whose 101 response names the schema of the frames that follow. To document a new
route, add one Op to OPS (tests/test_openapi.py checks every route is here).
"""
import json
from dataclasses import dataclass
from importlib.metadata import version

import msgspec

from zioncheck.contracts.commands import SeatCommand
from zioncheck.contracts.languages import LANGUAGES
from zioncheck.contracts.reasons import Reason
from zioncheck.contracts.views import PublicView, SeatView
from zioncheck.services.gateway.keys import HEADER
from zioncheck.services.gateway.limits import Limits
from zioncheck.services.gateway.problems import MAX_DEPTH
from zioncheck.services.gateway.wire import (
    CHAT_LENGTH,
    FEED_PAGE,
    LIST_DEFAULT,
    LIST_MAX,
    ArchiveCheck,
    ChatLine,
    ChatSay,
    FeedPage,
    GameCreated,
    GameSummary,
    LobbyState,
    NewGame,
    Outcome,
    Problem,
    PublicMessage,
    ReplayStep,
    SeatMessage,
)

REGENERATE = "zioncheck openapi -o docs/openapi.json"
SCHEMAS = "#/components/schemas/{name}"
NAMED = [NewGame, GameCreated, LobbyState, SeatCommand, Outcome, PublicView, SeatView, GameSummary, ReplayStep,
         ArchiveCheck, FeedPage, ChatSay, ChatLine, Problem, PublicMessage, SeatMessage]
UNIONS = {SeatCommand: "SeatCommand", PublicMessage: "PublicMessage", SeatMessage: "SeatMessage"}

LIMITS = Limits()
PROBLEMS = {
    400: "The body is not JSON, or a parameter is malformed.",
    401: "No usable seat token: missing, garbled, forged or expired (`error` says which).",
    403: "The token is for another game, or the command names another seat.",
    404: "No game of this id is stored.",
    409: "The game is in play: its log holds every hand's cards, so it is served once the game is over.",
    413: "The body is over 64 KiB.",
    422: f"JSON, but not what this route takes (`error` and `detail` say what); `too_deeply_nested` when its "
         f"arrays and objects nest more than {MAX_DEPTH} deep, found before the body is decoded.",
    429: "Over a rate limit (`error` says which): try again after Retry-After seconds. Nothing was sent to the table.",
    503: "`no_view_yet`: the projector has not written this view yet; `service_unavailable`, `bus_unavailable`, "
         "`store_unavailable`: no house service, bus or store answers now (a server restarting, a leader being "
         "elected). Try again after Retry-After seconds.",
    504: "`no_answer`: the table did not decide the command in time (it stays queued and may still be played), or "
         "the store did not answer a read in time.",
    500: "`internal_error`: a fault of the gateway's own, which it logged; the detail names its kind.",
}
# Responses that mean something else on one route than PROBLEMS says.
CREATE_PROBLEMS = {
    401: f"No platform key in {HEADER}, or one this gateway does not know (`platform_key_missing`, "
         "`platform_key_unknown`).",
    409: f"`too_many_open_games`: the key holds as many games not yet over as a key may (default "
         f"{LIMITS.open_games}); one must end, or go {LIMITS.idle_minutes:g} minutes without a move, first.",
    429: f"`too_many_requests` (default {LIMITS.requests_per_second:g} a second per key) or `too_many_new_games` "
         f"(default {LIMITS.games_per_minute:g} a minute per key): try again after Retry-After seconds. "
         "No game was opened.",
}
# Opening a game (POST /games, a lobby's start): the services it needs are asked first (roll_call.py).
START_PROBLEMS = {
    503: "`service_unavailable`: a service the game needs (the intake, table, dealer or projector) does not answer; "
         "`detail` names each and the command that starts it. Nothing was sent.",
}
COMMAND_PROBLEMS = {
    429: f"`too_many_commands`: a seat may send {LIMITS.commands_per_second:g} commands a second after a burst of "
         f"{LIMITS.command_burst} (defaults). The command was not sent and is not in the log; try again after "
         "Retry-After seconds.",
    409: "`game_not_in_play`: the game is over, or has not started; nothing was stored.",
    503: "`store_full` or `store_unavailable`: the intake could not store the command (the store is full, or did "
         "not answer); nothing was stored. Try again after Retry-After seconds.",
}
CHAT_PROBLEMS = {
    422: f"`invalid_chat` (the body is not `{{\"text\": ...}}`: it names no seat, nor anything else), `chat_empty` "
         f"or `chat_too_long` (over {CHAT_LENGTH} characters once its spaces are tidied). Nothing was said.",
    429: f"`too_many_messages`: a seat may say {LIMITS.chat_lines} lines in {LIMITS.chat_seconds:g} s (defaults). "
         "The line was not said; try again after Retry-After seconds.",
}
RETRY_AFTER = {"Retry-After": {"description": "Seconds until the request would pass.",
                               "schema": {"type": "integer", "minimum": 1}}}
GAME = {"name": "game", "in": "path", "required": True, "description": "The game id.",
        "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}}
TOKEN = {"name": "token", "in": "query", "required": True, "schema": {"type": "string"},
         "description": "The seat token (a browser cannot set headers on a WebSocket)."}
SEAT_TOKEN = {"name": "token", "in": "query", "required": False, "schema": {"type": "string"},
              "description": "A seat token of the game: a game its start kept private shows its stream to its seats "
                             "(and to a platform key of its tenant) only."}
AFTER = {"name": "after", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0},
         "description": "Resume: the seq of the last batch this client saw. The public stream sends the newest "
                        "view and every feed batch past it (none lost, none twice); the seat stream a view only "
                        "once one is newer. 4400 if malformed."}
LOBBY_PROBLEMS = {
    401: "No usable token (`error` says which); a host token where a seat's is taken, or a seat's where the "
         "host's is, is `token_forged`.",
    404: "`no_such_lobby`: no lobby of this id waits here: it has started (open the game), was dropped unstarted, "
         "or was opened on another gateway.",
}
OPEN_LOBBY_PROBLEMS = CREATE_PROBLEMS | {
    401: f"No platform key in {HEADER} while the lobby is not public, or a key this gateway does not know "
         "(`platform_key_missing`, `platform_key_unknown`).",
}
# The routes that show a game to anyone when its start made it public, and a private one only to these.
PRIVATE = ("platformKey", "seatToken")
PRIVATE_404 = {404: "No game of this id is stored; or its start kept it private, and the request holds neither a "
                    f"platform key of its tenant ({HEADER}) nor a seat token of the game: a private game is no game "
                    "to anyone else."}
# A finished game a spectator may not read whole yet: its start set a spectator delay, and its end is newer.
HELD_409 = ("`game_in_play`: the game is in play; or its start set a spectator delay (`delay_seconds`) and it ended "
            "less than that long ago: to anyone but its seats and its tenant, it is served once its end has reached "
            "its spectators.")
LANGUAGE = {"name": "language", "in": "path", "required": True, "description": "The language.",
            "schema": {"type": "string", "enum": list(LANGUAGES)}}
LIMIT = {"name": "limit", "in": "query", "required": False,
         "schema": {"type": "integer", "minimum": 1, "maximum": LIST_MAX, "default": LIST_DEFAULT},
         "description": f"How many games, at most (default {LIST_DEFAULT}, at most {LIST_MAX})."}
FROM = {"name": "from", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0},
        "description": "Where the page starts: 0 (the default) for the feed's first batch, or the last page's `next`."}
SEAT = {"name": "seat", "in": "path", "required": True, "description": "The seat, from 0.",
        "schema": {"type": "integer", "minimum": 0}}
STEP = {"name": "step", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0},
        "description": "How many log batches to fold (default: all of them)."}


@dataclass(frozen=True)
class Op:
    method: str
    path: str
    id: str
    summary: str
    ok: tuple[int, str, str | None]                     # status, description, schema name (None: no JSON schema)
    problems: tuple[int, ...] = ()
    body: str | None = None
    seat_token: bool = False
    platform_key: bool = False
    host_token: bool = False                            # a lobby's host token; with seat_token: either one
    optional: tuple[str, ...] = ()                      # schemes that may be presented, or none at all
    params: tuple[dict, ...] = ()
    media: str = "application/json"
    description: str = ""
    notes: dict | None = None                           # this route's own words for some of its problems


OPS = [
    Op("get", "/", "indexPage", "The web page listing games.", (200, "HTML.", None), media="text/html"),
    Op("get", "/watch/{game}", "watchPage", "The web page showing one game live, or its replay once over.",
       (200, "HTML.", None), params=(GAME,), media="text/html"),
    Op("get", "/replay/{game}", "replayPage", "The web page replaying a finished game, hot or archived, hand by "
       "hand and move by move, every hand face up, with its archive's signature checked.",
       (200, "HTML.", None), params=(GAME,), media="text/html"),
    Op("get", "/play/{game}", "playPage", "The web page of one seat: its hand, the table, every move by tap. "
       "The seat's token follows `#token=` in the address, which the browser never sends.",
       (200, "HTML.", None), params=(GAME,), media="text/html"),
    Op("get", "/lobby/{game}", "lobbyPage", "The web page of a lobby's host: the seats' links, who has joined, "
       "start. The host token follows `#host=`.", (200, "HTML.", None), params=(GAME,), media="text/html"),
    Op("get", "/openapi.json", "openapi", "This document.", (200, "The OpenAPI document.", None)),
    Op("get", "/words/{language}", "words", "Every word the web pages say, in one language.",
       (200, "The catalogue: each key's template (`{name}` placeholders), or its plural forms by CLDR category.",
        None), (404,), params=(LANGUAGE,), notes={404: "No catalogue for that language."}),
    Op("get", "/presets", "presets", "Every game the table plays (R24) and each hand's contract (R7, R24.1).",
       (200, "An object: each game's preset name, and its hands' contracts in order (as a view's `contracts`).",
        None), description="The lobby's form shows the contracts of the game it opens."),
    Op("get", "/games", "listGames", "The public games whose public views changed last, the most recent first.",
       (200, "The games.", "GameSummary[]"), (400, 401), params=(LIMIT,), optional=("platformKey",),
       notes={401: f"A platform key in {HEADER} this gateway does not know (`platform_key_unknown`)."},
       description="Read from the end of the views' store: a request costs about as much however many games are "
                   "stored. "
                   "A game is listed once the projector has written its public view. Only the games whose start "
                   f"made them public are listed; with a platform key ({HEADER}), its tenant's private games too."),
    Op("post", "/games", "createGame", "Open a game; bots sit where `seats` names them, people get tokens.",
       (201, "The game, with one token per person's seat.", "GameCreated"), (400, 401, 409, 413, 422, 429, 503),
       body="NewGame", platform_key=True, notes=CREATE_PROBLEMS | START_PROBLEMS,
       description=f"Takes a platform key in {HEADER}. The gateway publishes StartGame and plays the bot "
                   "seats itself, each waiting `pace` seconds before its turn's move. 422 `start_refused` "
                   "when the rules refuse the game (R18)."),
    Op("post", "/lobbies", "openLobby", "Open a lobby: a game whose seats are set, started later by its host.",
       (201, "The lobby, with the host's link and a link per person's seat.", "LobbyState"),
       (400, 401, 409, 413, 422, 429), body="NewGame", platform_key=True, notes=OPEN_LOBBY_PROBLEMS,
       description=f"Takes a platform key in {HEADER}, unless the gateway's lobby is public (`--public-lobby`, on "
                   "by default when it listens on loopback only); then a request without one is counted under "
                   "the name `public lobby`. A lobby counts as one of its key's open games; nothing is published "
                   "until it starts. Each link's token follows `#`: a seat's admits that seat only."),
    Op("get", "/lobbies/{game}", "lobbyState", "A lobby: who sits where and who has joined.",
       (200, "With the host's token: every seat's link. With a seat's: no links, and that seat is marked "
             "joined.", "LobbyState"), (401, 403, 404), seat_token=True, host_token=True, params=(GAME,),
       notes=LOBBY_PROBLEMS),
    Op("post", "/lobbies/{game}/seats/{seat}/take", "takeLobbySeat",
       "The host takes a person's seat, to play it from the host's browser (the host's token only).",
       (200, "Taken: the seat counts as joined, and `you` names it.", "LobbyState"), (401, 403, 404, 409, 422),
       host_token=True, params=(GAME, SEAT),
       notes=LOBBY_PROBLEMS | {409: "`seat_taken`: someone has opened that seat's link already.",
                               422: "`no_such_seat`: no person plays that seat."}),
    Op("post", "/lobbies/{game}/start", "startLobby", "Start a lobby's game (the host's token only).",
       (200, "Started: the StartGame is published and the bots seated; the lobby is gone.", "LobbyState"),
       (401, 403, 404, 409, 422, 503), host_token=True, params=(GAME,), notes=LOBBY_PROBLEMS | START_PROBLEMS,
       description="422 `start_refused` when the rules refuse the game (R18); 409 when the key holds its fill "
                   "of open games; 503 `service_unavailable`, saying which, when a service the game needs does "
                   "not answer."),
    Op("post", "/games/{game}/commands", "sendCommand", "A move of the token's seat.",
       (200, "The command reached the table: accepted with its events, or refused (R18) with reason "
             "and detail. Either way it is in the log.", "Outcome"),
       (400, 401, 403, 404, 409, 413, 422, 429, 503, 504), body="SeatCommand", seat_token=True, params=(GAME,),
       notes=COMMAND_PROBLEMS,
       description="`seat` may be left out: it is the token's. A body naming another seat is refused "
                   "(403), as is any type but a seat's seven moves (422), and a command over the seat's "
                   "rate limit (429); nothing is written then."),
    Op("get", "/games/{game}/view", "seatView", "The token's seat's view: the public view and its own cards.",
       (200, "The newest view.", "SeatView"), (401, 403, 404, 503), seat_token=True, params=(GAME,)),
    Op("get", "/games/{game}/public", "publicView", "The game as a spectator sees it.",
       (200, "The newest public view (a game whose start set `delay_seconds`: the one its spectators see now, or "
             "503 `no_view_yet` while none that old is at hand).", "PublicView"), (401, 404, 503), params=(GAME,),
       optional=PRIVATE,
       notes=PRIVATE_404 | {401: f"A platform key in {HEADER} this gateway does not know."}),
    Op("get", "/games/{game}/feed", "feed", "A game's feed, every move from its start, a page at a time.",
       (200, f"Up to {FEED_PAGE} feed batches, oldest first; ask again with `from=next` while `more`.", "FeedPage"),
       (400, 401, 404), params=(GAME, FROM), optional=PRIVATE,
       notes=PRIVATE_404 | {401: f"A platform key in {HEADER} this gateway does not know."},
       description="What a page shows of a game's history before it follows the game live: read the pages, then "
                   "open the public WebSocket with `?after=` the last batch's `seq`, so that no move is lost or "
                   "listed twice. Read from the feed's stream in batched direct gets, whether the game is in play "
                   "or over: the feed names no hidden card. A game whose start set `delay_seconds` shows anyone but "
                   "its seats and its tenant the batches stored that long ago, and no newer."),
    Op("post", "/games/{game}/chat", "sayInChat", "A line in the game's chat, said by the token's seat.",
       (200, "Said: the line as every page watching the game gets it (on its public WebSocket).", "ChatLine"),
       (400, 401, 403, 404, 413, 422, 429), body="ChatSay", seat_token=True, params=(GAME,), notes=CHAT_PROBLEMS,
       description="The gateway names the line's seat from the token and passes it, as plain text, to the "
                   "game's seats and watchers; it is never stored, in the game's log or anywhere. A watcher "
                   "reads the chat and says nothing: only a seat's token says a line."),
    Op("get", "/games/{game}/log", "gameLog", "A finished game's log as JSON lines (one Entry per event).",
       (200, "The log, as `zioncheck export` writes it.", None), (401, 404, 409), params=(GAME,),
       media="application/x-ndjson", optional=PRIVATE,
       notes=PRIVATE_404 | {401: f"A platform key in {HEADER} this gateway does not know.", 409: HELD_409}),
    Op("get", "/games/{game}/replay", "replay", "A finished game's public view after N log batches.",
       (200, "The view at that step, the public side of that step's batch, and every seat's cards then, face up "
             "(a finished game hides nothing).", "ReplayStep"),
       (400, 401, 404, 409), params=(GAME, STEP), optional=PRIVATE,
       notes=PRIVATE_404 | {401: f"A platform key in {HEADER} this gateway does not know.", 409: HELD_409}),
    Op("get", "/games/{game}/signature", "signature", "A finished game's archive, checked with the house's public "
       "key.", (200, "`verified`, `not_intact` (with what fails), `not_archived` (not yet) or `unchecked` (this "
                     "gateway holds no house key).", "ArchiveCheck"),
       (401, 404, 409), params=(GAME,), optional=PRIVATE, notes=PRIVATE_404 | {
           401: f"A platform key in {HEADER} this gateway does not know.", 409: HELD_409},
       description="The archive comes from the records service, the key from the gateway's credentials folder "
                   "(`archive-public.key`): the check `zioncheck verify` makes anywhere with the file and the key."),
    Op("get", "/games/{game}/archive", "archive", "A finished game's signed archive file.",
       (200, "The archive, as the archiver wrote it: `zioncheck verify FILE --key KEY` checks it and `zioncheck "
             "replay FILE` tells it, on any machine.", None),
       (401, 404, 409), params=(GAME,), media="application/octet-stream", optional=PRIVATE, notes=PRIVATE_404 | {
           401: f"A platform key in {HEADER} this gateway does not know.", 409: HELD_409,
           404: PRIVATE_404[404] + " `not_archived`: the game is over, but the archiver has not written its "
                                   "archive yet."}),
    Op("get", "/games/{game}/public/ws", "publicStream", "WebSocket: the public view, then every change.",
       (101, "Switching Protocols. Frames are PublicMessage: the newest view, the latest feed batches, the "
             "chat's last lines, then each new view, feed batch and chat line. Closes 4404 for an unknown game "
             "(and for a private one, to a client with neither a seat token of the game nor a platform key of its "
             "tenant), 4401 for a platform key the gateway does not know, 1013 for a client that lags. A game "
             "whose start set `delay_seconds` comes to anyone but its seats and its tenant that many seconds after "
             "each view and batch was stored, its chat likewise; the clock frame's `behind` says so.",
        "PublicMessage"), params=(GAME, SEAT_TOKEN, AFTER), optional=PRIVATE),
    Op("get", "/games/{game}/view/ws", "seatStream", "WebSocket: the seat's view, then every change.",
       (101, "Switching Protocols. Frames are SeatMessage. Closes 4401 or 4403 when the token does not "
             "act for this game, 4404 for an unknown game.", "SeatMessage"), params=(GAME, TOKEN, AFTER)),
]


def schemas() -> dict:
    tops, components = msgspec.json.schema_components(NAMED, ref_template=SCHEMAS)
    for obj, top in zip(NAMED, tops, strict=True):
        if obj in UNIONS:
            components[UNIONS[obj]] = top   # a union: msgspec gives it inline
    # A refused Outcome's reason is its Rejected event's: one of R18's words (contracts.reasons), never free text.
    components["Outcome"]["properties"]["reason"]["anyOf"] = [msgspec.json.schema(Reason), {"type": "null"}]
    return dict(sorted(components.items()))


def _schema(name: str) -> dict:
    if name.endswith("[]"):
        return {"type": "array", "items": _schema(name[:-2])}
    return {"$ref": SCHEMAS.format(name=name)}


def _operation(op: Op) -> dict:
    status, description, schema = op.ok
    ok = {"description": description}
    if status != 101:
        ok["content"] = {op.media: {"schema": _schema(schema)} if schema else {}}
    elif schema:
        ok["x-frames"] = _schema(schema)
    out = {"operationId": op.id, "summary": op.summary}
    if op.description:
        out["description"] = op.description
    if op.params:
        out["parameters"] = list(op.params)
    if op.body:
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": _schema(op.body)}}}
    if op.seat_token:
        out["security"] = [{"seatToken": []}]
    if op.host_token:
        out["security"] = [{"hostToken": []}] + out.get("security", [])
    if op.platform_key:
        out["security"] = [{"platformKey": []}]
    if op.optional:
        out["security"] = [{}] + [{scheme: []} for scheme in op.optional]
    out["responses"] = {str(status): ok} | {str(code): _problem(op, code) for code in op.problems}
    return out


def _problem(op: Op, code: int) -> dict:
    response = {"description": (op.notes or {}).get(code, PROBLEMS[code])}
    if code == 429:
        response["headers"] = RETRY_AFTER
    response["content"] = {"application/json": {"schema": _schema("Problem")}}
    return response


def document() -> dict:
    paths: dict = {}
    for op in OPS:
        paths.setdefault(op.path, {})[op.method] = _operation(op)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Zioncheck Table gateway", "version": version("zioncheck"), "description": (
            "HTTP and WebSocket access to Zioncheck games for platforms and browsers. A platform opens games "
            f"with a platform key ({HEADER}); a person's seat acts through a signed token that POST /games "
            "returns; spectators need none for a game its start made public (a private game is shown to a platform "
            "key of its tenant and to its seats' tokens only). Both are rate-limited (429 with Retry-After). "
            "Bodies are JSON encoded by msgspec from contracts/; commands carry their kind in `type`. "
            f"Generated by `{REGENERATE}`; do not edit by hand.")},
        "paths": paths,
        "components": {
            "schemas": schemas(),
            "securitySchemes": {
                "seatToken": {
                    "type": "http", "scheme": "bearer", "bearerFormat": "zioncheck seat token",
                    "description": "HMAC-SHA256-signed {game, seat, exp}: acts for that seat of that game only."},
                "hostToken": {
                    "type": "http", "scheme": "bearer", "bearerFormat": "zioncheck lobby host token",
                    "description": "HMAC-SHA256-signed {game, exp} under another domain than seat tokens: shows a "
                                   "lobby's links and starts it; acts for no seat."},
                "platformKey": {
                    "type": "apiKey", "in": "header", "name": HEADER,
                    "description": "One of the gateway's platform keys (its platform-keys file): opens games."}},
        },
    }


def render() -> str:
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"
