"""The records service: each tenant's questions about its archived games, answered from the history
index and the archive store (NATS's Services API: a queue group, discovery and stats).

    zc.records.<tenant>.list         HistoryAsk -> HistoryPage: the tenant's archived games, a page at a time
    zc.records.<tenant>.get.<game>   PartAsk -> the game's archive, part by part (header Zc-Parts: how many)

Whatever is asked, a RecordsRefused with a reason and a sentence is the other answer. The tenant is the
one the server let the asker name in the subject (`tenant_rights` in services/bus/access.py): no tenant can ask
for another's games, and none reads the index or the archive bucket itself (the bucket's chunks are not
named by game, so a subject permission could not keep them apart). Stateless: run as many as needed.
An archive holds every hand's cards; it is only ever given for a game that has ended.
"""
from collections import OrderedDict

import msgspec
import structlog
from nats.aio.client import Client
from nats.errors import Error as NatsError
from nats.js import JetStreamContext
from nats.micro import add_service
from nats.micro.request import Request

from zioncheck.application.history import MAX_PAGE, Query
from zioncheck.contracts.archive import (
    RECORDS_REFUSALS,
    HistoryAsk,
    HistoryPage,
    PartAsk,
    RecordsReason,
    RecordsRefused,
)
from zioncheck.contracts.log import json_depth
from zioncheck.services import observability as metrics
from zioncheck.services.archive_store import ArchiveStore, BucketStore
from zioncheck.services.bus.topology import PARTS_HEADER, RECORDS_GROUP, game_key, valid_game_id
from zioncheck.services.history import NoIndex, Unreadable, archived, list_page

log = structlog.get_logger("records")

MAX_ASK = 1024          # bytes a question may take: far above any real one
HEADROOM = 4096         # of a message's size, kept for headers
KEPT = 16               # archives kept in memory, for an asker reading one in parts


class RecordsService:
    def __init__(self, nc: Client, js: JetStreamContext, store: ArchiveStore | None = None):
        self.nc, self.js = nc, js
        self.store = store or BucketStore(js, reader="records")
        self.service = None
        self.kept: OrderedDict[tuple[str, str], bytes] = OrderedDict()

    async def start(self) -> None:
        self.service = await add_service(self.nc, name=RECORDS_GROUP, version="1.0.0",
                                         description="Each tenant's archived games: list them, and fetch one's "
                                                     "signed archive (zc.records.<tenant>.>)")
        await self.service.add_endpoint(name="list", subject="zc.records.*.list", queue_group=RECORDS_GROUP,
                                        handler=self.on_list)
        await self.service.add_endpoint(name="get", subject="zc.records.*.get.*", queue_group=RECORDS_GROUP,
                                        handler=self.on_get)

    async def stop(self) -> None:
        if self.service is not None:
            await self.service.stop()

    async def on_list(self, request: Request) -> None:
        tenant = request.subject.split(".")[2]
        ask = _decode(request.data, HistoryAsk)
        if ask is None or not 1 <= ask.limit <= MAX_PAGE or ask.after < 0:
            await _refuse(request, "bad_question", f"a HistoryAsk, limit 1 to {MAX_PAGE}")
            return
        query = Query(tenant=tenant, start=ask.start, end=ask.end, seat=ask.seat, outcome=ask.outcome,
                      won_by=ask.won_by, after=ask.after, limit=ask.limit, rules=ask.rules)
        try:
            found = await list_page(self.js, query, reader="records")
        except NoIndex:
            found = None
        except (NatsError, TimeoutError) as error:
            await _refuse(request, "unavailable", repr(error)[:120])
            return
        games = found.games if found else []
        await request.respond(msgspec.json.encode(HistoryPage(
            games=[entry for _, entry in games], sequences=[seq for seq, _ in games],
            next=found.next if found else None)))
        metrics.RECORDS.labels("list").inc()

    async def on_get(self, request: Request) -> None:
        _, _, tenant, _, game = request.subject.split(".", 4)
        ask = _decode(request.data, PartAsk) if request.data else PartAsk()
        if ask is None or ask.part < 0 or not valid_game_id(game):
            await _refuse(request, "bad_question", "a PartAsk with a part from 0, for a game id")
            return
        try:
            data = await self._archive(tenant, game)
        except (NatsError, TimeoutError) as error:
            await _refuse(request, "unavailable", repr(error)[:120])
            return
        if data is None:
            await _refuse(request, "no_such_game", game)
            return
        if not data:
            await _refuse(request, "damaged", game)
            return
        size = max(self.nc.max_payload - HEADROOM, HEADROOM)
        parts = -(-len(data) // size)
        if ask.part >= parts:
            await _refuse(request, "bad_question", f"the archive has {parts} parts, from 0")
            return
        await request.respond(data[ask.part * size:(ask.part + 1) * size], headers={PARTS_HEADER: str(parts)})
        metrics.RECORDS.labels("get").inc()

    async def _archive(self, tenant: str, game: str) -> bytes | None:
        """The game's archive; None when the tenant has archived no such game, b"" when the index names
        one the store cannot give (told in the log and a metric)."""
        if (tenant, game) in self.kept:
            self.kept.move_to_end((tenant, game))
            return self.kept[(tenant, game)]
        try:
            data = await archived(self.js, game_key(tenant, game), self.store)
        except Unreadable as error:
            log.error("records_archive_unreadable", tenant=tenant, game=game, why=str(error))
            metrics.RECORDS.labels("missing").inc()
            return b""
        if data is not None:
            self.kept[(tenant, game)] = data
            while len(self.kept) > KEPT:
                self.kept.popitem(last=False)
        return data


def _decode(data: bytes, kind):
    if len(data) > MAX_ASK or json_depth(data) > 4:
        return None
    try:
        return msgspec.json.decode(data, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


async def _refuse(request: Request, reason: RecordsReason, detail: str) -> None:
    metrics.RECORDS.labels(f"refused_{reason}").inc()
    await request.respond(msgspec.json.encode(RecordsRefused(
        reason=reason, detail=f"{RECORDS_REFUSALS[reason]} ({detail})")))
