"""The pages on a phone's 390 x 844 screen and a desktop's 1280 x 900, in English, Russian and Spanish, in headless
Chromium, asserted on the page itself (boxes, the viewport, text), with a screenshot of each: nothing cut off (the
scores fit or say they scroll, card backs whole), one's turn's buttons on the screen from the first look, every
control at least 44 px tall and each card of the hand 44 px wide, the game's rules, clock and every contract named
where people sit down and while they play, countdowns never over their length, a refusal in the reader's words
that goes once its moment has passed, and a claim sent once however often it is tapped."""
import asyncio
import contextlib
import json
import os
import re

import pytest

from gateway_helpers import PLATFORM, gateway, http, keys_file  # noqa: F401
from zioncheck.contracts.commands import Rules
from zioncheck.contracts.languages import NAMES, catalogue, contract, say
from zioncheck.domain.presets import ruleset_of

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
LANGUAGES = ("en", "ru", "es")
FINGER = 43.5   # px: a control's least height (44, as the box's fractions round)

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` (.ci/run does)")


@contextlib.asynccontextmanager
async def chromium():
    from playwright.async_api import async_playwright
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        await browser.close()


@contextlib.asynccontextmanager
async def screen(browser, size: str, language: str):
    """A fresh browser (nothing remembered) with the screen and the language asked for."""
    context = await browser.new_context(viewport=SIZES[size], locale=f"{language}-{language.upper()}")
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    await context.close()
    assert errors == [], f"the page raised: {errors}"


# --- what the page measures of itself -----------------------------------------------------------------------------

CONTROLS = """() => [...document.querySelectorAll(
    'button, select, input, summary, a[href], [role=button]')].filter((n) => {
      const r = n.getBoundingClientRect(), style = getComputedStyle(n);
      return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && !n.closest('#hand');
    }).map((n) => ({ what: `${n.tagName.toLowerCase()}#${n.id || n.className || n.textContent.trim().slice(0, 24)}`,
                     height: n.getBoundingClientRect().height }))"""

# On the screen as the page opens (no scrolling), and not covered by anything else.
ON_SCREEN = """(id) => {
  const n = document.getElementById(id), r = n.getBoundingClientRect();
  const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { inside, uncovered: Boolean(top && n.contains(top)), box: [r.top, r.bottom], scrolled: scrollY };
}"""

# Every card back whole inside its seat's box: none past the box's edge.
BACKS = """() => [...document.querySelectorAll('.seat .hand')].flatMap((hand) => {
  const box = hand.getBoundingClientRect();
  return [...hand.querySelectorAll('.card.back')].filter((c) => {
    const r = c.getBoundingClientRect();
    return r.right > box.right + 0.5 || r.left < box.left - 0.5 || r.bottom > box.bottom + 0.5;
  }).map(() => hand.closest('.seat').dataset.seat);
})"""

# The scores of a game of `players` seats two hands in (one dry), drawn by the page's own code: whether the table
# fits its panel, and whether the panel says it scrolls.
SCORES = """(players) => import('/static/table.js').then((m) => {
  const box = document.getElementById('scores'), hint = document.getElementById('scores-more');
  const seats = Array.from({ length: players }, (_, s) => s);
  box.replaceChildren(m.scores({ players, totals: seats.map((s) => 200 + s),
    scores: [{ hand: 1, winner: 2, scores: seats.map((s) => (s * 37) % 120) },
             { hand: 2, winner: null, scores: seats.map((s) => 100 + s) }] }));
  m.markOverflow(box, hint);
  return { fits: box.scrollWidth <= box.clientWidth, hinted: !hint.hidden, hint: hint.textContent };
})"""

# A countdown of each kind drawn by the page's clock, its deadline a fraction of a second past the game's length.
CLOCKS = """() => Promise.all([import('/static/clock.js'), import('/static/cards.js')]).then(([c]) => {
  c.heard(Date.now() / 1000);
  const now = Date.now() / 1000, limits = { turn_seconds: 60, claim_seconds: 3, pause_seconds: 10 };
  return [['turn', 60.7], ['claim', 3.4], ['pause', 10.9]].map(([due, seconds]) =>
    c.clock({ due, due_at: now + seconds, limits }, due).textContent);
})"""


# A claim tapped, then tapped again and its pile tapped at once, as a quick finger does: whether the first tap disabled
# the button.
TAPS = """() => { const claim = document.getElementById('claim');
  claim.click();
  const disabled = claim.disabled || claim.hidden;
  claim.click();
  document.querySelector('.pile.discard').click();
  return disabled; }"""


WORD = re.compile(r"[^\W\d_]{2,}")
NOT_A_WORD = re.compile(r"[-/._=@'0-9#]")   # ids, numbers, field names
CARD = re.compile(r"(?:10|[2-9AJQK])[CDHS]|JK")
PIPS = "\u2663\u2666\u2665\u2660\u2605"   # a card's face as the page draws it: its rank, then one of these (cards.js)


def words_of(text: str) -> set[str]:
    tokens = [token.strip(".,;:()«»!?¡¿·").rstrip(PIPS) for token in text.split()]
    return {word.lower() for token in tokens if not NOT_A_WORD.search(token) and not CARD.fullmatch(token)
            for word in WORD.findall(token)}


def vocabulary(language: str) -> set[str]:
    texts = [text for entry in catalogue(language).values() for text in ([entry] if isinstance(entry, str)
                                                                        else entry.values())]
    return {word for text in texts for word in words_of(text)} | {"zioncheck"} | {
        word for name in NAMES.values() for word in words_of(name)}   # the language switch names each in its own


async def no_english_left(page, language: str, where: str) -> None:
    """Every word the page shows (hidden parts aside) is a word of the reader's catalogue."""
    if language != "en":
        stray = words_of(await page.evaluate("document.body.innerText")) - vocabulary(language)
        assert not stray, f"{where} in {language}: {sorted(stray)}"


