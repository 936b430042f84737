"""Around the table in headless Chromium: every move of a game listed from its start after a reload or a language
switch, the last move marked on the table, a hand arranged by dragging or tapping and kept across reloads, a chat
between two seats that a watcher reads, and the page's small faults: a ten's rank hidden under the next card, a
host offered a seat someone has joined, an unknown game also said to be waiting."""
import asyncio

import msgspec

from gateway_helpers import (  # noqa: F401
    PLATFORM,
    bearer,
    eventually,
    finished_game,
    game_in_play,
    gateway,
    http,
    keys_file,
    limited,
    token,
)
from over_nats import stacked_game, stored_feed
from test_gateway_browser import PHONE, browser_page, page, phone, pytestmark  # noqa: F401
from test_gateway_play import caught_up, pick
from zioncheck.contracts.commands import Discard, DrawStock, TakeDiscard
from zioncheck.contracts.languages import catalogue

SUITS = "CDHS"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
HANDS = [["AS", "2S", "9D", "KC"], ["3S", "4S", "9C", "KH"]]
MOVES = "document.querySelectorAll('#moves li').length"


async def long_game(client, turns: int):
    """A stacked two-seat game whose seats take the other's discard (or draw, when there is none to take) and
    throw the card they got, `turns` times: more batches than the 40 the live stream sends a newcomer."""
    held = {card for hand in HANDS for card in hand}
    stock = [rank + suit for suit in SUITS for rank in RANKS if rank + suit not in held]
    follower = await stacked_game(client, 2, HANDS, stock, public=True)
    for _ in range(turns):
        state = follower.state
        seat = state.turn
        draw = TakeDiscard(seat=seat) if state.discard and state.discarders[-1] != seat else DrawStock(seat=seat)
        await follower.outcome(await client.send(follower.game, draw))
        thrown = Discard(seat=seat, card=follower.state.hands[seat][-1])
        await follower.outcome(await client.send(follower.game, thrown))
    return follower


async def feed_items(client, follower) -> int:
    """How many moves the game's feed tells, once the projector has written every batch of its log."""
    async def feed():
        return [msgspec.json.decode(data) for data in await stored_feed(client, follower.game)]
    batches = await eventually(feed, lambda got: got and got[-1]["seq"] == len(follower.batches))
    return sum(len(batch["items"]) for batch in batches)


async def listed(page) -> list[str]:
    return await page.locator("#moves li").all_text_contents()


async def hand_order(page) -> list[str]:
    return await page.locator("#hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)")


async def test_a_seat_page_lists_every_move_from_the_start_after_a_reload_and_a_language_switch(
        gateway, client, page, tmp_path):
    follower = await long_game(client, turns=30)
    game = follower.game
    moves = await feed_items(client, follower)
    assert moves > 60
    await page.goto(f"{gateway.url}/play/{game}#token={token(game, 0)}")
    await page.wait_for_function(f"{MOVES} === {moves}", timeout=20_000)
    first = await listed(page)
    assert first[0] == "Game started: 2 players, 2 decks" and first[1].startswith("Hand 1 dealt")
    thrown = follower.state.discard[-1]
    await page.wait_for_selector(f'#table[data-last="discarded"] .pile.discard .card.last-move[title="{thrown}"]')
    await page.screenshot(path=str(tmp_path / "history.png"), full_page=True)
    await page.reload()
    await page.wait_for_function(f"{MOVES} === {moves}", timeout=20_000)
    assert await listed(page) == first
    await page.select_option("#language", "es")
    await page.wait_for_function("document.documentElement?.lang === 'es'", timeout=10_000)
    await page.wait_for_function(f"{MOVES} === {moves}", timeout=20_000)
    spanish = await listed(page)
    assert spanish[0].startswith(catalogue("es")["web.gameStarted"].split("{")[0])
    seat = follower.state.turn
    await follower.outcome(await client.send(game, DrawStock(seat=seat)))
    await page.wait_for_function(f"{MOVES} === {moves + 1}", timeout=20_000)
    await page.wait_for_selector('#table[data-last="stock_drawn"] .pile.stock.last-move')
    assert await page.locator(".last-move").count() == 1, "only the last move is marked"
    await page.screenshot(path=str(tmp_path / "history-es.png"), full_page=True)


