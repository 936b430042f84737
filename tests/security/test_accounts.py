"""Accounts: the house is an account of its own and each tenant another, so nothing a tenant's login sends
makes the server write in the house, whatever reply subject it names; and the server holds each tenant to
its limits. Tried against the shipped configuration twice: the embedded default (one partition) and a
deployment made by `zioncheck credentials --deploy` (deploy/single.conf, four partitions).

The matrix is generated from the permission tables (services/bus/access.py): every request each tenant login
may make, sent with its reply subject aimed at the JetStream API (delete, purge, consumer delete and create),
at every subject a house stream stores, and at another tenant's subjects and inbox. Before and after, the
operator reads every stream's state and consumers: nothing changes.
"""
import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nats
import pytest
from attacker import REFUSED, Attacker
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout
from nats_backends import start_nats

from zioncheck.client import GameClient, read_view
from zioncheck.contracts.commands import StartGame
from zioncheck.contracts.intake import Taken, decode_reply
from zioncheck.contracts.log import encode
from zioncheck.services.bus.access import (
    TENANT_ROLES,
    Access,
    TenantLimits,
    add_user,
    make_credentials,
    read_credentials,
    set_tenant_limits,
    tenant_rights,
)
from zioncheck.services.bus.embedded import free_port, reachable, server_binary
from zioncheck.services.bus.topology import (
    game_key,
    intake_subject,
    new_game_id,
    public_view_key,
    rejected_subject,
    seat_view_key,
    view_live_subject,
)
from zioncheck.services.projector.service import SETTLE_SECONDS
from zioncheck.services.wiring import SERVICES, Services

pytestmark = pytest.mark.security
DEPLOY = Path(__file__).parent.parent.parent / "deploy"
# acme's limits, set small before the server starts; beta keeps the defaults
SMALL = TenantLimits(connections=4, subscriptions=30, payload=4096)
LOGINS = {"acme": ("platform", "acme"), "acme-tv": ("spectator", "acme"), "beta": ("platform", "beta"),
          "platform": ("platform", "platform"), "spectator": ("spectator", "platform")}


class Deployment:
    """A running server with the shipped configuration, its logins in `access`."""

    def __init__(self, access, stop):
        self.access, self.stop = access, stop


def _embedded(tmp_path: Path) -> Deployment:
    folder = tmp_path / "credentials"
    make_credentials(folder)
    for user in ("acme", "beta"):
        add_user(folder, user, "platform")
    add_user(folder, "acme-tv", "spectator", tenant="acme")
    set_tenant_limits(folder, "acme", connections=SMALL.connections, subscriptions=SMALL.subscriptions,
                      payload=SMALL.payload)
    server = start_nats(tmp_path / "jetstream", log=tmp_path / "nats-server.log")
    return Deployment(server.access, server.stop)


