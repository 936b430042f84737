"""The web page in headless Chromium: a live bot game moves on the table, and a finished game replays."""
import os

import pytest

from gateway_helpers import KEY, PLATFORM, finished_game, gateway, http, keys_file  # noqa: F401

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` (.ci/run does)")


@pytest.fixture
async def page():
    from playwright.async_api import async_playwright
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        await browser.close()
        assert errors == [], f"the page raised: {errors}"


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
    await page.eval_on_selector("#step", "s => { s.value = '2'; s.dispatchEvent(new Event('input')); }")
    await page.wait_for_function("document.getElementById('table').dataset.seq === '2'", timeout=10_000)
    assert await page.text_content("#step-label") == f"step 2 of {len(follower.batches)}"
    assert await page.locator(".seat .hand-size").all_text_contents() == ["14 cards", "2 cards"]
    assert "Hand 6 dealt" in await page.text_content("#step-moves")
    await page.screenshot(path=str(tmp_path / "replay.png"), full_page=True)


async def test_the_page_opens_a_game_with_the_platform_key_its_operator_pastes_and_remembers_it(gateway, page):
    await page.goto(f"{gateway.url}/")
    await page.fill("#key", "not-a-key-this-gateway-knows")
    await page.click("#new-game button[type=submit]")
    await page.wait_for_function(
        "document.getElementById('new-game-error').textContent.includes('no such platform key')", timeout=10_000)
    assert page.url == f"{gateway.url}/", "a refused key opens nothing"
    await page.fill("#key", KEY)
    await page.click("#new-game button[type=submit]")
    await page.wait_for_url(f"{gateway.url}/watch/game-*", timeout=15_000)
    await page.goto(f"{gateway.url}/")
    assert await page.input_value("#key") == KEY, "the browser keeps the key for the next game"
