"""The seat and lobby pages hold no words of their own: every one comes from the catalogues
(contracts/words/<language>.json) through services/gateway/static/words.js."""
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
STATIC = ROOT / "services" / "gateway" / "static"


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
def test_the_seat_and_lobby_pages_show_no_text_until_the_readers_language_fills_it(page):
    html = (STATIC / page).read_text()
    found = _Text()
    found.feed(html)
    assert found.words == ["Zioncheck"], "visible text comes from the catalogue (data-words or the page's script)"
    catalogue = json.loads((ROOT / "contracts" / "words" / "en.json").read_text())
    keys = re.findall(r'data-words="(\w+)"', html)
    assert keys and all(f"web.{key}" in catalogue for key in keys), "every data-words key is in the catalogue"
