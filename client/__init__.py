"""The house's side of the wire: send commands to a game and follow its log.

A command is handed to the intake (services/intake), which stores it and answers with its
sequence in the game's commands stream, or refuses it (CommandRefused: nothing was stored).
The table records the sequence as the `cause` of the batch it appends, so the sender finds its
outcome by that number.

A client logs in as a role (services/bus/access.py): following a game's log takes a role that
may read it (the gateway, bots, the services, the operator). A platform or a spectator
reads views and the feed instead (ViewFollower follows a view as a platform does); a platform
learns its commands' outcomes from the views' `applied` and a seat's `refusals` (docs/integration.md).
"""
import asyncio
import contextlib
import itertools
import secrets
import time

import msgspec
import nats.errors
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, NotFoundError

from zioncheck.contracts.archive import HistoryAsk, HistoryPage, PartAsk, RecordsRefused
from zioncheck.contracts.commands import DEALER, Command
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.intake import KEY_HEADER, Refused, Taken, decode_reply
from zioncheck.contracts.log import Batch, decode_batch, encode
from zioncheck.contracts.scores import Standings
from zioncheck.domain import GameState, fold
from zioncheck.services.bus.access import Access, connect, when_reconnected
from zioncheck.services.bus.log_store import last_message, read_batches
from zioncheck.services.bus.publish import publish_stored, request
from zioncheck.services.bus.topology import (
    BATCH_HEADER,
    DEFAULT_TENANT,
    LOG,
    PARTS_HEADER,
    STANDINGS,
    VIEWS,
    intake_subject,
    is_view_of,
    kv_stream,
    kv_subject,
    layout,
    live_subject,
    records_subject,
    rejected_subject,
    standings_key,
    stored_command_subject,
    tenant_of,
    view_live_subject,
)
from zioncheck.services.observability import skipped

RECHECK = 5.0   # seconds a wait goes before asking the stream whether a batch was missed
SEND_PATIENCE = 30.0   # seconds a send is tried again while the store does not answer
LOOK_AGAIN = 0.25      # seconds between looks at the stream once the connection is back, until one is answered
# One try's wait for the intake's answer, then the same command again under the same key (stored once
# whatever happens): a lost intake, server or node costs a game at most this long once one is back. The
# intake answers in milliseconds at the loads docs/scaling.md measures (p99 to the log 0.25 s at 120 games).
TRY_SECONDS = 0.5
# While nobody answers at all (no intake, no server), tries come this often at most: one is back in time.
RETRY_AT_MOST = 0.25


class RecordsRefusal(Exception):
    """The records service did not answer with what was asked: `refusal` says why (contracts.archive)."""

    def __init__(self, refusal: RecordsRefused):
        super().__init__(f"{refusal.reason}: {refusal.detail}")
        self.refusal = refusal


_records = msgspec.json.Decoder(HistoryPage | RecordsRefused)


class CommandRefused(Exception):
    """The intake refused a command: nothing was stored. `refusal` says why (contracts.intake)."""

    def __init__(self, refusal: Refused):
        super().__init__(f"{refusal.reason}: {refusal.detail}")
        self.refusal = refusal


async def read_view(nc: Client, key: str, timeout: float = 5.0) -> bytes | None:
    """The view stored at `key` in KV zc_views (public_view_key, seat_view_key), None while none is: a
    direct get that names the key in its subject, the one read a tenant's login may make of a view."""
    reply = await request(nc, f"$JS.API.DIRECT.GET.{kv_stream(VIEWS)}.{kv_subject(VIEWS, key)}", b"", timeout)
    return None if (reply.headers or {}).get("Status") else reply.data


