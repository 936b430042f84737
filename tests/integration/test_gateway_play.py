"""A person at the table in headless Chromium: a lobby opened from the page, a seat taken by its link, and every
move played by clicks (R9..R15), each refusal shown once in words (R18), a reload back in the seat."""
import random

import pytest

from gateway_helpers import SECRET, gateway, http, keys_file, token  # noqa: F401
from over_nats import stacked_game
from test_gateway_browser import CHROMIUM, PHONE, browser_page, page, phone, pytestmark  # noqa: F401
from test_gateway_languages import phone_in
from zioncheck.bots import make_bot
from zioncheck.contracts.commands import ClaimDiscard, Discard, DrawStock, GoDown, SwapJoker, TakeDiscard
from zioncheck.contracts.languages import catalogue
from zioncheck.contracts.reasons import SENTENCES
from zioncheck.domain.hands import CONTRACTS

PERSON = 0


async def caught_up(page, follower) -> None:
    """The page shows every batch the log held a moment ago."""
    await page.wait_for_function(f"Number(document.getElementById('table').dataset.seq) >= {len(follower.batches)}",
                                 timeout=20_000)


async def pick(page, card: str) -> None:
    await page.click(f'#hand .card[data-card="{card}"]:not(.selected)')


async def empty_boxes(page) -> None:
    """Going down: take back the cards the page put in the contract's boxes (the melds the rules found)."""
    while await page.locator(".slot .card").count():
        await page.click(".slot .card >> nth=0")


def kind_of(meld: list[str]) -> str:
    ranks = {card[:-1] for card in meld if card != "JK"}
    return "set" if len(ranks) <= 1 else "run"


async def play(page, command, contract_sets: int) -> None:
    """One command, by the clicks a person would make."""
    if isinstance(command, DrawStock):
        await page.click("#draw")
    elif isinstance(command, TakeDiscard):
        await page.click("#take")
    elif isinstance(command, ClaimDiscard):
        await page.click("#claim")
    elif isinstance(command, Discard):
        await pick(page, command.card)
        await page.click("#discard")
    elif isinstance(command, GoDown):
        await page.click("#go-down")
        await empty_boxes(page)   # the bot's own melds, not the ones the page found
        sets = runs = 0
        for meld in command.melds:
            if kind_of(meld) == "set":
                slot, sets = sets, sets + 1
            else:
                slot, runs = contract_sets + runs, runs + 1
            for card in meld:
                await pick(page, card)
            await page.click(f'.slot[data-slot="{slot}"]')
        await page.click("#lay-down")
    else:   # LayOff, SwapJoker: a card, a meld, then the move
        owner, index = command.target
        await pick(page, command.card)
        await page.click(f'.meld[data-meld="{owner}.{index + 1}"]')
        if isinstance(command, SwapJoker):
            await page.click('#choices [data-move="swap_joker"]')
        elif command.end and await page.locator(f'#choices [data-end="{command.end}"]').count():
            await page.click(f'#choices [data-end="{command.end}"]')
        else:
            await page.click('#choices [data-move="lay_off"] >> nth=0')


