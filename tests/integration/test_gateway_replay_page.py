"""The replay page (/replay/{game}) in headless Chromium: a finished game, in the hot streams or only in its archive,
played hand by hand to its end with every hand face up, its final standings those `zioncheck replay` prints, its
archive's signature checked; reached from the lobby's list of games, the watch page and the seat page; and a private
game kept private there too."""
import asyncio
import os
import sys

import httpx
import msgspec
import pytest
from nats.js.errors import NotFoundError

from gateway_helpers import SECRET, bearer, finished_game, gateway, http, keys_file, token  # noqa: F401
from over_nats import new_game
from test_gateway_browser import CHROMIUM, browser_page
from zioncheck.application.archive import verify
from zioncheck.client import Follower, GameClient
from zioncheck.contracts.archive import IndexEntry
from zioncheck.contracts.commands import StartGame
from zioncheck.services.bus.access import public_key
from zioncheck.services.bus.log_store import last_message
from zioncheck.services.bus.topology import DEFAULT_TENANT, history_subject
from zioncheck.services.gateway.server import Running
from zioncheck.services.wiring import SERVICES, Services, Settings

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` (.ci/run does)")


@pytest.fixture
async def page():
    async with browser_page({"width": 1280, "height": 900}) as page:
        yield page


@pytest.fixture
async def archiving(nats_server, keys_file):
    """The house with an archiver that takes each finished game out of the hot streams a second after it ends, and a
    gateway: a finished game is then found only in its archive."""
    house = await Services().start(SERVICES, nats_server.access, settings=Settings(retention=1))
    running = await Running.start(nats_server.access, port=0, secret=SECRET, platform_keys=keys_file)
    yield running
    await running.stop()
    await house.stop()


async def bot_game(client: GameClient, players: int = 3, first_hand: int = 5) -> Follower:
    """A public game of strong bots from hand `first_hand` to the last, dealt by the dealer (each hand's seed revealed)
    and played by the bots service, to its end and the last seed's reveal. Strong bots: two greedy ones can take
    thousands of moves over a last hand that ends with no winner (R16), and the dealer's seed is the house's."""
    game = new_game()
    follower = await client.follow(game)
    await client.send(game, StartGame(game_id=game, players=players, first_hand=first_hand, seats=["strong"] * players,
                                      public=True))
    await follower.wait_until(lambda f: f.state.game_over, timeout=120)
    await follower.wait_until(lambda f: all(f.state.seeds))   # the dealer reveals the last hand's seed
    await follower.stop()
    return follower


async def archived(client: GameClient, game: str) -> IndexEntry:
    """The game's entry in the history index, once the archiver has written it."""
    sub = await client.js.subscribe(history_subject(DEFAULT_TENANT, game), ordered_consumer=True)
    try:
        return msgspec.json.decode((await sub.next_msg(timeout=60)).data, type=IndexEntry)
    finally:
        await sub.unsubscribe()


async def zioncheck_replay(nats_server, game: str) -> str:
    """What `zioncheck replay GAME` prints: its standings' seats, in the order it ranks them."""
    done = await asyncio.create_subprocess_exec(sys.executable, "-m", "zioncheck.cli.main", "replay", game,
                                                *nats_server.cli_args, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE)
    out, err = await done.communicate()
    assert done.returncode == 0, err.decode()
    [line] = [line for line in out.decode().splitlines() if line.startswith("standings: ")]
    return line.removeprefix("standings: ")


def ranked(totals) -> str:
    return ", ".join(f"seat {s}: {totals[s]}" for s in sorted(range(len(totals)), key=lambda s: totals[s]))


async def test_an_archived_game_plays_to_its_end_face_up_with_the_standings_zioncheck_replay_prints(
        archiving, client, nats_server, page, tmp_path):
    follower = await bot_game(client)   # hands 5 and 6
    game = follower.game
    await archived(client, game)
    async with asyncio.timeout(30):   # its retention runs: the game leaves the hot streams
        while True:
            try:
                await last_message(client.js, game)
            except NotFoundError:
                break
            await asyncio.sleep(0.2)
    told = await zioncheck_replay(nats_server, game)
    assert told == ranked(follower.state.totals)

    await page.goto(f"{archiving.url}/replay/{game}")
    await page.wait_for_selector("#replay.shown", timeout=15_000)
    await page.wait_for_selector("#signature.verified", timeout=15_000)
    assert await page.text_content("#signature") == "archive verified: intact, signed by the house"
    steps = len(follower.batches)
    assert await page.text_content("#step-label") == f"step {steps} of {steps}"
    assert await page.locator("#moves li").count() > 20, "every move, folded from the archive"

    await page.click("#to-start")
    await page.wait_for_function("document.getElementById('table').dataset.step === '0'", timeout=10_000)
    assert await page.is_hidden("#result")
    await page.select_option("#hand", "6")
    await page.wait_for_function("document.getElementById('status').textContent.startsWith('Hand 6 of 6')",
                                 timeout=10_000)
    dealt = int(await page.get_attribute("#table", "data-step"))
    for _ in range(4):   # a few moves into the last hand, a step at a time
        await page.click("#forward")
    await page.wait_for_function(f"document.getElementById('table').dataset.step === '{dealt + 4}'", timeout=10_000)
    async with httpx.AsyncClient(base_url=archiving.url, timeout=20) as http:
        cards = (await http.get(f"/games/{game}/replay?step={dealt + 4}")).json()["cards"]
    shown = await page.eval_on_selector_all(".seat .hand .card",
                                            "cs => cs.map(c => c.classList.contains('joker') ? 'JK' : c.title)")
    assert shown == [code for hand in cards for code in hand] and shown, "every hand face up, as the step holds them"
    assert await page.locator(".seat .card.back").count() == 0
    await page.screenshot(path=str(tmp_path / "replay-hand-6.png"), full_page=True)

    await page.click("#to-start")
    await page.wait_for_function("document.getElementById('table').dataset.step === '0'", timeout=10_000)
    await page.select_option("#speed", "25")
    await page.click("#play")
    await page.wait_for_selector("#result:not([hidden])", timeout=90_000)
    assert await page.text_content("#step-label") == f"step {steps} of {steps}"
    assert await page.text_content("#result") == f"Final standings: {told}"
    assert await page.text_content("#play") == "Play"
    await page.screenshot(path=str(tmp_path / "replay-end.png"), full_page=True)


async def test_the_lobbys_finished_game_links_to_its_replay_and_the_watch_page_does_too(gateway, client, nats_server,
                                                                                        page, tmp_path):
    follower = await bot_game(client, players=2, first_hand=6)
    game = follower.game
    await archived(client, game)
    await page.goto(f"{gateway.url}/")
    link = f'tr[data-game="{game}"] a.replay-link[href="/replay/{game}"]'
    await page.wait_for_selector(link, timeout=15_000)
    assert await page.locator(f'tr[data-game="{game}"] a.replay-link').count() == 1
    await page.screenshot(path=str(tmp_path / "lobby.png"), full_page=True)
    await page.click(link)
    await page.wait_for_url(f"{gateway.url}/replay/{game}", timeout=10_000)
    await page.wait_for_selector("#result:not([hidden])", timeout=15_000)
    assert await page.text_content("#result") == f"Final standings: {ranked(follower.state.totals)}"
    await page.wait_for_selector("#signature.verified", timeout=15_000)
    await page.screenshot(path=str(tmp_path / "replay-from-the-lobby.png"), full_page=True)
    async with page.expect_download() as downloading:
        await page.click("#download")
    download = await downloading.value
    assert download.suggested_filename == f"{game}.zca"
    await download.save_as(tmp_path / download.suggested_filename)
    key = public_key(nats_server.credentials)
    assert verify((tmp_path / download.suggested_filename).read_bytes(), key) == [], "the file offered verifies"
    assert key in await page.text_content("#verify-line")

    await page.goto(f"{gateway.url}/watch/{game}")
    await page.wait_for_selector(f'#replay-link[href="/replay/{game}"]:not([hidden])', timeout=15_000)


async def test_a_private_game_is_no_game_on_the_replay_page_but_to_its_seats(gateway, http, client, page):
    follower = await finished_game(client, public=False)
    game, seat = follower.game, token(follower.game, 0)
    for path in ("replay", "signature", "archive"):
        assert (await http.get(f"/games/{game}/{path}")).status_code == 404, path
    assert (await http.get(f"/games/{game}/signature", headers=bearer(seat))).status_code == 200
    await page.goto(f"{gateway.url}/replay/{game}")
    await page.wait_for_function(f"document.getElementById('status').textContent === 'No game {game} is stored.'",
                                 timeout=10_000)
    assert await page.is_hidden("#table") and await page.locator(".seat").count() == 0

    await page.goto(f"{gateway.url}/play/{game}#token={seat}")   # the seat page keeps the seat's token
    await page.wait_for_selector(f'#replay-link[href="/replay/{game}"]:not([hidden])', timeout=15_000)
    await page.click("#replay-link")
    await page.wait_for_url(f"{gateway.url}/replay/{game}")
    await page.wait_for_selector("#result:not([hidden])", timeout=15_000)
    assert await page.text_content("#result") == f"Final standings: {ranked(follower.state.totals)}"


async def test_the_replay_page_speaks_russian_and_fits_a_phones_screen(gateway, client, tmp_path):
    from test_gateway_languages import fits, phone_in
    follower = await finished_game(client)
    async with phone_in("ru-RU") as phone:
        await phone.goto(f"{gateway.url}/replay/{follower.game}")
        await phone.wait_for_selector("#result:not([hidden])", timeout=15_000)
        assert await phone.text_content("#result") == "Итог: " + ", ".join(
            f"место {s}: {follower.state.totals[s]}" for s in sorted(range(2), key=lambda s: follower.state.totals[s]))
        assert await phone.get_attribute("#to-start", "aria-label") == "в начало"
        assert (await phone.text_content("#status")).startswith("Игра окончена")
        await phone.screenshot(path=str(tmp_path / "replay-phone-ru.png"), full_page=True)
        await fits(phone, "replay")