async def fits_and_is_touchable(page, size: str, where: str) -> None:
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= SIZES[size]["width"], f"{where}: {width} px wide on a {SIZES[size]['width']} px screen"
    small = [c for c in await page.evaluate(CONTROLS) if c["height"] < FINGER]
    assert small == [], f"{where} on a {size}: controls under 44 px: {small}"


async def rules_shown(page, holder: str, language: str, game: str, hands: int, turn: int) -> None:
    """The box names the game, lists every hand's contract (a tap opens it) and says the clock."""
    box = page.locator(f"{holder} details.rules")
    summary = await box.locator("summary").text_content()
    assert say(language, f"game.{game}") in summary and str(hands) in summary, summary
    if not await box.evaluate("d => d.open"):
        await box.locator("summary").click()
    items = box.locator("ol.contracts li")
    assert await items.count() == hands
    for n, line in enumerate(hand_lines(language, game)):
        assert await items.nth(n).is_visible()
        assert (await items.nth(n).text_content()).startswith(line), (n, line)
    clock = await box.locator("ul.clock-rules").text_content()
    assert say(language, "web.clockTurn", time=say(language, "web.secondsLeft", seconds=turn)) in clock, clock


def hand_lines(language: str, game: str) -> list[str]:
    """Each hand's contract as the rules box says it (R7, R24.1), from the rules themselves."""
    return [say(language, "web.handContract", hand=n, contract=contract(language, c.sets, c.runs, c.whole),
                cards=say(language, "web.cards", count=c.dealt))
            for n, c in enumerate(ruleset_of(Rules(preset=game)).contracts, 1)]


def seconds_shown(text: str) -> int:
    """A countdown's seconds: "1:00" or "45 s" (in any language's word for seconds)."""
    minutes, _, seconds = text.partition(":")
    return int(minutes) * 60 + int(seconds) if seconds else int(re.match(r"\d+", text).group())


# --- the seat page, at its turn -------------------------------------------------------------------------------------