async def test_the_watch_page_lists_every_move_from_the_first_over_more_than_a_page_of_the_feed(
        gateway, client, page, tmp_path):
    follower = await long_game(client, turns=130)
    moves = await feed_items(client, follower)
    assert len(follower.batches) > 250, "more than a page of the feed"
    await page.goto(f"{gateway.url}/watch/{follower.game}")
    await page.wait_for_function(f"{MOVES} === {moves}", timeout=30_000)
    shown = await listed(page)
    assert shown[0] == "Game started: 2 players, 2 decks" and shown[1].startswith("Hand 1 dealt")
    thrown = follower.state.discard[-1]
    await page.wait_for_selector(f'#table[data-last="discarded"] .pile.discard .card.last-move[title="{thrown}"]')
    await page.screenshot(path=str(tmp_path / "watch-history.png"), full_page=True)


async def test_a_hand_arranged_by_dragging_or_tapping_stays_so_across_a_reload_and_its_sort_across_a_language_switch(
        gateway, client, page, tmp_path):
    follower, seat0, _ = await game_in_play(client)
    game = follower.game
    await page.goto(f"{gateway.url}/play/{game}#token={seat0}")
    await caught_up(page, follower)
    assert await hand_order(page) == ["KC", "9D", "2S", "AS"], "sorted by suit to begin with"
    ace, king = page.locator('#hand .card[data-card="AS"]'), page.locator('#hand .card[data-card="KC"]')
    start, onto = await ace.bounding_box(), await king.bounding_box()
    await page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    await page.mouse.down()
    await page.mouse.move(onto["x"] + 4, onto["y"] + onto["height"] / 2, steps=8)   # the king's left half
    await page.screenshot(path=str(tmp_path / "dragging.png"), full_page=True)
    await page.mouse.up()
    assert await hand_order(page) == ["AS", "KC", "9D", "2S"]
    assert await page.locator("#hand .card.selected").count() == 0, "a drag picks no card"
    await page.reload()
    await caught_up(page, follower)
    assert await hand_order(page) == ["AS", "KC", "9D", "2S"], "kept across a reload"
    await page.click("#move-cards")                        # tap a card, then the place it takes
    assert await page.is_visible("#move-hint")
    await page.click('#hand .card[data-card="2S"]')
    assert await page.locator('#hand .card.picked[data-card="2S"]').count() == 1
    await page.click('#hand .card[data-card="AS"]')
    assert await hand_order(page) == ["2S", "AS", "KC", "9D"]
    await page.click('#hand .card[data-card="AS"]')
    await page.click('#hand .card[data-card="9D"]')
    assert await hand_order(page) == ["2S", "KC", "9D", "AS"]
    assert await page.locator("#hand .card.selected").count() == 0, "moving cards picks none for a move"
    await page.click("#move-cards")
    await pick(page, "KC")                                  # picking for a move works again
    assert await page.locator('#hand .card.selected[data-card="KC"]').count() == 1
    await page.reload()
    await caught_up(page, follower)
    assert await hand_order(page) == ["2S", "KC", "9D", "AS"]
    assert [await page.get_attribute(f"#sort-{by}", "aria-pressed") for by in ("suit", "rank")] == ["false", "false"], \
        "arranged by hand, the hand is sorted neither way"
    await page.click("#sort-suit")
    assert await hand_order(page) == ["KC", "9D", "2S", "AS"]
    assert await page.get_attribute("#sort-suit", "aria-pressed") == "true"
    await page.click("#sort-rank")
    assert await hand_order(page) == ["2S", "9D", "KC", "AS"], "by rank, an ace high"
    assert [await page.text_content(f"#sort-{by}") for by in ("suit", "rank")] == ["Sort by suit", "Sort by rank"]
    await page.select_option("#language", "ru")
    await page.wait_for_function("document.documentElement?.lang === 'ru'", timeout=10_000)
    await caught_up(page, follower)
    assert await hand_order(page) == ["2S", "9D", "KC", "AS"], "a language switch keeps the sort"
    await follower.outcome(await client.send(game, DrawStock(seat=0)))
    await caught_up(page, follower)
    assert await hand_order(page) == ["2S", "5S", "9D", "KC", "AS"]


