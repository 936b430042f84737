"""The gateway's HTTP routes (Starlette): games, a seat's commands, view and chat, the public view and feed, logs,
replays.

Opening a game takes a platform key (keys.py); acting for a seat takes its seat token
(tokens.py). Both are rate-limited (limits.py), and a refused request is never published.

A command that reached the table answers 200 with its Outcome, accepted or not: a
refusal (R18) is a move the rules decided, recorded in the log like any other. A 4xx
means the request never reached the table and nothing was written.

Reading a game takes nothing when its start made it public; a private game is shown only to a platform key of
its tenant and to its seats' tokens (private.py), and is 404 `no_such_game` to anyone else.
"""
import contextlib
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from zioncheck.client import GameClient
from zioncheck.contracts.commands import PRESETS, Rules, SeatCommand
from zioncheck.contracts.languages import LANGUAGES, Language, choose
from zioncheck.contracts.languages import path as catalogue_path
from zioncheck.contracts.log import tag_of
from zioncheck.contracts.reasons import REASONS, explain_refusal
from zioncheck.domain.dealing import MAX_PLAYERS, MIN_PLAYERS
from zioncheck.domain.presets import ruleset_of
from zioncheck.domain.views.shape import every_contract
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.topology import DEFAULT_TENANT, VIEWS, public_view_key, seat_view_key
from zioncheck.services.gateway import openapi
from zioncheck.services.gateway.chat import Chat, checked
from zioncheck.services.gateway.games import Games
from zioncheck.services.gateway.keys import HEADER, Keyring
from zioncheck.services.gateway.limits import Limiter, Limits
from zioncheck.services.gateway.live import Hubs
from zioncheck.services.gateway.lobbies import Lobbies, Lobby, SeatTaken
from zioncheck.services.gateway.private import sees_private
from zioncheck.services.gateway.problems import HANDLERS, HTTPProblem, json_response, read_json
from zioncheck.services.gateway.reads import NoView, Reads
from zioncheck.services.gateway.roll_call import RollCall
from zioncheck.services.gateway.signatures import Signatures, house_key
from zioncheck.services.gateway.sockets import public_stream, seat_stream
from zioncheck.services.gateway.tokens import DOMAIN, HOST, HOST_SEAT, TokenRefused, bearer, check_seat, issue, verify
from zioncheck.services.gateway.wire import (
    LIST_DEFAULT,
    ChatSay,
    GameCreated,
    LobbySeat,
    LobbyState,
    NewGame,
    SeatTicket,
    limits_of,
    seated,
)

STATIC = Path(__file__).parent / "static"
PUBLIC_LOBBY = "public lobby"   # the name keyless lobbies are counted under: no key's name holds a space (keys.NAME)
SEAT_TYPES = tuple(tag_of(cls) for cls in typing.get_args(SeatCommand))


@dataclass
class Gateway:
    """What the routes share; its connections are made in the app's lifespan."""
    access: Access
    secret: bytes
    keys: Keyring
    limits: Limits = field(default_factory=Limits)
    token_ttl: float = 24 * 3600
    backlog: int = 1024
    limiter: Limiter | None = None
    games: Games | None = None
    reads: Reads | None = None
    hubs: Hubs | None = None
    lobbies: Lobbies | None = None
    chat: Chat | None = None
    signatures: Signatures | None = None
    public_lobby: bool = False   # anyone who reaches the gateway may open a lobby without a platform key

    def tenants(self) -> tuple[str, ...]:
        """Whose games this gateway opens and shows: its keys' tenants, and the default tenant's (the
        public lobby's, and every game stored before tenants)."""
        return tuple(sorted({key.tenant for key in self.keys.keys} | {DEFAULT_TENANT}))


def whole_number(request: Request, name: str) -> int | None:
    """A query parameter that must be a whole number when given (400 `bad_parameter` otherwise)."""
    given = request.query_params.get(name)
    if given is not None and not given.isdigit():
        raise HTTPProblem(400, "bad_parameter", f"{name} must be a whole number, not {given[:20]!r}")
    return None if given is None else int(given)


