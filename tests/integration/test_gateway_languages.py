"""The web pages in Russian and Spanish, in headless Chromium on a phone's 390 px screen: chosen by the browser's
language or by the switch in the header (remembered), and the longer words still fit the screen."""
import contextlib
import os

import pytest

from gateway_helpers import PLATFORM, finished_game, gateway, http, keys_file  # noqa: F401
from zioncheck.contracts.languages import LANGUAGES, catalogue

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` (.ci/run does)")

# What each page says first in each language: the list's heading of its form, and a finished game's status.
START = {"en": "New game", "ru": "Новая игра", "es": "Nueva partida"}   # the lobby form's heading
OVER = {"ru": "Игра окончена", "es": "Fin de la partida"}
CARDS = {"ru": ["14 карт", "2 карты"], "es": ["14 cartas", "2 cartas"]}


@contextlib.asynccontextmanager
async def phone_in(locale: str):
    from playwright.async_api import async_playwright
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = await browser.new_context(viewport=PHONE, locale=locale)
        page = await context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        await browser.close()
        assert errors == [], f"the page raised: {errors}"


async def fits(page, name: str) -> None:
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name}: the page is {width} px wide on a {PHONE['width']} px screen"


@pytest.mark.parametrize("language", ["ru", "es"])
async def test_every_page_speaks_the_browsers_language_and_fits_a_phone(language, gateway, http, client, tmp_path):
    finished = await finished_game(client)
    created = (await http.post("/games", json={"players": 4, "seats": ["greedy", "random", "greedy", "greedy"],
                                               "pace": 0.2}, headers=PLATFORM)).json()
    async with phone_in(f"{language}-{language.upper()}") as page:
        await page.goto(f"{gateway.url}/")
        await page.wait_for_selector("#games tr[data-game]", timeout=60_000)
        assert await page.get_attribute("html", "lang") == language
        assert await page.text_content("#new-game b") == START[language]
        assert await page.input_value("#language") == language
        await page.screenshot(path=str(tmp_path / f"{language}-list.png"), full_page=True)
        await fits(page, "list")

        await page.goto(f"{gateway.url}{created['watch']}")
        await page.wait_for_selector(".melds .meld", timeout=60_000)
        status = await page.text_content("#status")
        assert status.startswith(catalogue(language)["web.handOf"].split("{")[0]), status
        await page.screenshot(path=str(tmp_path / f"{language}-live-table.png"), full_page=True)
        await fits(page, "live table")

        await page.goto(f"{gateway.url}/watch/{finished.game}")
        await page.wait_for_selector("#replay.shown", timeout=10_000)
        assert (await page.text_content("#status")).startswith(OVER[language])
        await page.eval_on_selector("#step", "s => { s.value = '2'; s.dispatchEvent(new Event('input')); }")
        await page.wait_for_function("document.getElementById('table').dataset.seq === '2'", timeout=10_000)
        assert await page.locator(".seat .hand-size").all_text_contents() == CARDS[language]
        await page.screenshot(path=str(tmp_path / f"{language}-replay.png"), full_page=True)
        await fits(page, "replay")


async def test_the_switch_in_the_header_changes_the_language_and_the_browser_remembers_it(gateway):
    async with phone_in("en-US") as page:
        await page.goto(f"{gateway.url}/")
        await page.wait_for_selector("html[data-ready]")   # the page's script has run
        assert await page.text_content("#new-game b") == START["en"]
        assert await page.locator("#language option").all_text_contents() == ["English", "Русский", "Español"]
        await page.select_option("#language", "es")
        await page.wait_for_function("document.documentElement?.lang === 'es'", timeout=10_000)
        assert await page.text_content("#new-game b") == START["es"]
        await page.goto(f"{gateway.url}/watch/no-such-game")
        await page.wait_for_function("document.getElementById('status').textContent.includes('no-such-game')",
                                     timeout=10_000)
        assert await page.text_content("#status") == "No hay ninguna partida no-such-game guardada."


async def test_a_refusal_reads_in_the_pages_language_from_its_reason_name(gateway):
    async with phone_in("ru-RU") as page:
        await page.goto(f"{gateway.url}/")
        said = await page.evaluate("import('/static/words.js').then((m) => m.WORDS.reason('not_your_turn'))")
        assert said == "сейчас не ваш ход"


async def test_the_gateway_serves_each_catalogue_and_no_other(http):
    for language in LANGUAGES:
        served = await http.get(f"/words/{language}")
        assert served.status_code == 200 and served.json() == catalogue(language)
    missing = await http.get("/words/de")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