async def test_a_person_opens_a_lobby_takes_a_seat_and_plays_a_whole_hand_by_clicks_against_bots(
        gateway, client, page, tmp_path):
    await page.goto(f"{gateway.url}/")
    await page.wait_for_selector("html[data-ready]")   # the page's script has run
    await page.fill("#players", "3")
    await page.dispatch_event("#players", "input")
    assert await page.locator("#seat-choices select").evaluate_all("s => s.map(x => x.value)") == [
        "person", "normal", "normal"]   # the bots by level: normal is the greedy bot
    await page.fill("#pace", "0")
    await page.click("details.limits summary")           # the game's clock: the bots wait for no claim here
    await page.fill("#claim_seconds", "0")
    await page.click("#new-game button[type=submit]")
    await page.wait_for_url(f"{gateway.url}/lobby/game-*", timeout=15_000)
    await page.wait_for_selector('#seats li[data-seat="0"] input')
    assert "#" not in page.url, "the host's token leaves the address bar"
    assert await page.locator("#seats li input").count() == 1, "a link for each person's seat, none for bots"
    await page.screenshot(path=str(tmp_path / "lobby.png"), full_page=True)
    await page.click('#seats li[data-seat="0"] .take')
    await page.wait_for_selector('#seats li.joined[data-seat="0"]', timeout=10_000)
    await page.click("#start")
    await page.wait_for_url(f"{gateway.url}/play/game-*", timeout=15_000)
    game = page.url.rsplit("/", 1)[1]
    follower = await client.follow(game)
    bot = make_bot("greedy", random.Random(5))
    moves = set()
    played = 0
    reloaded = False
    try:
        while True:
            await caught_up(page, follower)
            state = follower.state
            if state.hand != 1 or state.hand_over:
                break
            if state.turn != PERSON:
                await follower.changed(timeout=90)  # bots on a busy machine
                continue
            if not reloaded and state.drawn:   # mid-turn: a reload is back in the seat, the hand as it was
                shown = sorted(await page.locator("#hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)"))
                await page.reload()
                await caught_up(page, follower)
                assert sorted(await page.locator("#hand .card").evaluate_all(
                    "cs => cs.map(c => c.dataset.card)")) == shown
                assert await page.text_content("#me-name") == "You: seat 0"
                reloaded = True
            command = bot.move(state, PERSON)
            before = len(follower.batches)
            await play(page, command, state_sets(state))
            moves.add(type(command).__name__)
            played += 1
            assert played < 400, "a hand of this size never takes a seat 400 moves: a move keeps failing"
            while len(follower.batches) == before:
                await follower.changed(timeout=90)  # bots on a busy machine
            if isinstance(command, GoDown):
                await page.screenshot(path=str(tmp_path / "went-down.png"), full_page=True)
    finally:
        await follower.stop()
    await page.wait_for_function("document.querySelectorAll('#scores tr').length === 3", timeout=10_000)  # hand 1's
    # a draw of either kind (the deal decides)
    assert "Discard" in moves and moves & {"DrawStock", "TakeDiscard"}, moves
    assert reloaded
    await page.screenshot(path=str(tmp_path / "hand-over.png"), full_page=True)


def state_sets(state) -> int:
    return CONTRACTS[state.hand].sets   # R7: the hand's contract


# Hand 3 (two runs), stacked: seat 0 plays on the page, the test plays seats 1 and 2.
HANDS = [["3C", "4C", "6C", "JK", "9H", "10H", "JH", "QH", "2D", "7S"],
         ["5S", "6S", "JK", "8S", "2H", "3H", "4H", "5H", "KD", "9D"],
         ["AD", "3D", "5D", "7H", "9C", "JD", "KS", "QS", "2S", "4S"]]
STOCK = ["KH", "5D", "9S", "QD", "9C", "8D", "8C", "2C", "10S", "10D"]


