"""Bots seated at a game by the bots service: each plays from its own seat's view, never the log.

The projector writes each seat the bots service plays a view of its own, `<tenant>.<game>.bot.<n>` in
KV zc_views (the seat's SeatView), and the server republishes each on zc.view.<key>: the service hears
them there and hands each to its game's `SeatViews`. A bot decides from its seat's view alone
(bots/sight.py, sight_of_view), and learns what became of its command from the views: once one of them
has folded the command (`public.applied` at least its seq), its seat's `refusals` say whether the table
refused it (R18).

Every write of the projector puts every seat's view of one moment, one `seq`; a game's bots look at the
table only when their seats' views are all of one moment (`settled`). Core NATS may drop a message: a
seat whose view lags, or a wait with nothing new for RECHECK seconds, reads the stored views again.
"""
import asyncio
import random
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import TypeVar

import msgspec
import structlog
from nats.aio.client import Client

from zioncheck.bots import Bot
from zioncheck.bots.sight import sight_of_view
from zioncheck.client import CommandRefused, GameClient, read_view
from zioncheck.contracts.commands import Command
from zioncheck.contracts.views import PublicView, SeatView, decode_seat_view
from zioncheck.services.bus.topology import bot_view_key
from zioncheck.services.observability import skipped

log = structlog.get_logger("bots")
T = TypeVar("T")

RECHECK = 5.0              # seconds a wait goes with nothing new before it reads the stored views again
UNSETTLED = 0.5            # seconds before the stored views are read again while a seat's lags the others'
OUTCOME_PATIENCE = 30.0    # seconds a bot waits to see its command folded before it looks at the game again
NOT_STORED_PAUSE = 0.2     # seconds before a bot whose command was not stored looks again


class SeatViews:
    """The newest view of each of a game's bot seats, as heard on zc.view.<key> or read by direct get."""

    def __init__(self, nc: Client, game: str, seats: Iterable[int]):
        self.nc, self.game, self.seats = nc, game, tuple(sorted(seats))
        self.views: dict[int, SeatView] = {}
        self._waiting: list[asyncio.Future] = []

    def offer(self, view: SeatView) -> None:
        """A seat's view: kept if it is newer than the one held (a view of a seat not played here is none
        of this table's business)."""
        if view.seat not in self.seats:
            return
        held = self.views.get(view.seat)
        if held is None or view.seq > held.seq:
            self.views[view.seat] = view
            waiting, self._waiting = self._waiting, []
            for woken in waiting:
                _set_once(woken, True)

    def settled(self) -> dict[int, SeatView] | None:
        """Every bot seat's view, when all are of one moment (one seq); None while one lags or is missing."""
        if len(self.views) < len(self.seats):
            return None
        views = list(self.views.values())
        return dict(self.views) if all(view.seq == views[0].seq for view in views) else None

    def after(self, seq: int) -> dict[int, SeatView] | None:
        """The settled views, once they are of a moment after `seq`."""
        views = self.settled()
        return views if views is not None and _public(views).seq > seq else None

    def handled(self, seq: int) -> dict[int, SeatView] | None:
        """The settled views, once they have folded the command whose seq in the commands stream is `seq`
        (its batch, or its refusal, R18)."""
        views = self.settled()
        return views if views is not None and _public(views).applied >= seq else None

    async def read(self) -> None:
        """Every bot seat's view as stored: what a dropped message, or a start before the first, left out."""
        keys = [bot_view_key(self.game, seat) for seat in self.seats]
        found = await asyncio.gather(*(read_view(self.nc, key) for key in keys))
        for key, data in zip(keys, found, strict=True):
            if data:
                try:
                    view = decode_seat_view(data)
                except msgspec.DecodeError as error:   # not a view: the projector's next write takes its place
                    skipped("bots", "views", key, str(error))
                    continue
                self.offer(view)

    def look_now(self) -> None:
        """The connection came back: the views republished meanwhile are lost, so each wait reads the stored
        ones now (a read the server does not answer yet is tried again, as every failed read is)."""
        waiting, self._waiting = self._waiting, []
        for woken in waiting:
            _set_once(woken, False)

    async def wait(self, ready: Callable[[], T | None], patience: float | None = None) -> T:
        """Wait until `ready()` gives something, and return it; TimeoutError after `patience` seconds (None:
        for ever). A wait that hears nothing new reads the stored views again: soon while a seat's view lags
        the others', every RECHECK seconds while none does."""
        deadline = None if patience is None else time.monotonic() + patience
        loop = asyncio.get_running_loop()
        while (value := ready()) is None:
            pause = UNSETTLED if self.views and self.settled() is None else RECHECK
            left = pause if deadline is None else min(pause, deadline - time.monotonic())
            if left <= 0:
                raise TimeoutError
            woken = loop.create_future()   # one future a wait, woken by the next view or by its timer
            self._waiting.append(woken)
            timer = loop.call_later(left, _set_once, woken, False)
            try:
                if await woken:
                    continue
            finally:
                timer.cancel()
            await self.read()
        return value