def _private(request: Request) -> bool:
    """Whether the request may see the game of its path though it is private (private.py): a platform key of its
    tenant, or a seat token of the game as `Authorization: Bearer`."""
    gateway: Gateway = request.app.state.gateway
    return sees_private(gateway.keys, gateway.secret, request.headers, request.path_params["game"],
                        bearer(request.headers.get("authorization")))


async def list_games(request: Request) -> Response:
    """The public games; with a platform key, its tenant's private games among them."""
    gateway: Gateway = request.app.state.gateway
    limit = whole_number(request, "limit")
    presented = request.headers.get(HEADER)
    tenant = gateway.keys.match(presented).tenant if presented is not None else None
    try:
        listed = await gateway.reads.summaries(LIST_DEFAULT if limit is None else limit, tenant)
    except ValueError as error:
        raise HTTPProblem(400, "bad_parameter", str(error)) from None
    return json_response(listed)


async def create_game(request: Request) -> Response:
    """Key (401), the key's request rate (429), the body and the seats (413, 400, 422), room (409), new-game rate
    (429): then open."""
    gateway: Gateway = request.app.state.gateway
    key = gateway.keys.match(request.headers.get(HEADER))
    gateway.limiter.request(key.name)
    new = await _new_game(request)
    gateway.games.check_room(key.name)
    gateway.limiter.new_game(key.name)
    game, now = await gateway.games.create(new, owner=key.name, tenant=key.tenant), time.time()
    issued = {seat: issue(gateway.secret, game, seat, gateway.token_ttl, now)
              for seat, player in enumerate(new.seats) if player == "person"}
    tickets = [SeatTicket(seat=seat, player=player, token=issued.get(seat),
                          link=f"/play/{game}#token={issued[seat]}" if seat in issued else None)
               for seat, player in enumerate(new.seats)]
    expires = int(now + gateway.token_ttl)
    created = GameCreated(game_id=game, players=new.players, seats=tickets, expires=expires, watch=f"/watch/{game}")
    return json_response(created, 201, {"Location": f"/games/{game}/public"})