async def test_every_move_by_clicks_runs_arranged_an_end_chosen_a_claim_a_swap_and_a_refusal_shown_once(
        gateway, client, page, tmp_path):
    follower = await stacked_game(client, 3, HANDS, STOCK, hand=3)
    game = follower.game

    async def seat_plays(*commands):
        for command in commands:
            await follower.outcome(await client.send(game, command))

    await page.goto(f"{gateway.url}/play/{game}#token={token(game, PERSON)}")
    await caught_up(page, follower)
    assert "#" not in page.url, "the seat's token leaves the address bar"
    assert await page.is_visible("#draw") and not await page.is_visible("#take"), "R11: no discard to take yet"
    await page.click(".pile.stock")                        # R9: a tap on the stock draws
    await page.wait_for_selector('#hand .card[data-card="KH"]')
    await page.click("#go-down")                           # R12: two runs, found by the rules, put in the boxes
    assert await page.locator(".slot").evaluate_all("s => s.map(x => x.dataset.kind)") == ["run", "run"]
    assert await page.locator(".slot .card").count() >= 8
    await empty_boxes(page)                                # the person arranges them: first wrongly
    for card in ("6C", "JK", "3C", "4C"):
        await pick(page, card)
    await page.click('.slot[data-slot="0"]')
    assert await page.locator('.slot[data-slot="0"] .card').evaluate_all("cs => cs.map(c => c.title)") == [
        "3C", "4C", "joker", "6C"]
    for card in ("QH", "9H", "JH", "2D"):
        await pick(page, card)
    await page.click('.slot[data-slot="1"]')
    await page.screenshot(path=str(tmp_path / "arranging.png"), full_page=True)
    await page.click("#lay-down")                           # R5: 9H JH QH 2D is no run
    await page.wait_for_selector("#refusal:not([hidden])")
    refusal = await page.text_content("#refusal")
    assert refusal == f"Refused: {SENTENCES['invalid_meld']}: 2D 9H JH QH (R4, R5)", "the reason, then the detail"
    assert await page.get_by_text(SENTENCES["invalid_meld"]).count() == 1, "each refusal is shown once"
    await page.click('.slot[data-slot="1"] .card[title="2D"]')   # then rightly
    await pick(page, "10H")
    await page.click('.slot[data-slot="1"] .slot-label')
    await page.click("#lay-down")
    await page.wait_for_selector('.meld[data-meld="0.2"]')
    assert await page.is_hidden("#refusal"), "the next move clears the last refusal"
    await pick(page, "2D")                                  # R13: a card that fits nowhere there is not offered
    await page.click('.meld[data-meld="0.1"]')
    assert await page.locator('#choices [data-move="lay_off"]').count() == 0
    await page.click('#choices [data-move="cancel"]')
    await page.click('#hand .card.selected[data-card="2D"]')   # put back
    await pick(page, "KH")                                  # R13: fits one end only: no end to choose
    await page.click('.meld[data-meld="0.2"]')
    assert await page.locator("#choices [data-move=\"lay_off\"]").count() == 1   # no end to choose
    await page.click('#choices [data-move="lay_off"]')
    await page.wait_for_function("document.querySelector('.meld[data-meld=\"0.2\"]').textContent.includes('K')")
    await pick(page, "2D")
    await page.click("#discard")                            # R11: the first player goes again
    await page.wait_for_selector('.discard .card[title="2D"]')
    assert await page.is_hidden("#take"), "R10: no taking back one's own discard"
    await page.click("#draw")
    await pick(page, "5D")
    await page.click("#discard")
    await page.wait_for_selector('.discard .card[title="5D"]')
    await seat_plays(DrawStock(seat=1), GoDown(seat=1, melds=[["5S", "6S", "JK", "8S"], ["2H", "3H", "4H", "5H"]]),
                     Discard(seat=1, card="KD"))
    await caught_up(page, follower)
    await page.click("#claim")                              # R11a: out of turn, while the window is open
    await page.wait_for_selector("#claim", state="hidden")
    await pick(page, "7S")                                  # R14: out of turn too
    await page.click('.meld[data-meld="1.1"]')
    assert await page.locator("#choices [data-move]").evaluate_all("bs => bs.map(b => b.dataset.move)") == [
        "swap_joker", "cancel"]
    await page.click('#choices [data-move="swap_joker"]')
    await page.wait_for_selector('#hand .card[data-card="JK"]')
    await seat_plays(DrawStock(seat=2), Discard(seat=2, card="AD"))
    await caught_up(page, follower)
    assert sorted(follower.state.hands[PERSON]) == ["JK", "KD"], "the claim was won"
    await page.click("#draw")
    await page.wait_for_selector("#draw", state="hidden")   # the draw is in the page's view before a lay-off
    await pick(page, "JK")                                   # R13: a joker fits both ends of 3C..6C
    await page.click('.meld[data-meld="0.1"]')
    assert await page.locator("#choices [data-end]").evaluate_all("bs => bs.map(b => b.dataset.end)") == [
        "low", "high"]
    await page.screenshot(path=str(tmp_path / "choose-end.png"), full_page=True)
    await page.click('#choices [data-end="low"]')
    await page.wait_for_function("document.querySelectorAll('.meld[data-meld=\"0.1\"] .card').length === 5")
    assert await page.locator('.meld[data-meld="0.1"] .card').evaluate_all("cs => cs.map(c => c.title)") == [
        "joker", "3C", "4C", "joker", "6C"], "the joker went on the low end, as chosen"
    await follower.stop()


