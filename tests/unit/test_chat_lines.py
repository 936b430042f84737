"""A game's chat in the gateway: what a line may hold, how often a seat may speak, and how few lines each gateway
keeps, whatever the traffic."""
import msgspec
import pytest

from zioncheck.services.gateway.chat import Chat, ChatRefused, checked, tidy
from zioncheck.services.gateway.limits import Limiter, Limits, RateLimited
from zioncheck.services.gateway.live import Spectator
from zioncheck.services.gateway.wire import ChatLine


class Heard:
    """A NATS message as the gateway's subscription gets it."""

    def __init__(self, subject: str, data: bytes):
        self.subject, self.data = subject, data


def heard(game: str, text: str, seat: int = 0, subject: str | None = None) -> Heard:
    line = ChatLine(id=f"{game}:{text}", game_id=game, seat=seat, text=text, at=0.0)
    return Heard(subject or f"zc.chat.platform.{game}", msgspec.json.encode(line))


def queued(spectator: Spectator) -> list[str]:
    frames = []
    while not spectator.frames.empty():
        frames.append(msgspec.json.decode(spectator.frames.get_nowait())["line"]["text"])
    return frames


def test_a_line_is_tidied_to_one_line_of_plain_spaces():
    assert tidy("  good\n\n luck\t\x00 all \u2028") == "good luck all"
    assert checked("<b>hi</b>") == "<b>hi</b>", "markup stays text: the pages never read it as HTML"


def test_an_empty_line_or_one_over_200_characters_is_refused():
    assert checked("x" * 200) == "x" * 200
    with pytest.raises(ChatRefused) as long:
        checked("x" * 201)
    assert long.value.error == "chat_too_long"
    with pytest.raises(ChatRefused) as empty:
        checked(" \r\n\x07 ")
    assert empty.value.error == "chat_empty"


def test_a_seat_says_five_lines_in_ten_seconds_then_one_more_every_two_seconds():
    now = [0.0]
    limiter = Limiter(Limits(), clock=lambda: now[0])
    for _ in range(5):
        limiter.chat_line("g", 0)
    with pytest.raises(RateLimited) as over:
        limiter.chat_line("g", 0)
    assert over.value.error == "too_many_messages" and over.value.retry_after == 2
    limiter.chat_line("g", 1)    # another seat has lines of its own
    limiter.chat_line("h", 0)    # and so has the same seat of another game
    now[0] = 2.0
    limiter.chat_line("g", 0)
    with pytest.raises(RateLimited):
        limiter.chat_line("g", 0)


def test_the_chat_limits_must_let_a_line_through():
    with pytest.raises(ValueError):
        Limits(chat_lines=0)
    with pytest.raises(ValueError):
        Limits(chat_seconds=0)


async def test_a_page_that_opens_gets_the_games_last_lines_then_each_new_one_and_no_other_games():
    chat = Chat(nc=None, kept=3)
    for n in range(5):
        await chat._heard(heard("g", f"line {n}"))
    await chat._heard(heard("h", "elsewhere"))
    page = Spectator(backlog=100)
    chat.join("g", page)
    await chat._heard(heard("g", "new"))
    await chat._heard(heard("h", "still elsewhere"))
    assert queued(page) == ["line 2", "line 3", "line 4", "new"]
    chat.leave("g", page)
    await chat._heard(heard("g", "after leaving"))
    assert queued(page) == [] and "g" not in chat.listeners


async def test_a_gateway_keeps_the_lines_of_a_bounded_number_of_games_the_quietest_forgotten_first():
    chat = Chat(nc=None, kept=2, games=3)
    for game in ("a", "b", "c"):
        await chat._heard(heard(game, "hello"))
    await chat._heard(heard("a", "again"))
    await chat._heard(heard("d", "hello"))
    assert list(chat.recent) == ["c", "a", "d"], "b was heard from least recently"


async def test_a_line_whose_game_is_not_its_subjects_or_that_no_gateway_wrote_is_dropped():
    chat = Chat(nc=None)
    await chat._heard(heard("g", "misplaced", subject="zc.chat.platform.other"))
    await chat._heard(Heard("zc.chat.platform.g", b"not a line"))
    await chat._heard(heard("g", "x" * 201))
    assert chat.recent == {}