async def test_two_seats_chat_a_watcher_reads_and_a_line_is_text_never_markup(services, client, nats_server, keys_file,
                                                                            tmp_path):
    follower, seat0, seat1 = await game_in_play(client)
    game = follower.game
    # Five lines a seat, one back only every ten minutes: the sixth is refused however slowly the browser types.
    async with limited(nats_server, keys_file, chat_lines=5, chat_seconds=3000) as (gateway, _), \
            browser_page({"width": 1280, "height": 900}) as first, \
            browser_page(PHONE) as second, browser_page({"width": 1280, "height": 900}) as watcher:
        await first.goto(f"{gateway.url}/play/{game}#token={seat0}")
        await second.goto(f"{gateway.url}/play/{game}#token={seat1}")
        await watcher.goto(f"{gateway.url}/watch/{game}")
        for page in (first, second, watcher):
            await caught_up(page, follower)
        assert await watcher.is_hidden("#chat-form") and await watcher.is_visible("#chat-read-only")
        markup = 'good luck <img src=x onerror="document.title=1"><b>all</b>'
        await first.fill("#chat-text", markup)
        await first.press("#chat-text", "Enter")
        for page in (first, second, watcher):
            await page.wait_for_selector('#chat-lines li[data-seat="0"]', timeout=10_000)
            assert await page.text_content("#chat-lines li .what") == markup
            assert await page.locator("#chat-lines li img, #chat-lines li .what b").count() == 0
            assert await page.text_content("#chat-lines li .who") == "Seat 0:"
        assert await first.input_value("#chat-text") == ""
        await second.fill("#chat-text", "and to you")
        await second.click("#chat-form button")
        await first.wait_for_selector('#chat-lines li[data-seat="1"]', timeout=10_000)
        for n in range(4):
            await first.fill("#chat-text", f"line {n}")
            await first.press("#chat-text", "Enter")
            await first.wait_for_function(f"document.querySelectorAll('#chat-lines li').length === {n + 3}")
        await first.fill("#chat-text", "one too many")
        await first.press("#chat-text", "Enter")
        await first.wait_for_selector("#chat-error:not([hidden])")
        assert (await first.text_content("#chat-error")).startswith("Too many lines at once: try again in")
        assert await first.input_value("#chat-text") == "one too many", "the line waits to be sent again"
        await second.screenshot(path=str(tmp_path / "chat-phone.png"), full_page=True)
        await watcher.screenshot(path=str(tmp_path / "chat-watch.png"), full_page=True)
        assert await second.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        await watcher.reload()                             # a newcomer sees the last lines
        await watcher.wait_for_function("document.querySelectorAll('#chat-lines li').length === 6", timeout=10_000)
        assert await watcher.is_hidden("#chat-none")


async def test_the_watch_page_of_an_unknown_game_says_so_once_and_waits_for_nothing(gateway, page):
    await page.goto(f"{gateway.url}/watch/no-such-game")
    await page.wait_for_function("document.getElementById('status').textContent.includes('no-such-game')",
                                 timeout=10_000)
    assert await page.text_content("#status") == "No game no-such-game is stored."
    assert not await page.get_by_text("Waiting for the table").is_visible()
    assert await page.locator("#table").is_hidden() and await page.locator(".panels").is_hidden()


