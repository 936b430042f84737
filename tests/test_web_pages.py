"""The seat and lobby pages speak only through the catalogue (services/gateway/static/words.js), and the
catalogue has a sentence for every R18 reason a refusal can give."""
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from zioncheck.contracts.reasons import REASONS, SENTENCES

STATIC = Path(__file__).parents[1] / "services" / "gateway" / "static"


def reasons_block() -> dict[str, str]:
    text = (STATIC / "words.js").read_text()
    block = re.search(r"\n  reasons: \{\n(.*?)\n  \},", text, re.S).group(1)
    return dict(re.findall(r'^\s+(\w+): "([^"]*)",$', block, re.M))


def test_r18_every_reason_has_its_sentence_in_the_pages_catalogue():
    assert reasons_block() == dict(SENTENCES)
    assert set(reasons_block()) == set(REASONS)


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inside, self.words = [], []

    def handle_starttag(self, tag, attrs):
        self.inside.append(tag)

    def handle_endtag(self, tag):
        while self.inside and self.inside.pop() != tag:
            pass

    def handle_data(self, data):
        if data.strip() and "body" in self.inside and not {"script", "style"} & set(self.inside):
            self.words.append(data.strip())


@pytest.mark.parametrize("page", ["play.html", "lobby.html"])
def test_the_seat_and_lobby_pages_hold_no_words_of_their_own(page):
    found = _Text()
    found.feed((STATIC / page).read_text())
    assert found.words == ["Zioncheck"], "visible text comes from words.js (data-w keys or the page's script)"
    keys = re.findall(r'data-w="(\w+)"', (STATIC / page).read_text())
    catalogue = (STATIC / "words.js").read_text()
    assert all(re.search(rf"^  {key}:", catalogue, re.M) for key in keys), "every data-w key is in the catalogue"