class ViewFollower:
    """One view followed as a platform follows it (docs/integration.md): its live subject `zc.view.<key>`
    subscribed first, then the stored view read by a direct get, and read again each time the connection
    comes back (the live views sent while it was away never come). A view is kept only when its
    `Nats-Subject` header names the key (`$KV.zc_views.<key>`: the projector's live views and the server's
    republish of a stored one both do) and its `seq` is higher than the one kept: none missed, none taken
    twice. `decode` turns a view's bytes into the view (contracts.views); `view` is the newest kept, the
    `kept`th."""

    def __init__(self, nc: Client, key: str, decode):
        self.nc, self.key, self.decode = nc, key, decode
        self.view = None
        self.seq = self.kept = 0
        self._changed = asyncio.Event()
        self._sub = None

    async def start(self) -> "ViewFollower":
        self._sub = await self.nc.subscribe(view_live_subject(self.key), cb=self._on_live)
        when_reconnected(self.nc, self.read_stored)
        await self.read_stored()
        return self

    async def _on_live(self, msg) -> None:
        if is_view_of(msg, self.key):
            self._take(msg.data)

    async def read_stored(self) -> None:
        """The stored view, kept if it is newer than the one kept; nothing while the server does not answer
        (it is read again when the connection is back)."""
        try:
            data = await read_view(self.nc, self.key)
        except (TimeoutError, nats.errors.Error):
            return
        if data is not None:
            self._take(data)

    def _take(self, data: bytes) -> None:
        try:
            view = self.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:   # no view of the key: passed over
            skipped("client", "views", self.key, str(error))
            return
        if view.seq > self.seq:
            self.view, self.seq, self.kept = view, view.seq, self.kept + 1
            self._changed.set()

    async def wait_until(self, predicate, timeout: float | None = 30.0):
        """The newest view once predicate(view) holds; TimeoutError after `timeout` seconds."""
        async with asyncio.timeout(timeout):
            while self.view is None or not predicate(self.view):
                self._changed.clear()
                await self._changed.wait()
        return self.view

    async def stop(self) -> None:
        if self._sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await self._sub.unsubscribe()


class GameClient:
    def __init__(self, nc: Client):
        self.nc = nc
        self.js: JetStreamContext = nc.jetstream()
        # this client's idempotency keys: its own prefix, then a count (the intake scopes a key to its game)
        self._key_prefix, self._keys_made = f"k{secrets.token_hex(6)}-", itertools.count(1)
        self.followers: set[Follower] = set()   # what the live batches lost with a connection are looked for
        when_reconnected(nc, self._reconnected)

    async def _reconnected(self) -> None:
        """The connection is back: the batches republished while it was away never came, so each follower
        looks for them now rather than after a quiet RECHECK."""
        for follower in list(self.followers):
            follower.look_now()

    @classmethod
    async def connect(cls, access: Access, user: str) -> "GameClient":
        return cls(await connect(access, user))

    async def send(self, game: str, command: Command | bytes, as_dealer: bool = False,
                   msg_id: str | None = None, patience: float = SEND_PATIENCE) -> int:
        """Hand a command to the intake; returns its sequence in the game's commands stream.
        Raises CommandRefused when the intake refuses it.

        `msg_id` is the idempotency key (one of this client's own when none is given): a send the
        store did not answer within TRY_SECONDS, or whose connection was lost meanwhile, is sent again
        with the same key for up to `patience` seconds, and is stored once whatever happens.
        `as_dealer` stores a dealer's command itself, which only the dealer's and the operator's
        logins may do.
        """
        data = command if isinstance(command, bytes) else encode(command)
        if as_dealer:
            partition = (await layout(self.js)).of(game)
            headers = {"Nats-Msg-Id": msg_id} if msg_id else None
            return await publish_stored(self.js, stored_command_subject(partition, game, DEALER), data, headers)
        headers = {KEY_HEADER: msg_id or f"{self._key_prefix}{next(self._keys_made)}"}
        deadline, pause = time.monotonic() + patience, 0.05
        while True:
            try:
                answer = decode_reply((await request(self.nc, intake_subject(game), data, TRY_SECONDS,
                                                     headers)).data)
            except nats.errors.TimeoutError as error:   # ConnectionLost too: sent again at once
                answer, pause = Refused(reason="unavailable", detail=f"no answer from the intake ({error})"), 0.0
            except (nats.errors.NoRespondersError, nats.errors.ConnectionReconnectingError,
                    nats.errors.OutboundBufferLimitError) as error:   # nobody listens yet; a server not back yet
                answer = Refused(reason="unavailable", detail=f"no answer from the intake ({type(error).__name__})")
            if isinstance(answer, Taken):
                return answer.seq
            if answer.reason != "unavailable" or time.monotonic() + pause > deadline:
                raise CommandRefused(answer)
            await asyncio.sleep(pause)
            pause = min(max(pause * 2, 0.05), RETRY_AT_MOST)

    async def play(self, follower: "Follower", command: Command | bytes, timeout: float = 30.0,
                   msg_id: str | None = None) -> list:
        """Send a command to the follower's game and wait for what it did: the events of its batch,
        or one Rejected, whether the table refused it or the intake found it no command at all (the
        same R18 refusal the table would give). CommandRefused for a refusal no rule gives (a limit,
        a store that does not answer)."""
        try:
            seq = await self.send(follower.game, command, msg_id=msg_id)
        except CommandRefused as refused:
            if refused.refusal.rejected is None:
                raise
            return [refused.refusal.rejected]
        return await follower.outcome(seq, timeout)

    async def follow(self, game: str) -> "Follower":
        follower = Follower(game)
        await follower.start(self)
        return follower

    async def final_standings(self, game: str, timeout: float = 30.0) -> Standings | None:
        """The scoring service's standings once they say the game is over (None if they never do)."""
        kv = await self.js.key_value(STANDINGS)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                standings = msgspec.json.decode((await kv.get(standings_key(game))).value or b"", type=Standings)
                if standings.over:
                    return standings
            except (KeyNotFoundError, msgspec.DecodeError):   # none yet, or none in their place: scoring writes over
                pass
            await asyncio.sleep(0.05)
        return None

    async def archived_games(self, ask: HistoryAsk | None = None, tenant: str = DEFAULT_TENANT) -> HistoryPage:
        """A page of the tenant's archived games, from the records service (services/records): ask for
        the next with `HistoryAsk(after=page.next)`. Raises RecordsRefusal."""
        reply = await request(self.nc, records_subject(tenant, "list"), msgspec.json.encode(ask or HistoryAsk()),
                              self.js._timeout)
        answer = _records.decode(reply.data)
        if isinstance(answer, RecordsRefused):
            raise RecordsRefusal(answer)
        return answer

    async def archive(self, game: str) -> bytes:
        """An ended game's signed archive, whole (`zioncheck verify FILE` and application.archive.verify
        check it with the house's public key; `zioncheck replay FILE` replays it). Raises RecordsRefusal."""
        tenant, game_id = tenant_of(game)
        parts, data, part = 1, b"", 0
        while part < parts:
            reply = await request(self.nc, records_subject(tenant, f"get.{game_id}"),
                                  msgspec.json.encode(PartAsk(part=part)), self.js._timeout)
            if PARTS_HEADER not in (reply.headers or {}):
                raise RecordsRefusal(msgspec.json.decode(reply.data, type=RecordsRefused))
            parts, data, part = int(reply.headers[PARTS_HEADER]), data + reply.data, part + 1
        return data

    async def archive_or_none(self, game: str) -> bytes | None:
        """`archive`, or None when no such game is archived (or the records service does not answer)."""
        try:
            return await self.archive(game)
        except (RecordsRefusal, nats.errors.TimeoutError, nats.errors.NoRespondersError):
            return None

    async def close(self) -> None:
        await self.nc.drain()


