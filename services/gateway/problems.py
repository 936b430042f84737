"""Every refusal over HTTP is a JSON Problem {error, detail} with its status; here is each one's mapping.

| status | error | when |
|---|---|---|
| 400 | malformed_json, bad_parameter | the body is not JSON; a query parameter is not what it should be |
| 401 | token_missing, token_garbled, token_forged, token_expired | no usable seat token |
| 401 | platform_key_missing, platform_key_unknown | opening a game with no platform key, or an unknown one |
| 403 | token_for_another_game, token_for_another_seat | a good token, but not for this |
| 404 | no_such_game, not_found | no game of that id is stored; no such page |
| 404 | no_such_lobby | no lobby of that id waits on this gateway (started, dropped, or never opened here) |
| 404 | not_archived | a finished game's archive, before the archiver has written it |
| 405 | method_not_allowed | |
| 409 | game_in_play | a game's log or replay before the game is over (to a delayed game's spectators, before its end |
| | | has reached them) |
| 409 | too_many_open_games | the platform key holds as many open games as a key may |
| 409 | game_not_in_play | the game is over, or not started yet (the intake stored nothing) |
| 409 | seat_taken | the host takes a lobby's seat whose link someone has opened |
| 413 | body_too_large | a body over MAX_BODY bytes |
| 422 | too_deeply_nested | arrays and objects nested deeper than MAX_DEPTH (found before decoding) |
| 422 | invalid_game, invalid_command, unknown_command, start_refused | JSON, but not what the route takes |
| 422 | invalid_chat, chat_empty, chat_too_long | a chat line not `{"text": ...}`, saying nothing, or too long |
| 422 | no_such_seat | the host takes a lobby's seat that no person plays |
| 429 | too_many_requests, too_many_new_games, too_many_commands | over a rate limit (with Retry-After) |
| 429 | too_many_messages | a seat over its rate of chat lines (with Retry-After) |
| 503 | no_view_yet | the projector has not written the view |
| 503 | store_full, store_unavailable | the intake could not store the command (the store is full, or did not |
| | | answer); the store could not answer a read |
| 503 | service_unavailable, bus_unavailable | no house service answers (a game's start: which, and how to start |
| | | it); the bus is down or reconnecting |
| 504 | no_answer | the table did not decide a command in time (it stays queued); a read was not answered in time |
| 500 | internal_error | nothing above: a fault of the gateway's own, logged; the detail names its kind |

Every JSON a client sends, an HTTP body or a WebSocket frame, goes through `decode_json`:
its size is bounded before it is read (read_body; MAX_FRAME for a frame) and its depth
before it is decoded, so no body can make the decoder recurse past Python's limit.
"""
import msgspec
import nats.errors
import nats.js.errors
import structlog
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from zioncheck.client import CommandRefused
from zioncheck.contracts.log import json_depth
from zioncheck.services.gateway.chat import ChatRefused
from zioncheck.services.gateway.games import StartRefused, TooManyOpen
from zioncheck.services.gateway.keys import HEADER, KeyRefused
from zioncheck.services.gateway.limits import RateLimited
from zioncheck.services.gateway.lobbies import NoLobby
from zioncheck.services.gateway.reads import GameNotFound, InPlay, NoView
from zioncheck.services.gateway.roll_call import NotServed
from zioncheck.services.gateway.tokens import TokenRefused
from zioncheck.services.gateway.wire import Problem

log = structlog.get_logger("gateway")
MAX_BODY = 64 * 1024
MAX_DEPTH = 32        # arrays and objects within each other; a command nests 3 deep
_encode = msgspec.json.Encoder().encode


class HTTPProblem(Exception):
    def __init__(self, status: int, error: str, detail: str):
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail


def json_response(obj, status: int = 200, headers: dict | None = None) -> Response:
    body = obj if isinstance(obj, bytes) else _encode(obj)
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def problem(status: int, error: str, detail: str, headers: dict | None = None) -> Response:
    return json_response(Problem(error=error, detail=detail), status, headers)


async def read_body(request: Request, cap: int = MAX_BODY) -> bytes:
    """The request's body, or 413 as soon as it passes `cap` bytes (whatever Content-Length says)."""
    declared = request.headers.get("content-length", "")
    too_large = HTTPProblem(413, "body_too_large", f"a body may hold at most {cap} bytes")
    if declared.isdigit() and int(declared) > cap:
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


depth = json_depth   # how deep a body nests (contracts/log.py), measured before decoding


def decode_json(data: bytes, into, error_code: str, max_depth: int = MAX_DEPTH):
    """The body as JSON (as `into`, if given): 400 when it is not JSON, 422 when it is JSON of the wrong shape.

    422 too_deeply_nested, before any decoding, for arrays or objects nested past `max_depth`.
    """
    if depth(data) > max_depth:
        raise HTTPProblem(422, "too_deeply_nested", f"arrays and objects may nest at most {max_depth} deep")
    try:
        return msgspec.json.decode(data, type=into) if into else msgspec.json.decode(data)
    except msgspec.ValidationError as error:
        raise HTTPProblem(422, error_code, str(error)) from None
    except msgspec.DecodeError as error:
        raise HTTPProblem(400, "malformed_json", f"the body is not JSON: {error}") from None