async def _new_game(request: Request) -> NewGame:
    new = await read_json(request, NewGame, "invalid_game")
    if not MIN_PLAYERS <= new.players <= MAX_PLAYERS:   # R1, refused before anything is sent or counted
        raise HTTPProblem(422, "invalid_game", f"a game seats {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                                               f"not {new.players}")
    if len(new.seats) != new.players:
        raise HTTPProblem(422, "invalid_game", f"{new.players} players need {new.players} seats, "
                                               f"not {len(new.seats)}")
    return seated(new)   # a seat named by a level is the level's bot


async def open_lobby(request: Request) -> Response:
    """Like POST /games, but nothing starts until the host says so; without a key only when the lobby is public."""
    gateway: Gateway = request.app.state.gateway
    presented = request.headers.get(HEADER)
    if presented or not gateway.public_lobby:
        key = gateway.keys.match(presented)
        owner, tenant = key.name, key.tenant
    else:
        owner, tenant = PUBLIC_LOBBY, DEFAULT_TENANT
    gateway.limiter.request(owner)
    new = await _new_game(request)
    gateway.games.check_room(owner)
    gateway.limiter.new_game(owner)
    lobby = gateway.lobbies.open(new, owner, expires=int(time.time() + gateway.token_ttl), tenant=tenant)
    return json_response(_lobby_state(gateway, lobby, host=True), 201, {"Location": f"/lobbies/{lobby.game}"})


async def lobby_state(request: Request) -> Response:
    """To the host: every seat's link. To a seat's token: who has joined, and that seat counts as joined now."""
    gateway: Gateway = request.app.state.gateway
    game = request.path_params["game"]
    token = bearer(request.headers.get("authorization"))
    try:
        verify(gateway.secret, token, game, domain=HOST)
    except TokenRefused as refused:
        if refused.error != "token_forged":   # a host's token, but expired or for another game
            raise
        claims = verify(gateway.secret, token, game)   # a seat's token, or this refusal
        return json_response(_lobby_state(gateway, gateway.lobbies.join(game, claims.seat), you=claims.seat))
    return json_response(_lobby_state(gateway, gateway.lobbies.get(game), host=True))


async def take_lobby_seat(request: Request) -> Response:
    """The host's token only: the host plays a person's seat from this browser, unless its link was opened."""
    gateway: Gateway = request.app.state.gateway
    game = request.path_params["game"]
    verify(gateway.secret, bearer(request.headers.get("authorization")), game, domain=HOST)
    given = request.path_params["seat"]
    if not given.isdigit() or len(given) > 4:
        raise HTTPProblem(422, "no_such_seat", f"{given[:20]!r} names no seat: seats are numbered from 0")
    seat = int(given)
    try:
        lobby = gateway.lobbies.take(game, seat)
    except ValueError as error:
        raise HTTPProblem(422, "no_such_seat", str(error)) from None
    except SeatTaken as taken:
        raise HTTPProblem(409, "seat_taken", str(taken)) from None
    return json_response(_lobby_state(gateway, lobby, host=True, you=seat))


async def start_lobby(request: Request) -> Response:
    """The host's token only: publish the game's StartGame (as POST /games does) and seat its bots."""
    gateway: Gateway = request.app.state.gateway
    game = request.path_params["game"]
    verify(gateway.secret, bearer(request.headers.get("authorization")), game, domain=HOST)
    lobby = await gateway.lobbies.start(game)
    return json_response(_lobby_state(gateway, lobby, host=True, started=True))


def _lobby_state(gateway: Gateway, lobby: Lobby, host: bool = False, you: int | None = None,
                 started: bool = False) -> LobbyState:
    """The lobby as its host (links) or one of its seats (no links) sees it. A link's token follows `#`, so a
    browser never sends it to a server in a request line or a Referer."""
    game = lobby.game

    def sign(seat: int, domain: bytes = DOMAIN) -> str:   # each token expires with the lobby's links
        return issue(gateway.secret, game, seat, ttl=0, now=lobby.expires, domain=domain)

    def link(seat: int) -> str:
        return f"/play/{game}#token={sign(seat)}"

    seats = [LobbySeat(seat=seat, player=player, joined=seat in lobby.joined,
                       link=link(seat) if host and player == "person" else None)
             for seat, player in enumerate(lobby.new.seats)]
    own = f"/lobby/{game}#host={sign(HOST_SEAT, HOST)}" if host else None
    return LobbyState(game_id=game, players=lobby.new.players, seats=seats, started=started, expires=lobby.expires,
                      host=own, you=you, watch=f"/watch/{game}", game=lobby.new.rules.preset,
                      contracts=every_contract(ruleset_of(lobby.new.rules)), limits=limits_of(lobby.new))


async def send_command(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    game = request.path_params["game"]
    claims = verify(gateway.secret, bearer(request.headers.get("authorization")), game)
    gateway.limiter.command(game, claims.seat)   # before anything else is read or published
    await gateway.reads.require(game)
    raw = await read_json(request, None, "invalid_command")
    if not isinstance(raw, dict) or raw.get("type") not in SEAT_TYPES:
        kind = raw.get("type") if isinstance(raw, dict) else None
        said = "no command type" if kind is None else f"unknown command type {kind!r}"
        raise HTTPProblem(422, "unknown_command", f"{said}: a seat sends one of {', '.join(SEAT_TYPES)} as `type`")
    raw.setdefault("seat", claims.seat)
    check_seat(claims, raw["seat"])
    try:
        command = msgspec.convert(raw, SeatCommand)
    except msgspec.ValidationError as error:
        raise HTTPProblem(422, "invalid_command", f"{raw['type']}: {error}") from None
    outcome = await gateway.games.command(game, command)
    if outcome.accepted or outcome.reason not in REASONS:
        return json_response(outcome)
    said = explain_refusal(outcome.reason, outcome.detail or "", spoken(request))   # R18, in the reader's words
    return json_response(msgspec.structs.replace(outcome, said=said))


def spoken(request: Request) -> Language:
    """The language a request's Accept-Language prefers of ours (its tags by their q, the first listed first);
    English when it names none of them."""
    tags = []
    for n, part in enumerate(request.headers.get("accept-language", "").split(",")[:20]):
        tag, _, weight = part.strip().partition(";q=")
        try:
            q = float(weight) if weight else 1.0
        except ValueError:
            q = 0.0
        if tag and q > 0:
            tags.append((-q, n, tag))
    return choose(tag for _, _, tag in sorted(tags))


async def say_in_chat(request: Request) -> Response:
    """A line of the token's seat in the game's chat: its seat is the token's, its text checked (chat.py)."""
    gateway: Gateway = request.app.state.gateway
    game = request.path_params["game"]
    claims = verify(gateway.secret, bearer(request.headers.get("authorization")), game)
    said = await read_json(request, ChatSay, "invalid_chat")
    text = checked(said.text)   # 422 for an empty or long line, before it counts against the seat's rate
    gateway.limiter.chat_line(game, claims.seat)
    await gateway.reads.require(game)
    return json_response(await gateway.chat.say(game, claims.seat, text))


async def feed(request: Request) -> Response:
    """A page of the game's feed, from the start or from where the last page ended."""
    start = whole_number(request, "from") or 0
    if start >= 2**63:
        raise HTTPProblem(400, "bad_parameter", "from is a batch's seq: 0, or the `next` of the last page")
    return json_response(await request.app.state.gateway.reads.feed(request.path_params["game"], start,
                                                                    private=_private(request)))


async def seat_view(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    game = request.path_params["game"]
    claims = verify(gateway.secret, bearer(request.headers.get("authorization")), game)
    return _view(await gateway.reads.view(game, seat_view_key(game, claims.seat)))


async def public_view(request: Request) -> Response:
    """The newest public view; to a spectator of a game whose start set a delay, the one its public stream shows
    them now (sockets.py), or, where none watch it here, the stored one only once it is as old as the delay."""
    gateway: Gateway = request.app.state.gateway
    game = request.path_params["game"]
    private = _private(request)
    data = await gateway.reads.view(game, public_view_key(game), private)
    if private or not (delay := await gateway.reads.delay(game)):
        return _view(data)
    if (released := gateway.hubs.released_view(game)) is not None:
        return _view(released[len('{"kind":"view","view":'):-1].encode())
    if not await gateway.reads.view_older_than(game, delay):
        raise NoView(f"its spectators watch this game {delay} s behind: its newest view is younger than that")
    return _view(data)


def _view(data: bytes) -> Response:
    return json_response(data, headers={"Cache-Control": "no-store"})


async def game_log(request: Request) -> Response:
    game = request.path_params["game"]
    text = await request.app.state.gateway.reads.finished_log(game, _private(request))
    return Response(text, media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{game}.jsonl"'})


async def replay(request: Request) -> Response:
    at = whole_number(request, "step")
    try:
        step = await request.app.state.gateway.reads.replay(request.path_params["game"], at, _private(request))
    except ValueError as error:
        raise HTTPProblem(400, "bad_parameter", str(error)) from None
    return json_response(step)


async def signature(request: Request) -> Response:
    """A finished game's archive, checked with the house's public key: verified, not intact, not archived yet."""
    gateway: Gateway = request.app.state.gateway
    game = request.path_params["game"]
    await gateway.reads.finished(game, _private(request))
    return json_response(await gateway.signatures.check(game), headers={"Cache-Control": "no-store"})


async def archive_file(request: Request) -> Response:
    """A finished game's signed archive, as the archiver wrote it: `zioncheck verify FILE` checks it anywhere."""
    gateway: Gateway = request.app.state.gateway
    game = request.path_params["game"]
    await gateway.reads.finished(game, _private(request))
    data = await gateway.signatures.archives(game)
    if data is None:
        raise HTTPProblem(404, "not_archived", f"game {game[:64]!r} is over but not archived yet: the archiver "
                                               "writes its archive once the game has settled")
    return Response(data, media_type="application/octet-stream",
                    headers={"Content-Disposition": f'attachment; filename="{game}.zca"'})


async def document(request: Request) -> Response:
    return json_response(request.app.state.document)


async def presets(request: Request) -> Response:
    """Every game the table plays (R24: its presets) with each hand's contract, in order (R7, R24.1)."""
    return json_response({preset: every_contract(ruleset_of(Rules(preset=preset))) for preset in PRESETS})


async def words(request: Request) -> Response:
    """One language's catalogue of words (contracts/words/), which the web pages speak."""
    language = request.path_params["language"]
    if language not in LANGUAGES:
        raise HTTPProblem(404, "not_found", f"no words in {language[:20]!r}: the languages are {', '.join(LANGUAGES)}")
    return FileResponse(catalogue_path(language), media_type="application/json",
                        headers={"Cache-Control": "no-cache"})


async def index_page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def watch_page(request: Request) -> Response:
    return FileResponse(STATIC / "watch.html")


async def replay_page(request: Request) -> Response:
    return FileResponse(STATIC / "replay.html")


async def play_page(request: Request) -> Response:
    return FileResponse(STATIC / "play.html")


async def lobby_page(request: Request) -> Response:
    return FileResponse(STATIC / "lobby.html")


ROUTES = [
    Route("/", index_page),
    Route("/watch/{game}", watch_page),
    Route("/replay/{game}", replay_page),
    Route("/play/{game}", play_page),
    Route("/lobby/{game}", lobby_page),
    Route("/openapi.json", document),
    Route("/words/{language}", words),
    Route("/presets", presets),
    Route("/games", list_games, methods=["GET"]),
    Route("/games", create_game, methods=["POST"]),
    Route("/games/{game}/commands", send_command, methods=["POST"]),
    Route("/lobbies", open_lobby, methods=["POST"]),
    Route("/lobbies/{game}", lobby_state),
    Route("/lobbies/{game}/start", start_lobby, methods=["POST"]),
    Route("/lobbies/{game}/seats/{seat}/take", take_lobby_seat, methods=["POST"]),
    Route("/games/{game}/view", seat_view),
    Route("/games/{game}/public", public_view),
    Route("/games/{game}/feed", feed),
    Route("/games/{game}/chat", say_in_chat, methods=["POST"]),
    Route("/games/{game}/log", game_log),
    Route("/games/{game}/replay", replay),
    Route("/games/{game}/signature", signature),
    Route("/games/{game}/archive", archive_file),
    WebSocketRoute("/games/{game}/view/ws", seat_stream),
    WebSocketRoute("/games/{game}/public/ws", public_stream),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]


def create_app(gateway: Gateway) -> Starlette:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        client = await GameClient.connect(gateway.access, "gateway")  # streams are the operator's to make
        views = await client.js.key_value(VIEWS)
        gateway.reads = Reads(client.js, views, tenants=gateway.tenants(), archives=client.archive_or_none)
        gateway.games = Games(client, gateway.reads, open_per_key=gateway.limits.open_games,
                              idle_after=gateway.limits.idle_minutes * 60, roll_call=RollCall(client.nc)).start()
        gateway.hubs = Hubs(client.js, views)
        gateway.lobbies = Lobbies(gateway.games, keep_for=gateway.limits.idle_minutes * 60)
        gateway.chat = await Chat(client.nc).start()
        gateway.signatures = Signatures(client.archive_or_none, house_key(gateway.access.credentials))
        try:
            yield
        finally:
            await gateway.chat.stop()
            await gateway.hubs.close()
            await gateway.games.stop()
            await client.close()

    app = Starlette(routes=ROUTES, exception_handlers=HANDLERS, lifespan=lifespan)
    gateway.limiter = Limiter(gateway.limits)
    app.state.gateway = gateway
    app.state.document = msgspec.json.encode(openapi.document())
    return app