async def play_views(client: GameClient, table: SeatViews, bots: dict[int, Bot], rng: random.Random,
                     pace: float = 0.0) -> None:
    """Play the game's bot seats from their views until the game is over. After each discard the bot seats
    may claim it (R11a) or swap jokers (R14), in random order; the turn's bot moves after `pace` seconds,
    unless a person may still claim the discard (R22). A bot seat is no person's: it says no ready (R23)."""
    answered = None   # the discard whose window the bots have answered
    while True:
        views = await table.wait(table.settled)
        public = _public(views)
        if public.game_over:
            return
        if not public.hand_over and public.window_open:
            window = (public.hand, public.turn, len(public.discard), public.discarder, public.stock)
            if window != answered:
                answered = window
                if await _react(client, table, bots, rng, public):
                    continue   # the bots said something: look at the game as it is now
        if not public.hand_over and public.turn in bots and not public.held:
            await asyncio.sleep(pace)
            seat = public.turn
            await _send(client, table, seat, bots[seat].decide(sight_of_view(views[seat])))
            continue
        await table.wait(partial(table.after, public.seq))


async def _react(client: GameClient, table: SeatViews, bots: dict[int, Bot], rng: random.Random,
                 public: PublicView) -> bool:
    """The bot seats' claims and joker swaps after a discard, each seat from its own newest view; whether
    any was sent."""
    seats = [seat for seat in bots if seat not in (public.discarder, public.turn)]
    rng.shuffle(seats)
    sent = False
    for seat in seats:
        for command in bots[seat].react(sight_of_view(table.views[seat])):
            await _send(client, table, seat, command)
            sent = True
    return sent


async def _send(client: GameClient, table: SeatViews, seat: int, command: Command) -> None:
    """Hand a bot's command to the intake and wait until the views have folded it."""
    try:
        seq = await client.send(table.game, command)
    except CommandRefused as refused:
        if refused.refusal.rejected is None:   # not stored (a limit, or no answer): the bot reads the game again
            log.warning("bot_not_stored", game=table.game, reason=refused.refusal.reason,
                        detail=refused.refusal.detail)
            await asyncio.sleep(NOT_STORED_PAUSE)
        else:   # no command at all, as the table would have said (R18)
            log.info("bot_refused", game=table.game, reason=refused.refusal.reason, detail=refused.refusal.detail)
        return
    try:
        views = await table.wait(lambda: table.handled(seq), OUTCOME_PATIENCE)
    except TimeoutError:   # not folded in time (a refusal past the log's fill is told its sender alone)
        log.warning("bot_outcome_unseen", game=table.game, seq=seq)
        return
    for refusal in views[seat].refusals:
        if refusal.cause == seq:
            # A refusal is normal for a racing claim or swap; for a turn move it means the bot read
            # views that moved on, and it simply decides again from the new ones.
            log.info("bot_refused", game=table.game, reason=refusal.reason, detail=refusal.detail)


def _public(views: dict[int, SeatView]) -> PublicView:
    return next(iter(views.values())).public


def _set_once(future: asyncio.Future, value: bool) -> None:
    if not future.done():
        future.set_result(value)