def _zioncheck(*args: str) -> None:
    made = subprocess.run([sys.executable, "-m", "zioncheck.cli.main", "credentials", *args],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr


def _deployed(tmp_path: Path) -> Deployment:
    """deploy/single.conf with the logins the deploy README's commands make, acme's limits set the same way."""
    deploy = shutil.copytree(DEPLOY, tmp_path / "deploy", ignore=shutil.ignore_patterns("secrets"))
    secrets = str(deploy / "secrets")
    _zioncheck("--deploy", secrets, "--add", "acme", "--role", "platform")
    _zioncheck("--deploy", secrets, "--add", "beta", "--role", "platform")
    _zioncheck("--deploy", secrets, "--add", "acme-tv", "--role", "spectator", "--tenant", "acme")
    _zioncheck("--deploy", secrets, "--tenant", "acme", "--max-connections", str(SMALL.connections),
               "--max-subscriptions", str(SMALL.subscriptions), "--max-payload", str(SMALL.payload))
    port = free_port()
    server = subprocess.Popen([server_binary(), "-c", str(deploy / "single.conf"), "-p", str(port),
                               "-m", str(free_port())], cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"nats://127.0.0.1:{port}"
    for _ in range(300):
        if reachable(url):
            break
        assert server.poll() is None, "the shipped configuration did not start"
        time.sleep(0.05)
    def stop():
        server.terminate()
        server.wait()
    return Deployment(Access((url,), deploy / "secrets" / "credentials"), stop)


@pytest.fixture(params=["embedded", "deployed"])
def deployment(request, tmp_path):
    made = (_embedded if request.param == "embedded" else _deployed)(tmp_path)
    yield made
    made.stop()


@pytest.fixture
async def house(deployment):
    """The services up, and a game in play for each tenant, dealt (so every stream holds something)."""
    running = await Services().start(SERVICES, deployment.access)
    games = {}
    for user, (role, tenant) in LOGINS.items():
        if role == "platform":
            client = await GameClient.connect(deployment.access, user)
            game = new_game_id(tenant)
            reply = decode_reply((await client.nc.request(intake_subject(game_key(tenant, game)),
                                                          encode(StartGame(game_id=game, players=2)),
                                                          timeout=5)).data)
            assert isinstance(reply, Taken), reply
            for _ in range(200):
                if await read_view(client.nc, seat_view_key(game_key(tenant, game), 0)) is not None:
                    break
                await asyncio.sleep(0.05)
            await client.nc.close()
            games[tenant] = game_key(tenant, game)
    yield deployment, games
    await running.stop()


async def _state(nc) -> dict:
    """Every stream's messages, bytes and sequences, and its consumers: what an attack would change."""
    js = nc.jetstream()
    found = {}
    for info in await js.streams_info():
        name = info.config.name
        consumers = sorted(c.name for c in await js.consumers_info(name))
        found[name] = (info.state.messages, info.state.bytes, info.state.first_seq, info.state.last_seq, consumers)
    return found


async def _settled(nc) -> dict:
    """The state once the game services are done with what they were doing (a deal, its views): the same
    over longer than the projector waits before it stores a quiet game's views."""
    before = await _state(nc)
    for _ in range(20):
        await asyncio.sleep(SETTLE_SECONDS + 0.25)
        now = await _state(nc)
        if now == before:
            return now
        before = now
    raise AssertionError("the house did not settle")


def _concrete(right: str, game: str) -> str:
    """A subject a right allows, for one game of the right's tenant: `*` the game's id, `>` a seat's view."""
    game_id = game.partition("=")[2] or game
    tokens = []
    for token in right.split("."):
        if token == "*":
            tokens.append(game_id)
        elif token == ">":
            tokens.append("seat.0" if "zc_views" in right else "list")
        else:
            tokens.append(token)
    return ".".join(tokens)


def _targets(streams: dict, games: dict, tenant: str, others_inbox: str) -> list[str]:
    """Where each reply is aimed: the JetStream API on every stream and consumer, every stored subject of
    every house stream (for every tenant's game), and another tenant's subjects and inbox."""
    api = ["$JS.API.STREAM.CREATE.EVIL", "$JS.API.STREAM.DELETE.EVIL", "$JS.API.INFO"]
    for name, (*_, consumers) in streams.items():
        api += [f"$JS.API.STREAM.{verb}.{name}" for verb in ("DELETE", "PURGE", "UPDATE", "INFO")]
        api += [f"$JS.API.CONSUMER.CREATE.{name}", f"$JS.API.CONSUMER.DURABLE.CREATE.{name}.evil"]
        api += [f"$JS.API.CONSUMER.DELETE.{name}.{consumer}" for consumer in consumers]
        api += [f"$JS.API.CONSUMER.{verb}.{name}.{consumer}" for consumer in consumers for verb in ("UNPIN", "RESET")]
    stored = []
    for game in games.values():
        t, _, g = game.partition("=") if "=" in game else ("platform", "", game)
        stored += [f"zc.log.{p}.{game}.{kind}" for p in range(4) for kind in ("events", "batch")]
        stored += [f"zc.cmd.{game}.{origin}" for origin in ("play", "dealer", "timer")]
        stored += [f"zc.cmd.{p}.{game}.{origin}" for p in range(4) for origin in ("play", "dealer", "timer")]
        stored += [f"zc.timer.{game}", f"zc.timer.0.{game}", f"zc.open.{t}.{g}", f"zc.feed.{t}.{g}",
                   f"zc.score.{t}.{g}", f"zc.history.{t}.{g}", f"zc.removal.{game}", f"zc.remove.{game}",
                   f"$KV.zc_views.{t}.{g}.public", f"$KV.zc_views.{t}.{g}.seat.0", f"$KV.zc_standings.{t}.{g}",
                   f"$KV.zc_dealer_seeds.{game}.2", f"$O.zc_archive.M.{g}", f"zc.live.{game}.events"]
    other = [game for name, game in games.items() if name != tenant]
    theirs = [others_inbox + ".attack"]
    for game in other:
        t, _, g = game.partition("=") if "=" in game else ("platform", "", game)
        theirs += [intake_subject(game), rejected_subject(game), view_live_subject(public_view_key(game)),
                   view_live_subject(seat_view_key(game, 0)), f"zc.public.{t}.{g}", f"zc.records.{t}.list"]
    return api + stored + theirs


async def test_no_reply_subject_a_tenants_login_names_changes_a_stream_a_message_or_a_consumer(house):
    deployment, games = house
    operator = await nats.connect(**deployment.access.connect_options("operator"))
    heard: list = []
    beta_inbox = "_INBOX_beta"
    beta = await Attacker.login(deployment.access, "beta")

    async def hear(msg):
        heard.append(msg.subject)
    await beta.nc.subscribe(beta_inbox + ".>", cb=hear)
    await beta.nc.subscribe(view_live_subject(public_view_key(games["beta"])), cb=hear)
    try:
        before = await _settled(operator)
        sent = 0
        for user, (role, tenant) in LOGINS.items():
            attacker = await Attacker.login(deployment.access, user)
            targets = _targets(before, games, tenant, beta_inbox if tenant != "beta" else "_INBOX_acme")
            for right in tenant_rights(role, tenant).publish:
                subject = _concrete(right, games[tenant])
                for target in targets:
                    await attacker.nc.publish(subject, b"", reply=target)
                    sent += 1
            await attacker.nc.flush()
            assert not [e for e in attacker.errors if "violation" in e.lower()], (user, attacker.errors[:3])
            await attacker.close()
        assert sent > 2000   # every login, every right, every target
        after = await _settled(operator)
        assert after == before
        # beta's own view updates are all it hears: nothing another tenant aimed at it
        assert not [s for s in heard if s.startswith(beta_inbox)], heard[:5]
    finally:
        await beta.close()
        await operator.close()


async def test_a_tenants_account_has_no_jetstream_and_its_logins_reach_the_house_only_through_its_imports(house):
    deployment, games = house
    acme = await Attacker.login(deployment.access, "acme")
    try:
        # JetStream's API is not there for a tenant: nothing answers it in the tenant's account
        with pytest.raises((NoRespondersError, NatsTimeout)):
            await acme.nc.request("$JS.API.INFO", b"", timeout=REFUSED)
        # its own game's views come through the import
        assert await read_view(acme.nc, public_view_key(games["acme"])) is not None
        # another tenant's game: no import, no right
        with pytest.raises((NoRespondersError, NatsTimeout)):
            await read_view(acme.nc, public_view_key(games["beta"]), timeout=REFUSED)
    finally:
        await acme.close()


async def _connect(access, user: str):
    return await nats.connect(**access.connect_options(user) | {"allow_reconnect": False,
                                                                "max_reconnect_attempts": 0})


async def test_the_server_holds_a_tenant_to_its_connections_and_another_tenant_is_not_held(deployment):
    held = [await _connect(deployment.access, "acme" if i % 2 else "acme-tv") for i in range(SMALL.connections)]
    try:
        with pytest.raises(nats.errors.Error, match="maximum account active connections"):
            await _connect(deployment.access, "acme")
        others = [await _connect(deployment.access, "beta") for _ in range(SMALL.connections + 1)]
        for nc in others:
            await nc.close()
    finally:
        for nc in held:
            await nc.close()


async def test_the_server_holds_a_tenants_connection_to_its_subscriptions_and_its_payload(house):
    deployment, games = house
    view = public_view_key(games["acme"])
    full = await _connect(deployment.access, "acme")
    fresh = await _connect(deployment.access, "acme")
    try:
        for index in range(SMALL.subscriptions):
            await full.subscribe(f"zc.view.acme.g{index}.public")
        await full.flush()
        # a request needs one more subscription (its replies' inbox): refused on the full connection ...
        with pytest.raises(NatsTimeout):
            await read_view(full, view, timeout=REFUSED * 2)
        # ... and a connection with room reads the view
        assert await read_view(fresh, view) is not None
        # a message past the tenant's payload: the server closes the connection that sent it
        await fresh.publish(intake_subject(games["acme"]), b"x" * (SMALL.payload + 1))
        for _ in range(40):
            if not fresh.is_connected:
                break
            await asyncio.sleep(0.05)
        assert not fresh.is_connected
    finally:
        await full.close()
        await fresh.close()


def test_every_tenant_login_lives_in_its_tenants_account_and_no_house_login_in_one(tmp_path):
    """The accounts the configuration writes, read back: a tenant's logins in its account, the house's in the
    house's, and each tenant's imports naming its own games only."""
    from zioncheck.services.bus.access import HOUSE, accounts_block, tenant_account
    folder = tmp_path / "credentials"
    make_credentials(folder)
    add_user(folder, "acme", "platform")
    add_user(folder, "acme-ops", "platform", tenant="acme")
    add_user(folder, "beta", "platform")
    text = accounts_block(list(read_credentials(folder).values()), 2)
    sections = {name: text.split(f"{name}: {{", 1)[1] for name in
                (HOUSE, f'"{tenant_account("acme")}"', f'"{tenant_account("beta")}"')}
    house = sections[HOUSE].split('"TENANT_', 1)[0]
    for user, credential in read_credentials(folder).items():
        inside = f'{{user: "{user}"' in house
        assert inside == (credential.role not in TENANT_ROLES), user
    acme = sections[f'"{tenant_account("acme")}"'].split('"TENANT_', 1)[0]
    assert '{user: "acme"' in acme and '{user: "acme-ops"' in acme and "beta" not in acme
    assert "jetstream" not in acme and "max_connections" in acme