async def read_json(request: Request, into, error_code: str):
    """The request's body, bounded in size and depth, decoded as `into` (see decode_json)."""
    return decode_json(await read_body(request), into, error_code)


async def _problem(request: Request, exc: HTTPProblem) -> Response:
    return problem(exc.status, exc.error, exc.detail)


async def _token(request: Request, exc: TokenRefused) -> Response:
    headers = {"WWW-Authenticate": f'Bearer error="invalid_token", error_description="{exc.error}"'} \
        if exc.status == 401 else None
    return problem(exc.status, exc.error, exc.detail, headers)


async def _key(request: Request, exc: KeyRefused) -> Response:
    return problem(exc.status, exc.error, exc.detail, {"WWW-Authenticate": f'{HEADER} realm="zioncheck"'})


async def _chat(request: Request, exc: ChatRefused) -> Response:
    return problem(422, exc.error, exc.detail)


async def _limited(request: Request, exc: RateLimited) -> Response:
    return problem(429, exc.error, exc.detail, {"Retry-After": str(exc.retry_after)})


async def _http(request: Request, exc: HTTPException) -> Response:
    error = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return problem(exc.status_code, error, str(exc.detail), dict(exc.headers or {}))


# The gateway's own exceptions: each is one status and error; its message is the detail.
MAPPED = {
    GameNotFound: (404, "no_such_game"),
    NoLobby: (404, "no_such_lobby"),
    InPlay: (409, "game_in_play"),
    NoView: (503, "no_view_yet"),
    NotServed: (503, "service_unavailable"),
    StartRefused: (422, "start_refused"),
    TooManyOpen: (409, "too_many_open_games"),
    TimeoutError: (504, "no_answer"),
    nats.errors.TimeoutError: (504, "no_answer"),
}


# The intake's refusals that reach a person: the gateway sends only commands it decoded itself, so a
# shape refusal (bad_command, bad_game, bad_key) would be the gateway's own fault.
INTAKE = {"no_game": (409, "game_not_in_play"), "too_many_games": (409, "too_many_open_games"),
          "store_full": (503, "store_full"),
          "unavailable": (503, "store_unavailable"), "over_rate": (429, "too_many_commands")}


async def _intake(request: Request, exc: CommandRefused) -> Response:
    status, error = INTAKE.get(exc.refusal.reason, (422, "invalid_command"))
    return problem(status, error, exc.refusal.detail, {"Retry-After": "1"} if status in (429, 503) else None)


def _mapping(exc: Exception) -> tuple[int, str]:
    """An exception's status and error: its own class's, else the nearest class above it that has one (a
    nats-py TimeoutError is a TimeoutError)."""
    return next(MAPPED[kind] for kind in type(exc).__mro__ if kind in MAPPED)


async def _mapped(request: Request, exc: Exception) -> Response:
    status, error = _mapping(exc)
    if isinstance(exc, StartRefused):
        return problem(status, error, f"{exc.reason}: {exc.detail}")
    if isinstance(exc, nats.errors.TimeoutError):   # a read or a request the bus did not answer in time
        return problem(status, error, "the store did not answer in time (a server may be restarting or electing "
                                      "a leader): try again", {"Retry-After": "1"})
    if isinstance(exc, TimeoutError):
        return problem(status, error, "the table did not decide the command in time; it stays queued and may "
                                      "still be played (is the table service running?)")
    return problem(status, error, str(exc), {"Retry-After": "1"} if status == 503 else None)


# What the bus may raise under a request, each with what a person is told: a service or server away for a
# moment is 503 with Retry-After, never a 500.
BUS = {
    nats.errors.NoRespondersError: ("service_unavailable", "no house service answers that request now (is it "
                                                           "running? `zioncheck serve` starts every one)"),
    nats.errors.ConnectionClosedError: ("bus_unavailable", "the gateway's connection to the bus is closed"),
    nats.errors.ConnectionReconnectingError: ("bus_unavailable", "the gateway is reconnecting to the bus"),
    nats.errors.OutboundBufferLimitError: ("bus_unavailable", "the gateway is reconnecting to the bus"),
    nats.errors.Error: ("bus_unavailable", "the bus could not answer"),
    nats.js.errors.ServiceUnavailableError: ("store_unavailable", "the store is unavailable (a leader election?)"),
    nats.js.errors.Error: ("store_unavailable", "the store could not answer"),
}


async def _bus(request: Request, exc: Exception) -> Response:
    error, detail = next(BUS[kind] for kind in type(exc).__mro__ if kind in BUS)
    return problem(503, error, f"{detail}: try again", {"Retry-After": "1"})


async def _unexpected(request: Request, exc: Exception) -> Response:
    """What nothing above maps: a fault of the gateway's own, logged with its traceback; the person is told
    so in a sentence, never handed the traceback."""
    log.error("gateway_unexpected", path=request.url.path, error=type(exc).__name__, exc_info=exc)
    return problem(500, "internal_error", "the gateway met an error it did not expect; it is logged "
                                          f"({type(exc).__name__}): try again, or tell the house")


HANDLERS = ({HTTPProblem: _problem, TokenRefused: _token, KeyRefused: _key, RateLimited: _limited,
             HTTPException: _http, CommandRefused: _intake, ChatRefused: _chat} | dict.fromkeys(MAPPED, _mapped)
            | dict.fromkeys(BUS, _bus) | {Exception: _unexpected})
