"""A tenant reads its own archived games, and only its own (services/records): the server keeps each platform
login to zc.records.<its tenant>.>, and the records service answers from that subject alone."""
import asyncio
import time

import msgspec
import nats.errors
import pytest
from nats_backends import start_nats

from archived import PUBLIC, archive
from zioncheck.application.archive import entries_of_record, unpack, verify
from zioncheck.application.archive_samples import sample_season
from zioncheck.application.replay import fold_log, state_hash
from zioncheck.client import GameClient, RecordsRefusal
from zioncheck.contracts.archive import HistoryAsk, IndexEntry
from zioncheck.services.bus.access import add_user, connect, make_credentials
from zioncheck.services.bus.topology import ARCHIVE_BUCKET, history_subject, records_subject

pytestmark = pytest.mark.integration

ACME = sample_season(3, tenant="acme", seed="acme")
BETA = sample_season(1, tenant="beta", seed="beta")


@pytest.fixture
def nats_server(tmp_path):
    """The shipped permissions with two platform logins, acme and beta (two tenants)."""
    folder = tmp_path / "credentials"
    make_credentials(folder)
    for name in ("acme", "beta"):
        add_user(folder, name, "platform")
    server = start_nats(tmp_path / "jetstream", log=tmp_path / "nats-server.log")
    yield server
    server.stop()


@pytest.fixture
async def tenants(nats_server, services):
    await archive(nats_server.access, ACME + BETA)
    made = {name: await GameClient.connect(nats_server.access, name) for name in ("acme", "beta")}
    yield made
    for client in made.values():
        await client.nc.close()


async def test_a_tenant_lists_its_archived_games_and_no_other_tenants(tenants):
    page = await tenants["acme"].archived_games(tenant="acme")
    assert [entry.manifest.game for entry in page.games] == [r.manifest.game for r in ACME]
    assert [entry.manifest.game for entry in (await tenants["beta"].archived_games(tenant="beta")).games] == \
        [BETA[0].manifest.game]


async def test_a_tenant_pages_through_its_archived_games(tenants):
    first = await tenants["acme"].archived_games(HistoryAsk(limit=2), tenant="acme")
    rest = await tenants["acme"].archived_games(HistoryAsk(limit=2, after=first.next), tenant="acme")
    assert len(first.games) == 2 and first.next is not None and len(rest.games) == 1 and rest.next is None


async def test_a_tenant_fetches_an_archive_that_verifies_and_replays_to_its_manifests_hash(tenants):
    record = ACME[1]
    data = await tenants["acme"].archive(f"acme={record.manifest.game}")
    assert verify(data, PUBLIC) == []
    assert state_hash(fold_log(entries_of_record(unpack(data).record))) == record.manifest.state_hash


@pytest.mark.parametrize("what", ["list", f"get.{ACME[0].manifest.game}"])
async def test_the_server_refuses_a_tenant_asking_for_another_tenants_records(tenants, what):
    with pytest.raises((nats.errors.TimeoutError, nats.errors.NoRespondersError)):
        await tenants["beta"].nc.request(records_subject("acme", what), b"{}", timeout=1)


async def test_another_tenants_game_id_asked_under_ones_own_tenant_is_no_such_game(tenants):
    with pytest.raises(RecordsRefusal) as refused:
        await tenants["beta"].archive(f"beta={ACME[0].manifest.game}")
    assert refused.value.refusal.reason == "no_such_game"


@pytest.mark.parametrize("question", [b"{not json", b'{"limit": 0}', b'{"limit": "ten"}', b"[" * 50 + b"]" * 50,
                                      b"{}" + b" " * 2000])
async def test_a_question_the_service_cannot_read_is_refused_with_a_reason(tenants, question):
    reply = await tenants["acme"].nc.request(records_subject("acme", "list"), question, timeout=5)
    assert msgspec.json.decode(reply.data)["reason"] == "bad_question"


async def test_an_archive_larger_than_a_message_comes_in_parts_that_join_into_it(nats_server, tenants):
    big = bytes(range(256)) * (2 * tenants["acme"].nc.max_payload // 256 + 7)
    nc = await connect(nats_server.access, "operator")
    try:
        await (await nc.jetstream().object_store(ARCHIVE_BUCKET)).put("acme=big.zca", big)
        entry = IndexEntry(manifest=msgspec.structs.replace(ACME[0].manifest, game="big", key="acme=big"),
                           archived_at=time.time_ns(), size=len(big), where="acme=big.zca")
        await nc.jetstream().publish(history_subject("acme", "big"), msgspec.json.encode(entry))
    finally:
        await nc.close()
    assert await tenants["acme"].archive("acme=big") == big


async def test_a_tenant_can_neither_read_the_index_nor_the_archive_bucket_itself(tenants):
    js = tenants["acme"].nc.jetstream()
    for read in (lambda: js.get_msg("ZC_HISTORY", subject=history_subject("acme", ACME[0].manifest.game),
                                    direct=True),
                 lambda: js.object_store(ARCHIVE_BUCKET)):
        with pytest.raises(Exception):  # noqa: B017 - refused by the server, however nats-py words it
            await asyncio.wait_for(read(), 3)
