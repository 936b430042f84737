"""Every refusal over HTTP is a JSON Problem {error, detail} with its status; here is each one's mapping.

| status | error | when |
|---|---|---|
| 400 | malformed_json, bad_parameter | the body is not JSON; a query parameter is not what it should be |
| 401 | token_missing, token_garbled, token_forged, token_expired | no usable seat token |
| 401 | platform_key_missing, platform_key_unknown | opening a game with no platform key, or an unknown one |
| 403 | token_for_another_game, token_for_another_seat | a good token, but not for this |
| 404 | no_such_game, not_found | no game of that id is stored; no such page |
| 404 | no_such_lobby | no lobby of that id waits on this gateway (started, dropped, or never opened here) |
| 405 | method_not_allowed | |
| 409 | game_in_play | a game's log or replay before the game is over |
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
| 503 | store_full, store_unavailable | the intake could not store the command: the store is full, or did not answer |
| 504 | no_answer | the table did not decide a command in time (it stays queued) |

Every JSON a client sends, an HTTP body or a WebSocket frame, goes through `decode_json`:
its size is bounded before it is read (read_body; MAX_FRAME for a frame) and its depth
before it is decoded, so no body can make the decoder recurse past Python's limit.
"""
import msgspec
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
from zioncheck.services.gateway.tokens import TokenRefused
from zioncheck.services.gateway.wire import Problem

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
    StartRefused: (422, "start_refused"),
    TooManyOpen: (409, "too_many_open_games"),
    TimeoutError: (504, "no_answer"),
}


# The intake's refusals that reach a person: the gateway sends only commands it decoded itself, so a
# shape refusal (bad_command, bad_game, bad_key) would be the gateway's own fault.
INTAKE = {"no_game": (409, "game_not_in_play"), "too_many_games": (409, "too_many_open_games"),
          "store_full": (503, "store_full"),
          "unavailable": (503, "store_unavailable"), "over_rate": (429, "too_many_commands")}


async def _intake(request: Request, exc: CommandRefused) -> Response:
    status, error = INTAKE.get(exc.refusal.reason, (422, "invalid_command"))
    return problem(status, error, exc.refusal.detail, {"Retry-After": "1"} if status in (429, 503) else None)


async def _mapped(request: Request, exc: Exception) -> Response:
    status, error = MAPPED[type(exc)]
    if isinstance(exc, StartRefused):
        return problem(status, error, f"{exc.reason}: {exc.detail}")
    if isinstance(exc, TimeoutError):
        return problem(status, error, "the table did not decide the command in time; it stays queued and may "
                                      "still be played (is the table service running?)")
    return problem(status, error, str(exc), {"Retry-After": "1"} if status == 503 else None)


HANDLERS = {HTTPProblem: _problem, TokenRefused: _token, KeyRefused: _key, RateLimited: _limited,
            HTTPException: _http, CommandRefused: _intake, ChatRefused: _chat} | dict.fromkeys(MAPPED, _mapped)
