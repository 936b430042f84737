"""A person at the table in headless Chromium, against the house's bots: the clock is shown and runs, a
discard can be claimed by hand at the bots' default pace (R22), a hand's end shows every hand and
pauses until the person is ready (R23), and a game waiting for its people says so (R20, R21). In
English, Russian and Spanish, at a desktop's width and a phone's."""
import asyncio
import contextlib
import os
import random

import pytest

from gateway_helpers import PLATFORM, gateway, http, keys_file  # noqa: F401
from zioncheck.bots import make_bot
from zioncheck.contracts.languages import catalogue
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus import tasks

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
DESKTOP, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` (.ci/run does)")


@contextlib.asynccontextmanager
async def seat_page(viewport: dict, language: str = "en"):
    from playwright.async_api import async_playwright
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = await browser.new_context(viewport=viewport, locale=f"{language}-{language.upper()}")
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        await browser.close()
        assert errors == [], f"the page raised: {errors}"


async def open_game(http, seats: list[str], **limits) -> dict:  # noqa: F811
    return (await http.post("/games", json={"players": len(seats), "seats": seats, **limits},
                            headers=PLATFORM)).json()


def link(gateway, created: dict, seat: int = 0) -> str:  # noqa: F811
    return gateway.url + created["seats"][seat]["link"]


async def test_r22_a_person_claims_a_discard_by_hand_against_three_bots_at_the_default_pace(
        gateway, http, tmp_path):  # noqa: F811
    # The bots at their default pace; seat 3 deals, so the person plays first (R8).
    created = await open_game(http, ["person", "greedy", "greedy", "greedy"], dealer=3)
    async with seat_page(DESKTOP) as page:
        await page.goto(link(gateway, created))
        # The seat to act shows its turn's clock, and the clock runs.
        await page.wait_for_selector(".seat .clock.turn", timeout=15_000)
        await page.wait_for_function(
            """() => { const c = document.querySelector(".seat .clock.turn");
                       window.firstClock = window.firstClock || (c && c.textContent);
                       return c && c.textContent !== window.firstClock; }""", timeout=5_000)
        # The person plays its turns by clicks until a bot is to draw a discard the person may claim (R22).
        for _ in range(12):
            await page.wait_for_selector("#draw:not([hidden]), .clock.claim", timeout=30_000)
            if not await page.is_visible("#draw"):
                break
            await page.click("#draw")
            await page.wait_for_selector("#discard:not([hidden])", timeout=10_000)
            if not await page.locator("#hand .card.selected").count():   # one card picked: the discard
                await page.click("#hand .card >> nth=0")
            await page.click("#discard")
            await page.wait_for_selector("#discard", state="hidden", timeout=10_000)
        assert await page.is_visible("#claim")
        await page.screenshot(path=str(tmp_path / "claim-window.png"), full_page=True)
        await page.click("#claim")
        await page.wait_for_function(
            "() => [...document.querySelectorAll('#moves li')].some(li => /seat 0 (won|lost) the claim/.test("
            "li.textContent))", timeout=15_000)
        assert await page.is_hidden("#refusal")
        await page.screenshot(path=str(tmp_path / "claimed.png"), full_page=True)


async def test_r23_a_hand_ends_with_every_hand_shown_and_waits_until_the_person_is_ready(
        gateway, http, client, tmp_path):  # noqa: F811
    created = await open_game(http, ["person", "greedy"], pace=0, pause_seconds=120, claim_seconds=0)
    game = created["game_id"]
    follower = await client.follow(game)
    quick = random.Random(5)   # the person's seat played here by a quick bot, its pages watching
    playing = asyncio.create_task(play_seats(client, follower, {0: make_bot("greedy", quick)}, quick, patience=None,
                                             ready=False))
    try:
        async with contextlib.AsyncExitStack() as pages:   # the one seat in English, Russian on a phone, Spanish
            shown = [(language, await pages.enter_async_context(seat_page(viewport, language)))
                     for language, viewport in (("en", DESKTOP), ("ru", PHONE), ("es", DESKTOP))]
            for _, page in shown:
                await page.goto(link(gateway, created))
            for language, page in shown:
                await page.wait_for_selector(".banner.pause .clock.pause", timeout=90_000)
                assert await page.locator(".seat .hand.revealed").count() == 2   # both seats' cards, face up
                assert await page.is_visible("#ready")
                await page.screenshot(path=str(tmp_path / f"pause-{language}.png"), full_page=True)
            playing.cancel()   # the person, not the quick bot, says ready
            page = shown[0][1]
            await page.click("#ready")
            for _, page in shown:
                await page.wait_for_selector(".banner.pause", state="detached", timeout=10_000)
                await page.wait_for_selector(".seat .hand.revealed", state="detached", timeout=10_000)  # hand 2
    finally:
        await tasks.stop([playing])
        await follower.stop()


async def test_r21_a_game_whose_people_are_away_says_so_and_how_to_come_back(gateway, http, tmp_path):  # noqa: F811
    created = await open_game(http, ["person", "greedy"], turn_seconds=5, idle_turns=1, pace=0, claim_seconds=0)
    async with seat_page(PHONE, "ru") as phone, seat_page(DESKTOP) as page:
        for language, shown in (("ru", phone), ("en", page)):
            await shown.goto(link(gateway, created))
            await shown.wait_for_selector(".banner.away .clock.abandon", timeout=30_000)
            assert await shown.locator(".seat[data-seat='0'] .badge.away").count() == 1
            prompt = await shown.text_content("#prompt")
            assert prompt and prompt != await shown.text_content(".banner.away")
            assert prompt == catalogue(language)["web.youAreAwayWaits"], "no bot plays for it: the game waits"
            await shown.screenshot(path=str(tmp_path / f"away-{language}.png"), full_page=True)
        await page.click("#draw", timeout=30_000)   # any move brings the person back, on its turn
        await page.wait_for_selector(".banner.away", state="detached", timeout=10_000)


async def test_r18_a_whole_hand_played_by_clicks_on_what_the_page_offers_is_never_refused(
        gateway, http, tmp_path):  # noqa: F811
    """The page offers only the moves the seat's view lists (domain/legal.py): draw or take, go down with
    the melds the rules found, a lay-off on a meld the card fits, a discard; not one is refused."""
    created = await open_game(http, ["person", "greedy"], pace=0, claim_seconds=0, pause_seconds=60)
    async with seat_page(DESKTOP) as page:
        await page.goto(link(gateway, created))
        turns = 0
        while turns < 200:
            await page.wait_for_selector("#draw:not([hidden]), .banner.pause", timeout=30_000)
            if await page.is_visible(".banner.pause"):
                break
            turns += 1
            await page.click("#take" if await page.is_visible("#take") and turns % 3 == 0 else "#draw")
            await page.wait_for_selector("#discard:not([hidden])", timeout=10_000)
            if await page.is_visible("#go-down"):
                await page.click("#go-down")            # the boxes come filled with the melds found
                await page.click("#lay-down")
                await page.wait_for_selector("#arrange", state="hidden", timeout=10_000)
            if await page.locator(".meld").count() and await page.locator("#hand .card").count() > 1:
                await page.click("#hand .card >> nth=0")
                await page.click(".meld >> nth=0")
                choice = page.locator("#choices button[data-move='lay_off'], #choices button[data-move='swap_joker']")
                if await choice.count():
                    await choice.first.click()
                else:
                    await page.click("#choices button[data-move='cancel']")
            assert await page.is_hidden("#refusal"), await page.text_content("#refusal")
            if await page.is_visible(".banner.pause"):
                break
            await page.wait_for_selector("#discard:not([hidden])", timeout=10_000)
            if not await page.locator("#hand .card.selected").count():   # one card picked: the discard
                await page.click("#hand .card >> nth=0")
            await page.click("#discard")
            await page.wait_for_selector("#discard", state="hidden", timeout=10_000)
            assert await page.is_hidden("#refusal"), await page.text_content("#refusal")
        await page.wait_for_selector(".banner.pause", timeout=30_000)
        assert turns > 3
        await page.screenshot(path=str(tmp_path / "hand-played.png"), full_page=True)