class Follower:
    """A game's log as it grows: its batches in order, the folded state, each command's outcome.

    Batches come live on zc.live.<game>.*, where the server republishes what the log
    stored: a JetStream consumer per follower cost the server more than the table's own
    appends. Core NATS may drop a message, so each batch's number (header Zc-Batch) is
    checked: a gap, or a wait that finds the stream ahead, reads the missing batches
    back from the stream. History comes from the stream too.
    """

    def __init__(self, game: str):
        self.game = game
        self.batches: list[Batch] = []
        self.state = GameState()
        self.outcomes: dict[int, list] = {}
        self.arrived: dict[int, float] = {}   # perf_counter() when each outcome arrived
        self._waiting: list[asyncio.Future] = []   # wait_until's futures, woken by the next outcome
        self._ahead: dict[int, Batch] = {}    # batches that came before an earlier one
        self._reading = False
        self._subs = []
        self._js: JetStreamContext | None = None
        self._client: GameClient | None = None
        self._look_soon = False   # the connection came back: look at the stream until a look is answered

    async def start(self, client: GameClient) -> None:
        self._js, self._client = client.js, client
        client.followers.add(self)
        self._subs.append(await client.nc.subscribe(live_subject(self.game), cb=self._on_batch))
        self._subs.append(await client.nc.subscribe(rejected_subject(self.game), cb=self._on_rejected))
        await self._read_back()

    async def _on_batch(self, msg) -> None:
        headers = msg.headers or {}
        if not headers.get("Nats-Stream", "").startswith(f"{LOG}_") or BATCH_HEADER not in headers:
            return  # not the server's copy of a stored batch (nobody may publish here; belt and braces)
        number = int(headers[BATCH_HEADER])
        if number > len(self.batches):
            try:
                self._ahead[number] = decode_batch(msg.data)
            except msgspec.DecodeError as error:   # no batch (ValidationError too): passed over, as the log's
                skipped("follower", "log", msg.subject, f"not a log batch: {error}",
                        int(headers.get("Nats-Sequence", 0)))
        await self._apply_ready()
        if self._ahead:
            await self._read_back(int(headers.get("Nats-Sequence", 0)))

    async def _read_back(self, at_least: int | None = None) -> None:
        """Take from the stream every batch not seen yet (unless a reading is under way), at least up
        to the stored message `at_least` (by default the last the stream's leader holds)."""
        if self._reading:
            return
        self._reading = True
        try:
            for number, (_, batch) in enumerate(await read_batches(self._js, self.game, at_least=at_least,
                                                                   reader="follower"), start=1):
                if number > len(self.batches):
                    self._ahead[number] = batch
        finally:
            self._reading = False
        await self._apply_ready()

    async def _behind(self) -> bool:
        try:
            last = await last_message(self._js, self.game)
        except NotFoundError:
            return False
        return int((last.headers or {}).get(BATCH_HEADER, 0)) > len(self.batches)

    async def _apply_ready(self) -> None:
        ready = []
        while len(self.batches) + 1 in self._ahead:
            batch = self._ahead.pop(len(self.batches) + 1)
            self.batches.append(batch)
            self.state = fold(self.state, batch.events)
            ready.append(batch)
        self._ahead = {n: b for n, b in self._ahead.items() if n > len(self.batches)}
        for batch in ready:
            await self._record(batch.cause, batch.events)

    async def _on_rejected(self, msg) -> None:
        cause = int((msg.headers or {}).get("Zc-Cause", "0"))
        await self._record(cause, [msgspec.json.decode(msg.data, type=Rejected)])

    async def _record(self, cause: int, events: list) -> None:
        self.arrived[cause] = time.perf_counter()
        self.outcomes[cause] = events
        waiting, self._waiting = self._waiting, []
        for woken in waiting:
            if not woken.done():
                woken.set_result(True)

    async def wait_until(self, predicate, timeout: float | None = 30.0):
        """Wait until predicate(self) is true; returns its value. Raises TimeoutError after `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        loop = asyncio.get_running_loop()
        while not (value := predicate(self)):
            pause = LOOK_AGAIN if self._look_soon else RECHECK
            left = pause if deadline is None else min(pause, deadline - time.monotonic())
            if left <= 0:
                raise TimeoutError
            # One future a wait, woken by the next outcome or by its timer: the cheapest wait asyncio
            # has (a condition's wait_for under wait_for made a task a command, a tenth of a bot's CPU).
            woken = loop.create_future()
            self._waiting.append(woken)
            timer = loop.call_later(left, _set_once, woken, False)
            try:
                if await woken:
                    continue
            finally:
                timer.cancel()
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError
            try:
                if await self._behind():  # a batch dropped on the way, with none after it to show the gap
                    await self._read_back()
                self._look_soon = False
            except nats.errors.Error:  # no answer this time (a cluster electing a leader): ask again next time
                pass
        return value

    def look_now(self) -> None:
        """The connection came back: whatever was republished meanwhile is lost, so each wait looks at the
        stream now, and again every LOOK_AGAIN seconds until a look is answered (a server just back may not
        serve its streams yet)."""
        self._look_soon = True
        waiting, self._waiting = self._waiting, []
        for woken in waiting:
            _set_once(woken, False)

    async def outcome(self, cause: int, timeout: float = 30.0) -> list:
        """The events the command with this sequence produced (one Rejected when refused)."""
        await self.wait_until(lambda f: cause in f.outcomes, timeout)
        return self.outcomes[cause]

    async def changed(self, timeout: float | None = 30.0) -> None:
        seen = len(self.batches)
        await self.wait_until(lambda f: len(f.batches) > seen, timeout)

    async def stop(self) -> None:
        if self._client is not None:
            self._client.followers.discard(self)
        for sub in self._subs:
            await sub.unsubscribe()


def _set_once(future: asyncio.Future, value) -> None:
    if not future.done():
        future.set_result(value)
