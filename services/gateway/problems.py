"""Every refusal over HTTP is a JSON Problem {error, detail} with its status; here is each one's mapping.

| status | error | when |
|---|---|---|
| 400 | malformed_json, bad_parameter | the body is not JSON; a query parameter is not what it should be |
| 401 | token_missing, token_garbled, token_forged, token_expired | no usable seat token |
| 403 | token_for_another_game, token_for_another_seat | a good token, but not for this |
| 404 | no_such_game, not_found | no game of that id is stored; no such page |
| 405 | method_not_allowed | |
| 409 | game_in_play | a game's log or replay before the game is over |
| 413 | body_too_large | a body over MAX_BODY bytes |
| 422 | invalid_game, invalid_command, unknown_command, start_refused | JSON, but not what the route takes |
| 503 | no_view_yet | the projector has not written the view |
| 504 | no_answer | the table did not decide a command in time (it stays queued) |
"""
import msgspec
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from services.gateway.games import Refused
from services.gateway.reads import GameNotFound, InPlay, NoView
from services.gateway.tokens import TokenRefused
from services.gateway.wire import Problem

MAX_BODY = 64 * 1024
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


def decode_json(data: bytes, into, error_code: str):
    """The body as JSON (as `into`, if given): 400 when it is not JSON, 422 when it is JSON of the wrong shape."""
    try:
        return msgspec.json.decode(data, type=into) if into else msgspec.json.decode(data)
    except msgspec.ValidationError as error:
        raise HTTPProblem(422, error_code, str(error)) from None
    except msgspec.DecodeError as error:
        raise HTTPProblem(400, "malformed_json", f"the body is not JSON: {error}") from None


async def _problem(request: Request, exc: HTTPProblem) -> Response:
    return problem(exc.status, exc.error, exc.detail)


async def _token(request: Request, exc: TokenRefused) -> Response:
    headers = {"WWW-Authenticate": f'Bearer error="invalid_token", error_description="{exc.error}"'} \
        if exc.status == 401 else None
    return problem(exc.status, exc.error, exc.detail, headers)


async def _http(request: Request, exc: HTTPException) -> Response:
    error = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return problem(exc.status_code, error, str(exc.detail), dict(exc.headers or {}))


# The gateway's own exceptions: each is one status and error; its message is the detail.
MAPPED = {
    GameNotFound: (404, "no_such_game"),
    InPlay: (409, "game_in_play"),
    NoView: (503, "no_view_yet"),
    Refused: (422, "start_refused"),
    TimeoutError: (504, "no_answer"),
}


async def _mapped(request: Request, exc: Exception) -> Response:
    status, error = MAPPED[type(exc)]
    if isinstance(exc, Refused):
        return problem(status, error, f"{exc.reason}: {exc.detail}")
    if isinstance(exc, TimeoutError):
        return problem(status, error, "the table did not decide the command in time; it stays queued and may "
                                      "still be played (is the table service running?)")
    return problem(status, error, str(exc), {"Retry-After": "1"} if status == 503 else None)


HANDLERS = {HTTPProblem: _problem, TokenRefused: _token, HTTPException: _http} | dict.fromkeys(MAPPED, _mapped)