RANK_SHOWN = """cards => cards.flatMap((card, i) => {
  const next = cards[i + 1];
  if (!next || next.parentElement !== card.parentElement) return [];
  const text = document.createRange();
  text.selectNodeContents(card.querySelector('.rank'));
  const rank = text.getBoundingClientRect();
  const cover = next.getBoundingClientRect();
  return rank.right > cover.left + 0.5 ? [`${card.title} under ${next.title}`] : [];
})"""


async def test_a_tens_rank_shows_whole_in_overlapping_cards_on_a_wide_screen_and_a_phone(gateway, client, page, phone,
                                                                                        tmp_path):
    follower = await finished_game(client)   # seat 0 went down with a run 9H 10H JH QH
    for screen in (page, phone):
        await screen.goto(f"{gateway.url}/watch/{follower.game}")
        await screen.wait_for_selector('.meld .card[title="10H"]', timeout=10_000)
        assert await screen.locator(".meld .card, .pile .under .card").evaluate_all(RANK_SHOWN) == []
        await screen.locator(".melds").screenshot(path=str(tmp_path / f"melds-{screen.viewport_size['width']}.png"))


async def test_the_host_is_never_offered_a_seat_someone_has_joined(gateway, http, page):
    lobby = (await http.post("/lobbies", json={"players": 3, "seats": ["person", "greedy", "person"]},
                             headers=PLATFORM)).json()
    game = lobby["game_id"]
    await page.goto(f"{gateway.url}{lobby['host']}")
    await page.wait_for_selector('#seats li[data-seat="2"] .take')
    seat2 = lobby["seats"][2]["link"].split("#token=")[1]
    await http.get(f"/lobbies/{game}", headers=bearer(seat2))   # the person of seat 2 opens their link
    await page.wait_for_selector('#seats li.joined[data-seat="2"]', timeout=10_000)
    assert await page.locator('#seats li[data-seat="2"] .take').count() == 0
    assert await page.locator('#seats li[data-seat="0"] .take').count() == 1
    await page.click('#seats li[data-seat="0"] .take')
    await page.wait_for_selector('#seats li.joined[data-seat="0"]', timeout=10_000)
    assert await page.locator("#seats .take").count() == 0


async def test_a_chat_line_said_while_the_last_is_on_its_way_is_sent_next_and_a_second_enter_sends_nothing_twice(
        services, client, nats_server, keys_file):
    """The gateway's answer to a line may come after the line itself, heard on the game's socket: Enter pressed
    again meanwhile is never lost (a disabled button would drop it), and a line is sent once however often it is."""
    follower, seat0, _ = await game_in_play(client)
    held, posted = asyncio.Event(), []

    async def slow_answer(route):   # the gateway's answers to the first line held back until it shows
        posted.append(route.request.post_data_json["text"])
        if len(posted) == 1:
            await held.wait()
        await route.continue_()

    async with limited(nats_server, keys_file, chat_lines=5, chat_seconds=3000) as (gateway, _), \
            browser_page({"width": 1280, "height": 900}) as first:
        await first.route("**/chat", slow_answer)
        await first.goto(f"{gateway.url}/play/{follower.game}#token={seat0}")
        await caught_up(first, follower)
        await first.fill("#chat-text", "first")
        await first.press("#chat-text", "Enter")
        await first.press("#chat-text", "Enter")          # the same line again, while it is on its way
        await first.fill("#chat-text", "second")          # typed, and said, before the gateway answered
        await first.press("#chat-text", "Enter")
        assert posted == ["first"]
        held.set()
        await first.wait_for_function("document.querySelectorAll('#chat-lines li').length === 2", timeout=10_000)
        assert await first.locator("#chat-lines li .what").all_text_contents() == ["first", "second"]
        assert posted == ["first", "second"]
        await first.wait_for_function("document.getElementById('chat-text').value === ''", timeout=5_000)
