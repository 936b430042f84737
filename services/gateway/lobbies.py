"""Lobbies: a game opened with its seats set but not yet started, while its people take their seats.

Opening a lobby reserves a game id and hands out one link a seat: a person's seat link
carries that seat's token (tokens.py) and admits that seat alone; the host's link
carries a host token, signed apart (tokens.HOST), which shows every seat link and
starts the game, and acts for no seat. A seat counts as joined once its link has been
opened, or once the host has taken it to play it (only while no one has opened its link).
Starting publishes the StartGame as POST /games does (games.py), under the key that opened
the lobby, and the lobby is gone once the table has stored the game's start: from then on the
game is in the log. Until then its seats still find it waiting, so a seat told the lobby is
gone always finds the game.

A lobby lives in this gateway's memory only: it counts toward its key's open games, is
dropped after `keep_for` seconds unstarted, and is lost if the gateway restarts (its
links then lead to no game). Nothing is written anywhere until it starts.
"""
import time
from dataclasses import dataclass, field

import structlog

from zioncheck.services.bus.topology import DEFAULT_TENANT, game_key, new_game_id
from zioncheck.services.gateway.games import Games
from zioncheck.services.gateway.wire import NewGame

log = structlog.get_logger("gateway")


class NoLobby(Exception):
    """No lobby of that id waits here: never opened, started already, dropped, or opened on another gateway."""

    def __init__(self, game: str):
        super().__init__(f"no lobby {game[:64]!r} waits on this gateway: it has started (open its game), "
                         "or was never opened here, or was dropped unstarted")


class SeatTaken(Exception):
    """The host asked for a seat whose link a person has opened already."""


@dataclass
class Lobby:
    game: str
    new: NewGame
    owner: str                     # the platform key that opened it (or the public lobby's name)
    expires: int                   # when its tokens expire, seconds since the epoch
    opened: float = field(default_factory=time.monotonic)
    joined: set[int] = field(default_factory=set)


class Lobbies:
    def __init__(self, games: Games, keep_for: float = 1800.0):
        self.games, self.keep_for = games, keep_for
        self.waiting: dict[str, Lobby] = {}
        self.starting: dict[str, Lobby] = {}   # started, the table not yet answering: still shown, not startable

    def open(self, new: NewGame, owner: str, expires: int, tenant: str = DEFAULT_TENANT) -> Lobby:
        """A new lobby for the key `owner`, its game the key's tenant's; TooManyOpen when the key holds its
        fill of games and lobbies."""
        self.sweep()
        self.games.check_room(owner)
        game = game_key(tenant, new_game_id())
        lobby = self.waiting[game] = Lobby(game, new, owner, expires)
        self.games.waiting[owner] += 1
        log.info("lobby_opened", game=lobby.game, key=owner, seats=",".join(new.seats))
        return lobby

    def get(self, game: str) -> Lobby:
        self.sweep()
        lobby = self.waiting.get(game) or self.starting.get(game)
        if lobby is None:
            raise NoLobby(game)
        return lobby

    def join(self, game: str, seat: int) -> Lobby:
        lobby = self.get(game)
        if 0 <= seat < len(lobby.new.seats) and lobby.new.seats[seat] == "person":
            lobby.joined.add(seat)
        return lobby

    def take(self, game: str, seat: int) -> Lobby:
        """The host takes a person's seat to play it: ValueError for a seat no person plays, SeatTaken when
        someone has opened that seat's link already (the host's page offers only seats still free, but a
        person may open one between two of its looks)."""
        lobby = self.get(game)
        if not 0 <= seat < len(lobby.new.seats) or lobby.new.seats[seat] != "person":
            raise ValueError(f"seat {seat} is no person's seat of this lobby")
        if seat in lobby.joined:
            raise SeatTaken(f"seat {seat}'s link has been opened already: someone sits there")
        lobby.joined.add(seat)
        log.info("lobby_seat_taken", game=game, seat=seat)
        return lobby

    async def start(self, game: str) -> Lobby:
        """Publish the lobby's StartGame (games.Games.create) and forget the lobby once the table has stored it;
        put back if that fails. NoLobby for one starting already."""
        self.sweep()
        if game not in self.waiting:
            raise NoLobby(game)
        lobby = self.starting[game] = self._drop(self.waiting[game])
        try:
            await self.games.create(lobby.new, lobby.owner, game=game)
        except BaseException:
            self.waiting[game] = lobby
            self.games.waiting[lobby.owner] += 1
            raise
        finally:
            del self.starting[game]
        log.info("lobby_started", game=game, key=lobby.owner, joined=len(lobby.joined))
        return lobby

    def sweep(self, now: float | None = None) -> None:
        """Drop the lobbies left unstarted for `keep_for` seconds."""
        now = time.monotonic() if now is None else now
        for lobby in [lobby for lobby in self.waiting.values() if now - lobby.opened >= self.keep_for]:
            self._drop(lobby)
            log.info("lobby_dropped", game=lobby.game, key=lobby.owner)

    def _drop(self, lobby: Lobby) -> Lobby:
        del self.waiting[lobby.game]
        self.games.waiting[lobby.owner] -= 1
        if not self.games.waiting[lobby.owner]:
            del self.games.waiting[lobby.owner]
        return lobby
