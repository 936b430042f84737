"""The gateway tells which services answer: `zioncheck serve gateway` says it at start, one line a service, and a
game it cannot start is refused at once in words, naming the service away and the command that starts it, on the
lobby's page too. Real services on a real server with the shipped permissions; the gateway logged in as itself."""
import asyncio
import os
import sys
import time
from urllib.parse import urlsplit

import httpx
import pytest

from gateway_helpers import PLATFORM, SECRET, keys_file  # noqa: F401
from zioncheck.services.bus.access import connect
from zioncheck.services.bus.embedded import free_port
from zioncheck.services.gateway.roll_call import RollCall
from zioncheck.services.gateway.server import Running
from zioncheck.services.wiring import SERVICES, Services

SEATS = {"players": 2, "seats": ["person", "greedy"]}


def service_of(line: str) -> str:
    """The service a line of the roll call is about (its first word), or "" for any other line."""
    words = line.replace(":", " ").split()
    return words[0] if words and words[0] in SERVICES else ""


def host_of(lobby: dict) -> str:
    return urlsplit(lobby["host"]).fragment.removeprefix("host=")


async def test_serve_gateway_says_at_start_which_services_answer_and_how_to_start_the_others(nats_server, tmp_path):
    house = await Services().start(["table", "dealer", "projector", "intake"], nats_server.access)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "zioncheck.cli.main", "serve", "gateway", "--port", str(free_port()),
        *nats_server.cli_args, "--log-level", "warning", stdout=asyncio.subprocess.PIPE,
        env=os.environ | {"ZIONCHECK_HOME": str(tmp_path), "LANGUAGE": "en"})
    try:
        lines: list[str] = []
        async with asyncio.timeout(30):
            while len([line for line in lines if service_of(line)]) < len(SERVICES):
                line = (await process.stdout.readline()).decode()
                assert line, f"the gateway ended before its roll call: {lines}"
                lines.append(line.rstrip("\n"))
        said = {service_of(line): line for line in lines if service_of(line)}
        for name in ("table", "dealer", "projector", "intake"):
            assert said[name] == f"{name} answers"
        for name in ("scoring", "archiver", "records"):
            assert said[name].startswith(f"{name} does not answer: "), said[name]
            assert said[name].endswith(f"start it with `zioncheck serve {name}`"), said[name]
        assert "never reach history" in said["archiver"]
        assert said["bots"].startswith("bots: the gateway cannot tell whether it runs"), said["bots"]
        assert list(said) == list(SERVICES), "one line a service, in the order `zioncheck serve` names them"
    finally:
        process.terminate()
        assert await asyncio.wait_for(process.wait(), 20) == 0
        await house.stop()


async def test_a_lobby_that_cannot_start_says_which_service_is_away_and_starts_once_it_answers(
        nats_server, keys_file):  # noqa: F811
    house = await Services().start(["dealer", "scoring", "projector", "intake", "bots"], nats_server.access)
    gateway = await Running.start(nats_server.access, port=0, secret=SECRET, platform_keys=keys_file)
    table = None
    try:
        async with httpx.AsyncClient(base_url=gateway.url, timeout=40) as http:
            lobby = (await http.post("/lobbies", json=SEATS, headers=PLATFORM)).json()
            game, host = lobby["game_id"], {"Authorization": f"Bearer {host_of(lobby)}"}
            began = time.monotonic()
            refused = await http.post(f"/lobbies/{game}/start", headers=host)
            assert time.monotonic() - began < 10, "said at once, not after the 30 s of a command's retries"
            assert refused.status_code == 503 and refused.json()["error"] == "service_unavailable", refused.text
            detail = refused.json()["detail"]
            assert detail.startswith("no table service answers, so the game cannot start"), detail
            assert "`zioncheck serve table`" in detail, detail
            assert (await http.get(f"/games/{game}/public")).status_code == 404, "nothing was sent"
            opened = await http.post("/games", json=SEATS, headers=PLATFORM)
            assert opened.status_code == 503 and "no table service answers" in opened.json()["detail"]

            table = await Services().start(["table"], nats_server.access)
            started = await http.post(f"/lobbies/{game}/start", headers=host)
            assert started.status_code == 200 and started.json()["started"], "the lobby waited, and starts now"
    finally:
        await gateway.stop()
        if table is not None:
            await table.stop()
        await house.stop()


async def test_a_service_that_stops_is_no_longer_counted_as_answering(nats_server):
    house = await Services().start(list(SERVICES), nats_server.access)
    nc = await connect(nats_server.access, "gateway")
    roll_call = RollCall(nc, within=1.0, remembered=0)
    try:
        assert await roll_call.answering() == {name: name != "bots" or None for name in SERVICES}
    finally:
        await house.stop()
    try:
        answering = await roll_call.answering()
        assert answering == {name: False if name != "bots" else None for name in SERVICES}
    finally:
        await nc.close()


@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="/usr/bin/chromium is missing")
async def test_the_lobby_page_says_in_words_why_its_game_cannot_start(nats_server, keys_file):  # noqa: F811
    from test_gateway_browser import browser_page
    house = await Services().start(["table", "scoring", "projector", "intake"], nats_server.access)
    gateway = await Running.start(nats_server.access, port=0, secret=SECRET, platform_keys=keys_file)
    try:
        async with httpx.AsyncClient(base_url=gateway.url, timeout=20) as http:
            lobby = (await http.post("/lobbies", json=SEATS, headers=PLATFORM)).json()
        async with browser_page({"width": 1280, "height": 900}) as page:
            await page.goto(gateway.url + lobby["host"])
            await page.wait_for_selector("#start:not([hidden])")
            await page.click("#start")
            await page.wait_for_function(
                "document.getElementById('error').textContent.includes('no dealer service answers')", timeout=15_000)
            assert "`zioncheck serve dealer`" in await page.text_content("#error")
    finally:
        await gateway.stop()
        await house.stop()