async def test_the_seat_page_and_the_lobby_fit_a_phone_screen(gateway, client, http, phone, tmp_path):
    follower = await stacked_game(client, 3, HANDS, STOCK, hand=3)
    opened = (await http.post("/lobbies", json={"players": 2, "seats": ["person", "greedy"]})).json()
    for name, path, ready in [("play", f"/play/{follower.game}#token={token(follower.game, PERSON)}", "#hand .card"),
                              ("lobby", opened["host"], "#seats li")]:
        await phone.goto(f"{gateway.url}{path}")
        await phone.wait_for_selector(ready, timeout=20_000)
        shots = [name]
        if name == "play":
            await phone.click("#draw")
            await phone.wait_for_selector('#hand .card[data-card="KH"]')
            await pick(phone, "9H")
            shots.append("play-going-down")
        for shot in shots:
            if shot == "play-going-down":
                await phone.click("#go-down")
                await empty_boxes(phone)
                for card in ("3C", "4C", "6C", "JK"):
                    await pick(phone, card)
                await phone.click('.slot[data-slot="0"]')
            await phone.screenshot(path=str(tmp_path / f"phone-{shot}.png"), full_page=True)
            width = await phone.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], f"{shot}: the page is {width} px wide on a {PHONE['width']} px screen"
    await follower.stop()


async def test_a_person_opening_their_seat_link_waits_in_the_lobby_is_seen_joined_and_plays_once_it_starts(
        gateway, http, page, tmp_path):
    lobby = (await http.post("/lobbies", json={"players": 3, "seats": ["person", "greedy", "person"],
                                               "pace": 0.05})).json()
    await page.goto(f"{gateway.url}{lobby['host']}")
    await page.wait_for_selector('#seats li[data-seat="2"]:not(.joined)')
    guest = await page.context.browser.new_page()   # another person's browser: nothing shared with the host's
    await guest.goto(f"{gateway.url}{lobby['seats'][2]['link']}")
    await guest.wait_for_selector('#waiting-seats li[data-seat="2"]')
    assert await guest.text_content("#status") == "Waiting for the host to start the game"
    assert "your seat" in await guest.text_content('#waiting-seats li[data-seat="2"]')
    await page.wait_for_selector('#seats li.joined[data-seat="2"]', timeout=10_000)
    assert await page.text_content("#joined") == "1 of 2 people here"
    await page.click("#start")
    await page.wait_for_url(f"{gateway.url}/watch/{lobby['game_id']}", timeout=15_000)
    await guest.wait_for_selector("#hand .card", timeout=20_000)
    assert await guest.is_hidden("#waiting")
    assert await guest.locator("#hand .card").count() == 10
    await guest.screenshot(path=str(tmp_path / "guest-playing.png"), full_page=True)
    await guest.close()


@pytest.mark.parametrize("language", ["ru", "es"])
async def test_the_seat_page_speaks_the_readers_language_refusals_included_and_fits_a_phone(
        language, gateway, client, tmp_path):
    follower = await stacked_game(client, 3, HANDS, STOCK, hand=3)
    words = catalogue(language)
    async with phone_in(f"{language}-{language.upper()}") as phone:
        await phone.goto(f"{gateway.url}/play/{follower.game}#token={token(follower.game, PERSON)}")
        await phone.wait_for_selector("#hand .card")
        assert await phone.text_content("#draw") == words["web.draw"]
        assert await phone.text_content("#prompt") == words["web.yourTurnDraw"]
        await phone.click("#draw")
        await phone.wait_for_selector('#hand .card[data-card="KH"]')
        await phone.click("#go-down")
        await pick(phone, "2D")
        await phone.click('.slot[data-slot="0"]')
        await phone.click("#lay-down")                   # R12: one card is no contract
        await phone.wait_for_selector("#refusal:not([hidden])")
        assert words["reason.invalid_meld"] in await phone.text_content("#refusal") or \
            words["reason.contract_not_met"] in await phone.text_content("#refusal")
        await phone.screenshot(path=str(tmp_path / f"{language}-play.png"), full_page=True)
        width = await phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{language}: the page is {width} px wide"
    await follower.stop()
