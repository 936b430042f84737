"""Tenants: each platform login is a tenant, and the server itself keeps every other login out of its
games. Tried with two tenants against a real server with the shipped permissions and the services up.
"""
import asyncio

import pytest
from attacker import REFUSED, matches
from nats.errors import TimeoutError as NatsTimeout
from nats_backends import start_nats

from zioncheck.client import GameClient, read_view
from zioncheck.contracts.commands import DrawStock, StartGame
from zioncheck.contracts.intake import Refused, Taken, decode_reply
from zioncheck.contracts.log import encode
from zioncheck.contracts.views import decode_public_view
from zioncheck.services.bus.access import add_user, make_credentials, tenant_rights
from zioncheck.services.bus.topology import (
    FEED,
    SCORES,
    STANDINGS,
    VIEWS,
    feed_subject,
    game_key,
    intake_subject,
    kv_stream,
    kv_subject,
    new_game_id,
    public_feed_subject,
    public_view_key,
    rejected_subject,
    score_subject,
    seat_view_key,
    standings_key,
    view_live_subject,
)

pytestmark = pytest.mark.security




def tenant_facing(game: str) -> list[str]:
    """Every subject a tenant sends on, gets by or listens to, for one game key."""
    return [intake_subject(game), rejected_subject(game), public_feed_subject(game),
            view_live_subject(public_view_key(game)), view_live_subject(seat_view_key(game, 0)),
            f"$JS.API.DIRECT.GET.{FEED}.{feed_subject(game)}", f"$JS.API.DIRECT.GET.{SCORES}.{score_subject(game)}",
            f"$JS.API.DIRECT.GET.{kv_stream(VIEWS)}.{kv_subject(VIEWS, public_view_key(game))}",
            f"$JS.API.DIRECT.GET.{kv_stream(VIEWS)}.{kv_subject(VIEWS, seat_view_key(game, 0))}",
            f"$JS.API.DIRECT.GET.{kv_stream(STANDINGS)}.{kv_subject(STANDINGS, standings_key(game))}"]


@pytest.mark.parametrize("role", ["platform", "spectator"])
def test_no_right_of_a_tenant_names_any_subject_of_another_tenants_game(role):
    """Generated from the permission tables: every right of acme's, against every subject of beta's
    games (beta's own name, one that starts like acme's, and the default tenant's)."""
    rights = tenant_rights(role, "acme")
    for other in ("beta", "acme2", "platform"):
        for subject in tenant_facing(game_key(other, "g1")):
            allowed = [right for right in (*rights.publish, *rights.subscribe) if matches(right, subject)]
            assert not allowed, f"{role} of acme may reach {subject} through {allowed}"
    mine = tenant_facing(game_key("acme", "g1"))
    assert any(matches(right, mine[0]) for right in rights.publish) == (role == "platform")


@pytest.fixture
def nats_server(tmp_path):
    """The shipped permissions with two more platform logins, acme and beta (two tenants), and a
    spectator of acme's, made before the server starts."""
    folder = tmp_path / "credentials"
    make_credentials(folder)
    for name in ("acme", "beta"):
        add_user(folder, name, "platform")
    add_user(folder, "acme-tv", "spectator", tenant="acme")
    server = start_nats(tmp_path / "jetstream", log=tmp_path / "nats-server.log")
    yield server
    server.stop()


@pytest.fixture
async def tenants(nats_server):
    made = {name: await GameClient.connect(nats_server.access, name) for name in ("acme", "beta", "acme-tv")}
    yield made
    for client in made.values():
        await client.nc.close()


async def _start(client: GameClient, tenant: str, game: str, players: int) -> int:
    reply = decode_reply((await client.nc.request(intake_subject(game_key(tenant, game)),
                                                  encode(StartGame(game_id=game, players=players)), timeout=5)).data)
    assert isinstance(reply, Taken), reply
    return reply.seq


async def _public(client: GameClient, tenant: str, game: str):
    for _ in range(100):
        found = await read_view(client.nc, public_view_key(game_key(tenant, game)))
        if found is not None:
            return decode_public_view(found)
        await asyncio.sleep(0.05)
    return None


async def test_two_tenants_use_one_game_id_without_meeting(services, tenants):
    game = new_game_id("same")
    await _start(tenants["acme"], "acme", game, 3)
    await _start(tenants["beta"], "beta", game, 2)
    assert (await _public(tenants["acme"], "acme", game)).players == 3
    assert (await _public(tenants["beta"], "beta", game)).players == 2
    assert (await _public(tenants["acme-tv"], "acme", game)).players == 3   # acme's spectator sees acme's