async def test_a_seat_at_its_turn_on_a_phone_and_a_desktop_in_each_language_shows_it_all(gateway, http, tmp_path):
    async with chromium() as browser:
        for size in SIZES:
            for language in LANGUAGES:
                where = f"{size}-{language}"
                created = (await http.post("/games", json={
                    "players": 4, "seats": ["person", "greedy", "greedy", "greedy"], "dealer": 3,
                    "rules": {"preset": "liverpool"}}, headers=PLATFORM)).json()
                async with screen(browser, size, language) as page:
                    await page.goto(gateway.url + created["seats"][0]["link"])
                    await page.wait_for_selector("#draw:not([hidden])", timeout=20_000)   # R8: seat 0 plays first
                    await page.wait_for_selector("#rules details.rules")
                    await page.screenshot(path=str(tmp_path / f"turn-{where}.png"))
                    for button in ("draw", "take"):   # one's turn's buttons on the screen as it opens
                        seen = await page.evaluate(ON_SCREEN, button)
                        assert seen["inside"] and seen["uncovered"] and seen["scrolled"] == 0, (where, button, seen)
                    assert await page.locator("#take .card.mini").count() == 1, "the take button shows the card"
                    widths = await page.eval_on_selector_all("#hand .card", "cs => cs.map((c) => c.offsetWidth)")
                    assert len(widths) == 10 and min(widths) >= 44, (where, widths)
                    assert await page.evaluate(BACKS) == [], f"{where}: backs cut at their seat's box"
                    left = await page.text_content(".seat .clock.turn")
                    assert 50 <= seconds_shown(left) <= 60, (where, "a 60 s turn's countdown", left)
                    assert await page.evaluate(CLOCKS) == ["1:00", say(language, "web.secondsLeft", seconds=3),
                                                           say(language, "web.secondsLeft", seconds=10)]
                    scores = await page.evaluate(SCORES, 4)
                    assert scores["fits"] and not scores["hinted"], (where, "four seats' scores fit", scores)
                    crowded = await page.evaluate(SCORES, 9)
                    assert crowded["fits"] or crowded["hinted"], (where, "wider scores say they scroll", crowded)
                    if crowded["hinted"]:
                        assert crowded["hint"] == say(language, "web.scoresScroll")
                    await rules_shown(page, "#rules", language, "liverpool", 7, 60)
                    assert await page.locator("#rules li.now").count() == 1
                    await fits_and_is_touchable(page, size, where)
                    await no_english_left(page, language, where)
                    await page.click("#draw")
                    await page.wait_for_selector("#discard:not([hidden])", timeout=10_000)
                    prompt = await page.text_content("#prompt")
                    if await page.is_hidden("#go-down"):   # the prompt names no button the page does not show
                        assert say(language, "web.goDown") not in prompt, (where, prompt)
                    seen = await page.evaluate(ON_SCREEN, "discard")
                    assert seen["inside"] and seen["uncovered"], (where, "discard", seen)
                    await page.screenshot(path=str(tmp_path / f"drawn-{where}-full.png"), full_page=True)


# --- where people sit down: the lobby's form, the host's page, a seat waiting ----------------------------------------

async def test_the_lobby_the_host_and_a_waiting_seat_name_the_game_its_clock_and_every_contract(gateway, http,
                                                                                               tmp_path):
    async with chromium() as browser:
        for size in SIZES:
            for n, language in enumerate(LANGUAGES):
                where = f"{size}-{language}"
                lobby = (await http.post("/lobbies", json={
                    "players": 3, "seats": ["person", "person", "greedy"], "rules": {"preset": "contract"},
                    "turn_seconds": 90}, headers=PLATFORM)).json()
                async with screen(browser, size, language) as page:
                    await page.goto(gateway.url + "/")
                    await page.wait_for_selector("#rules-shown details.rules")
                    await rules_shown(page, "#rules-shown", language, "zioncheck", 6, 60)
                    labels = [await page.text_content(f"label:has(#{field}) span")
                              for field in ("pace", "turn_seconds")]
                    assert labels[0] != labels[1], f"{where}: the bots' pace and a turn's length read the same"
                    await page.select_option("#rules", "liverpool")
                    await page.fill("#players", "4")
                    await page.click("details.limits summary")   # the clock's fields, a tap away
                    await page.fill("#turn_seconds", "90")
                    await page.wait_for_function("document.querySelector('#rules-shown details').dataset.game "
                                                 "=== 'liverpool'")
                    await rules_shown(page, "#rules-shown", language, "liverpool", 7, 90)
                    await fits_and_is_touchable(page, size, f"{where} lobby")
                    await no_english_left(page, language, f"{where} lobby")
                    await page.screenshot(path=str(tmp_path / f"lobby-{where}.png"), full_page=True)
                    other = LANGUAGES[(n + 1) % len(LANGUAGES)]    # a language switch reloads: the form stays
                    await page.select_option("#language", other)
                    await page.wait_for_function(f"document.documentElement?.lang === '{other}'", timeout=10_000)
                    await page.wait_for_selector("#rules-shown details.rules[data-game=liverpool]")
                    assert [await page.input_value(f"#{field}") for field in ("rules", "players", "turn_seconds")] \
                        == ["liverpool", "4", "90"], f"{where}: the form after a language switch"
                    assert await page.locator("#seat-choices select").count() == 4
                    await page.select_option("#language", language)
                    await page.wait_for_function(f"document.documentElement?.lang === '{language}'", timeout=10_000)

                    await page.goto(gateway.url + lobby["host"])
                    await page.wait_for_selector("#rules details.rules")
                    await rules_shown(page, "#rules", language, "contract", 7, 90)
                    await fits_and_is_touchable(page, size, f"{where} host")
                    await no_english_left(page, language, f"{where} host")
                    await page.screenshot(path=str(tmp_path / f"host-{where}.png"), full_page=True)

                    await page.goto(gateway.url + lobby["seats"][1]["link"])
                    await page.wait_for_selector("#waiting-rules details.rules")
                    await rules_shown(page, "#waiting-rules", language, "contract", 7, 90)
                    await fits_and_is_touchable(page, size, f"{where} seat waiting")
                    await no_english_left(page, language, f"{where} seat waiting")
                    await page.screenshot(path=str(tmp_path / f"waiting-{where}.png"), full_page=True)


