"""Every error a request to the gateway can meet becomes a JSON problem with a reason: the gateway's own
refusals, the intake's, the bus's and the store's (a server restarting, a leader being elected), and, last,
anything unexpected, which is a sentence and never a traceback."""

import httpx
import nats.errors
import nats.js.errors
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from zioncheck.client import CommandRefused
from zioncheck.contracts.intake import Refused
from zioncheck.services.bus.publish import ConnectionLost
from zioncheck.services.gateway.chat import ChatRefused
from zioncheck.services.gateway.games import StartRefused, TooManyOpen
from zioncheck.services.gateway.keys import KeyRefused
from zioncheck.services.gateway.limits import RateLimited
from zioncheck.services.gateway.lobbies import NoLobby
from zioncheck.services.gateway.problems import HANDLERS, HTTPProblem
from zioncheck.services.gateway.reads import GameNotFound, InPlay, NoView
from zioncheck.services.gateway.tokens import TokenRefused

# each error, and the status and error a person is told
KINDS = [
    (HTTPProblem(422, "invalid_command", "no"), 422, "invalid_command"),
    (TokenRefused(401, "token_expired", "old"), 401, "token_expired"),
    (KeyRefused("platform_key_unknown", "who"), 401, "platform_key_unknown"),
    (RateLimited("too_many_requests", "slow down", 2), 429, "too_many_requests"),
    (ChatRefused("chat_empty", "say something"), 422, "chat_empty"),
    (CommandRefused(Refused(reason="no_game", detail="over")), 409, "game_not_in_play"),
    (CommandRefused(Refused(reason="unavailable", detail="no answer")), 503, "store_unavailable"),
    (GameNotFound("g1"), 404, "no_such_game"),
    (NoLobby("g1"), 404, "no_such_lobby"),
    (InPlay("g1"), 409, "game_in_play"),
    (NoView("g1"), 503, "no_view_yet"),
    (StartRefused("bad_players", "R1"), 422, "start_refused"),
    (TooManyOpen("too many"), 409, "too_many_open_games"),
    (TimeoutError(), 504, "no_answer"),
    (nats.errors.TimeoutError(), 504, "no_answer"),              # a read timed out during an election
    (ConnectionLost(), 504, "no_answer"),
    (nats.js.errors.FetchTimeoutError(), 504, "no_answer"),
    (nats.errors.NoRespondersError(), 503, "service_unavailable"),
    (nats.errors.ConnectionClosedError(), 503, "bus_unavailable"),
    (nats.errors.ConnectionReconnectingError(), 503, "bus_unavailable"),
    (nats.js.errors.ServiceUnavailableError(description="JetStream system temporarily unavailable"), 503,
     "store_unavailable"),
    (nats.js.errors.NoStreamResponseError(), 503, "store_unavailable"),
    (nats.js.errors.ServerError(description="leader gone"), 503, "store_unavailable"),
    (KeyError("no such key"), 500, "internal_error"),
    (RuntimeError("a bug"), 500, "internal_error"),
]


def _app(error: Exception) -> Starlette:
    async def fails(request):
        raise error
    return Starlette(routes=[Route("/", fails)], exception_handlers=HANDLERS)


@pytest.mark.parametrize(("error", "status", "name"), KINDS, ids=[type(kind[0]).__name__ for kind in KINDS])
async def test_every_error_a_request_meets_is_a_problem_with_a_reason(error, status, name):
    transport = httpx.ASGITransport(app=_app(error), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        answer = await http.get("/")
    assert answer.status_code == status
    body = answer.json()
    assert body["error"] == name
    assert body["detail"] and "Traceback" not in body["detail"]
    if status == 503:
        assert answer.headers.get("Retry-After")