async def test_a_tenant_can_neither_command_read_nor_hear_another_tenants_game(services, tenants, login):
    game = new_game_id("acme")
    await _start(tenants["acme"], "acme", game, 2)
    assert await _public(tenants["acme"], "acme", game) is not None
    beta = await login("beta")
    victim = game_key("acme", game)
    # Commands: the intake's subject names the tenant, and beta may send on its own only.
    await beta.nc.publish(intake_subject(victim), encode(DrawStock(seat=0)))
    assert await beta.refused(intake_subject(victim))
    # Reads, public and private, by direct get: no answer at all.
    for key in (public_view_key(victim), seat_view_key(victim, 0)):
        with pytest.raises(NatsTimeout):
            await beta.nc.request(f"$JS.API.DIRECT.GET.{kv_stream(VIEWS)}.{kv_subject(VIEWS, key)}", b"",
                                  timeout=REFUSED)
    for api in (f"$JS.API.DIRECT.GET.{FEED}.{feed_subject(victim)}",
                f"$JS.API.DIRECT.GET.{kv_stream(STANDINGS)}.{kv_subject(STANDINGS, standings_key(victim))}",
                f"$JS.API.STREAM.INFO.{kv_stream(VIEWS)}", f"$JS.API.STREAM.INFO.{FEED}",   # lists every key
                f"$JS.API.DIRECT.GET.{kv_stream(VIEWS)}", "$JS.API.STREAM.NAMES"):
        with pytest.raises(NatsTimeout):
            await beta.nc.request(api, b'{"last_by_subj": "$KV.zc_views.acme.>"}', timeout=REFUSED)
    # Live: the server refuses beta's subscriptions to acme's subjects.
    for subject in (view_live_subject(f"acme.{game}.>"), public_feed_subject(victim), rejected_subject(victim)):
        beta.errors.clear()
        await beta.nc.subscribe(subject)
        assert await beta.refused(subject), subject
    # acme's spectator watches acme's public side only.
    watcher = await login("acme-tv")
    with pytest.raises(NatsTimeout):
        await watcher.nc.request(f"$JS.API.DIRECT.GET.{kv_stream(VIEWS)}."
                                 f"{kv_subject(VIEWS, seat_view_key(victim, 0))}", b"", timeout=REFUSED)
    await watcher.nc.subscribe(view_live_subject(f"beta.{game}.public"))
    assert await watcher.refused(f"beta.{game}.public")


async def test_a_tenant_cannot_take_a_game_id_another_is_about_to_start(services, tenants):
    """The attack of the review: beta started the id acme was about to use. Now beta's game is beta's."""
    game = new_game_id("race")
    await _start(tenants["beta"], "beta", game, 5)
    await _start(tenants["acme"], "acme", game, 2)   # acme's start is not refused: it is acme's own game
    assert (await _public(tenants["acme"], "acme", game)).players == 2


@pytest.fixture
async def two_games_a_tenant(nats_server, monkeypatch):
    """The services, with each tenant's games in play capped at two."""
    from zioncheck.services.wiring import SERVICES, Services
    monkeypatch.setenv("ZIONCHECK_TENANT_GAMES", "2")
    running = await Services().start(SERVICES, nats_server.access)
    yield running
    await running.stop()


async def test_a_tenant_past_its_games_in_play_is_refused_a_start_and_another_tenant_is_not(
        two_games_a_tenant, tenants):
    for _ in range(2):
        await _start(tenants["acme"], "acme", new_game_id("acme"), 2)
    game = new_game_id("acme")
    reply = decode_reply((await tenants["acme"].nc.request(intake_subject(game_key("acme", game)),
                                                           encode(StartGame(game_id=game, players=2)), timeout=5)).data)
    assert isinstance(reply, Refused) and reply.reason == "too_many_games", reply
    await _start(tenants["beta"], "beta", new_game_id("beta"), 2)


@pytest.fixture
async def ten_views_a_tenant(nats_server, monkeypatch):
    """The services, with each tenant's share of the views bucket ten views: two games of two seats (a
    public view and one a seat each, counted at a start as up to five)."""
    from zioncheck.services.bus.topology import StoreLimits
    from zioncheck.services.wiring import SERVICES, Services
    views = StoreLimits.configured().bytes_of(VIEWS)
    monkeypatch.setenv("ZIONCHECK_TENANT_SHARE", repr(10.5 * StoreLimits.VIEW_BYTES / views))
    assert StoreLimits.configured().tenant_view_keys() == 10
    running = await Services().start(SERVICES, nats_server.access)
    yield running
    await running.stop()


async def _refused_start(client: GameClient, tenant: str) -> Refused:
    game = new_game_id(tenant)
    reply = decode_reply((await client.nc.request(intake_subject(game_key(tenant, game)),
                                                  encode(StartGame(game_id=game, players=2)), timeout=5)).data)
    assert isinstance(reply, Refused), reply
    return reply


async def test_a_tenant_holding_its_share_of_the_views_starts_no_game_until_its_games_are_removed_and_another_does(
        ten_views_a_tenant, tenants, client):
    """The attack of the report: one tenant filled the views bucket every tenant shares within its own quota of
    games in play. Its games hold views in play and over, until the archiver removes them."""
    from zioncheck.services.bus.topology import OPEN, open_subject
    from zioncheck.services.intake.service import SHARE_SECONDS
    games = [new_game_id("acme") for _ in range(2)]
    for game in games:
        await _start(tenants["acme"], "acme", game, 2)
        assert await _public(tenants["acme"], "acme", game) is not None
    refused = await _refused_start(tenants["acme"], "acme")
    assert refused.reason == "too_many_games" and "share of the views bucket (10)" in refused.detail, refused
    beta = new_game_id("beta")
    await _start(tenants["beta"], "beta", beta, 2)
    assert (await _public(tenants["beta"], "beta", beta)).players == 2, "beta's share is its own"
    # Over, as the table takes a game over out of the register of games in play: its views are still held.
    await client.js.purge_stream(OPEN, subject=open_subject(game_key("acme", "*")))
    await asyncio.sleep(SHARE_SECONDS)
    assert (await _refused_start(tenants["acme"], "acme")).reason == "too_many_games"
    # Removed, as the archiver removes a finished game once its retention has run: room again.
    for game in games:
        await client.js.purge_stream(kv_stream(VIEWS), subject=kv_subject(VIEWS, f"acme.{game}.>"))
        await client.js.purge_stream(FEED, subject=feed_subject(game_key("acme", game)))
    await asyncio.sleep(SHARE_SECONDS)
    await _start(tenants["acme"], "acme", new_game_id("acme"), 2)