# --- a refusal in the reader's words, gone once its moment passes; a claim sent once ----------------------------------

async def test_r18_r22_a_refusal_reads_in_russian_and_goes_with_its_moment_and_a_claim_tapped_twice_is_sent_once(
        gateway, http, tmp_path):
    created = (await http.post("/games", json={"players": 4, "seats": ["person", "greedy", "greedy", "greedy"],
                                               "dealer": 3}, headers=PLATFORM)).json()
    sent: list[dict] = []
    rewrite = {"claim_discard": "draw_stock"}   # the first claim goes as a draw out of turn: the table refuses it

    async def commands(route):
        body = json.loads(route.request.post_data)
        sent.append(body)
        if body["type"] in rewrite:
            await route.continue_(post_data=json.dumps({**body, "type": rewrite.pop(body["type"])}))
        elif body["type"] == "claim_discard":
            answer = await route.fetch()
            await asyncio.sleep(0.8)   # a slow answer: a second tap comes meanwhile
            await route.fulfill(response=answer)
        else:
            await route.continue_()

    async with chromium() as browser, screen(browser, "phone", "ru") as page:
        await page.route("**/games/*/commands", commands)
        await page.goto(gateway.url + created["seats"][0]["link"])
        for _ in range(6):   # the seat's turns (R11: its first two in a row), until a bot's discard waits for it
            await page.wait_for_selector("#draw:not([hidden]), #claim:not([hidden])", timeout=30_000)
            if await page.is_visible("#claim"):
                break
            await page.click("#draw")
            await page.wait_for_selector("#discard:not([hidden])", timeout=10_000)
            await page.click("#hand .card >> nth=0")
            await page.click("#discard")
            await page.wait_for_selector("#discard", state="hidden", timeout=10_000)
        await page.wait_for_selector("#claim:not([hidden]):not([disabled])", timeout=30_000)   # R22: held for it
        claim_left = await page.text_content(".clock.claim")
        assert seconds_shown(claim_left) <= 3, f"a 3 s claim window shows {claim_left}"
        turn = await page.evaluate("Number(document.querySelector('.seat.turn').dataset.seat)")
        await page.click("#claim")
        await page.wait_for_selector("#refusal:not([hidden])", timeout=10_000)
        refused = await page.text_content("#refusal")
        said = say("ru", "detail.not_your_turn", turn=turn, seat=0)
        assert refused == say("ru", "web.refused", sentence=f"{say('ru', 'reason.not_your_turn')}: {said}"), refused
        assert not words_of(refused) - vocabulary("ru"), refused
        await page.screenshot(path=str(tmp_path / "refused-ru.png"))
        moves = len(sent)
        await page.wait_for_selector("#refusal", state="hidden", timeout=20_000)   # the bot drew: its moment passed
        assert len(sent) == moves, "the refusal went with no move of the seat's own"

        await page.wait_for_selector("#claim", state="hidden", timeout=20_000)   # that window closed
        await page.wait_for_selector(".clock.claim", timeout=30_000)              # the next one, held for the seat
        await page.wait_for_selector("#claim:not([hidden]):not([disabled])", timeout=10_000)
        claims = sum(body["type"] == "claim_discard" for body in sent)
        pressed = await page.evaluate(TAPS)
        assert pressed, "pressed, the claim button waits for the table's answer"
        await asyncio.sleep(0.3)
        await page.evaluate(TAPS)   # again while the answer is on its way
        claimed = json.dumps(say("ru", "web.claimsCard", seat=0).strip())
        await page.wait_for_function("() => [...document.querySelectorAll('#moves li')].some((li) => "
                                     f"li.textContent.includes({claimed}))", timeout=15_000)
        assert sum(body["type"] == "claim_discard" for body in sent) == claims + 1, "one claim, however many taps"
        assert await page.is_hidden("#refusal"), await page.text_content("#refusal")
        await page.screenshot(path=str(tmp_path / "claimed-ru.png"))

