"""The web page in headless Chromium: a live bot game moves on the table, a finished game replays, and every
page fits a phone's screen."""
import asyncio
import contextlib
import os
import random

import pytest

from gateway_helpers import KEY, PLATFORM, SECRET, eventually, finished_game, gateway, http, keys_file  # noqa: F401
from over_nats import new_game
from zioncheck.bots import make_bot
from zioncheck.contracts.commands import StartGame
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.gateway.server import Running

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` (.ci/run does)")


PHONE = {"width": 390, "height": 844}


@contextlib.asynccontextmanager
async def browser_page(viewport: dict):
    from playwright.async_api import async_playwright
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport=viewport)
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        await browser.close()
        assert errors == [], f"the page raised: {errors}"


@pytest.fixture
async def page():
    async with browser_page({"width": 1280, "height": 900}) as page:
        yield page


@pytest.fixture
async def phone():
    async with browser_page(PHONE) as page:
        yield page


async def whole_game(client, players: int = 2) -> str:
    """A whole six-hand game of greedy bots at full speed; its id once it is over."""
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=players, public=True))
    rng = random.Random(3)
    await play_seats(client, follower, {seat: make_bot("greedy", rng) for seat in range(players)}, rng)
    await follower.stop()
    return game


async def test_a_live_bot_game_moves_on_the_page_as_a_card_table(gateway, http, page, tmp_path):
    created = (await http.post("/games", json={"players": 3, "seats": ["greedy", "random", "greedy"],
                                               "pace": 0.4}, headers=PLATFORM)).json()
    await page.goto(f"{gateway.url}/")
    await page.wait_for_selector(f'a[href="/watch/{created["game_id"]}"]', timeout=10_000)
    await page.goto(f"{gateway.url}{created['watch']}")
    await page.wait_for_function("document.getElementById('table').dataset.seq > 2", timeout=15_000)
    first = await page.eval_on_selector("#table", "t => [t.dataset.seq, document.getElementById('stock-count')"
                                                  ".textContent, document.getElementById('discard-count').textContent]")
    await page.wait_for_function(
        """([seq, stock, pile]) => document.getElementById('table').dataset.seq > Number(seq) + 1
           && (document.getElementById('stock-count').textContent !== stock
               || document.getElementById('discard-count').textContent !== pile)""", arg=first, timeout=15_000)
    assert await page.locator(".seat").count() == 3
    await page.wait_for_function("document.querySelectorAll('.seat.turn').length === 1", timeout=15_000)
    await page.wait_for_selector(".discard .card.red, .discard .card.black", timeout=15_000)  # a face-up discard
    assert await page.locator("#moves li").count() >= 3
    assert "of 6" in await page.text_content("#status")
    shot = tmp_path / "live-table.png"
    await page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


async def test_a_finished_game_replays_with_a_slider_over_its_log(gateway, client, page, tmp_path):
    follower = await finished_game(client)
    await page.goto(f"{gateway.url}/watch/{follower.game}")
    await page.wait_for_selector("#replay.shown", timeout=10_000)
    assert "Game over" in await page.text_content("#status")
    assert await page.text_content("#connection") == "finished"
    await page.eval_on_selector("#step", "s => { s.value = '2'; s.dispatchEvent(new Event('input')); }")
    await page.wait_for_function("document.getElementById('table').dataset.seq === '2'", timeout=10_000)
    assert await page.text_content("#step-label") == f"step 2 of {len(follower.batches)}"
    assert await page.locator(".seat .hand-size").all_text_contents() == ["14 cards", "2 cards"]
    assert "Hand 6 dealt" in await page.text_content("#step-moves")
    await page.screenshot(path=str(tmp_path / "replay.png"), full_page=True)


async def test_where_the_lobby_is_not_public_the_page_asks_for_a_platform_key_and_remembers_it(
        nats_server, services, keys_file, page):
    running = await Running.start(nats_server.access, port=0, secret=SECRET, platform_keys=keys_file,
                                  public_lobby=False)
    try:
        await page.goto(f"{running.url}/")
        await page.wait_for_selector("html[data-ready]")
        assert await page.is_hidden("#key-field"), "no key field until the gateway asks for one"
        await page.click("#new-game button[type=submit]")
        await page.wait_for_selector("#key-field:not([hidden])")
        assert "platform key" in await page.text_content("#new-game-error")
        await page.fill("#key", "not-a-key-this-gateway-knows")
        await page.click("#new-game button[type=submit]")
        await page.wait_for_function(
            "document.getElementById('new-game-error').textContent.includes('no such platform key')", timeout=10_000)
        assert page.url == f"{running.url}/", "a refused key opens nothing"
        await page.fill("#key", KEY)
        await page.click("#new-game button[type=submit]")
        await page.wait_for_url(f"{running.url}/lobby/game-*", timeout=15_000)
        await page.goto(f"{running.url}/")
        await page.wait_for_selector("html[data-ready]")   # the page's script has run (its words load first)
        assert await page.input_value("#key") == KEY, "the browser keeps the key for the next game"
    finally:
        await running.stop()


async def test_a_finished_game_says_finished_and_its_replay_jumps_to_the_deal_of_any_hand(gateway, http, client, page,
                                                                                          tmp_path):
    game = await whole_game(client)
    last = (await eventually(lambda: http.get(f"/games/{game}/replay"), lambda r: r.status_code == 200)).json()
    assert sorted(last["hands"], key=int) == [str(h) for h in range(1, 7)]
    await page.goto(f"{gateway.url}/watch/{game}")
    await page.wait_for_selector("#replay.shown", timeout=10_000)
    await page.wait_for_function("document.getElementById('connection').textContent === 'finished'", timeout=5_000)
    assert await page.locator("#hand option").all_text_contents() == [f"hand {h}" for h in range(1, 7)]
    await page.select_option("#hand", "3")
    await page.wait_for_function("document.getElementById('step-label').textContent === "
                                 f"'step {last['hands']['3']} of {last['steps']}'", timeout=10_000)
    assert (await page.text_content("#status")).startswith("Hand 3 of 6")
    assert "Hand 3 dealt" in await page.text_content("#step-moves")
    await page.screenshot(path=str(tmp_path / "replay-hand-3.png"), full_page=True)


async def test_a_replay_plays_at_the_speed_chosen(gateway, client, page):
    follower = await finished_game(client)
    steps = len(follower.batches)
    await page.goto(f"{gateway.url}/watch/{follower.game}")
    await page.wait_for_selector("#replay.shown", timeout=10_000)
    assert await page.locator("#speed option").all_text_contents() == ["\u00bc\u00d7", "\u00bd\u00d7", "1\u00d7",
                                                                        "2\u00d7", "4\u00d7"]
    await page.select_option("#speed", label="\u00bc\u00d7")   # a step a second
    await page.click("#play")                                   # at the end: it starts again from step 0
    await page.wait_for_function("document.getElementById('step-label').textContent === "
                                 f"'step 0 of {steps}'", timeout=5_000)
    await asyncio.sleep(0.6)
    assert await page.text_content("#step-label") == f"step 0 of {steps}", "a quarter speed waits a second a step"
    await page.select_option("#speed", label="4\u00d7")
    await page.wait_for_function("document.getElementById('step-label').textContent === "
                                 f"'step {steps} of {steps}'", timeout=10_000)
    assert await page.text_content("#play") == "Play"


async def test_melds_on_the_page_are_numbered_from_1_as_in_the_terminal(gateway, client, page):
    follower = await finished_game(client)   # seat 0 went down with four melds
    await page.goto(f"{gateway.url}/watch/{follower.game}")
    await page.wait_for_selector(".meld .number", timeout=10_000)
    assert await page.locator(".meld .number").all_text_contents() == ["#1", "#2", "#3", "#4"]
    assert await page.locator(".meld").first.get_attribute("data-meld") == "0.1"


async def test_every_page_fits_a_phone_screen_and_shows_the_favicon(gateway, http, client, phone, tmp_path):
    finished = await finished_game(client)
    created = (await http.post("/games", json={"players": 4, "seats": ["greedy", "random", "greedy", "greedy"],
                                               "pace": 0.2}, headers=PLATFORM)).json()
    pages = {
        "list": ("/", "#games tr[data-game]"),
        "live-table": (created["watch"], ".melds .meld"),
        "replay": (f"/watch/{finished.game}", "#replay.shown"),
    }
    for name, (path, ready) in pages.items():
        await phone.goto(f"{gateway.url}{path}")
        await phone.wait_for_selector(ready, timeout=60_000)
        await phone.screenshot(path=str(tmp_path / f"phone-{name}.png"), full_page=True)
        width = await phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{name}: the page is {width} px wide on a {PHONE['width']} px screen"
        icon = await phone.eval_on_selector('link[rel="icon"]', "link => link.href")
        served = await http.get(icon)
        assert served.status_code == 200 and served.headers["content-type"].startswith("image/svg+xml"), name
        assert b"<svg" in served.content
