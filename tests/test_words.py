"""Every word a person reads is in English, Russian and Spanish (contracts/words/): the same keys and placeholders
in each catalogue, a sentence for every R18 reason, and every word the pages and the terminal ask for."""
import json
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from zioncheck.cli import words
from zioncheck.cli.live import narrate
from zioncheck.contracts import events
from zioncheck.contracts.events import Discarded, GameEnded, Rejected
from zioncheck.contracts.languages import (
    ENGLISH,
    LANGUAGES,
    PLURAL_FORMS,
    catalogue,
    choose,
    contract,
    from_environment,
    path,
    placeholders,
    plural,
    say,
)
from zioncheck.contracts.reasons import REASONS, SENTENCES, explain, explain_refusal
from zioncheck.domain import GameState

ROOT = Path(__file__).parent.parent
STATIC = ROOT / "services" / "gateway" / "static"
OTHERS = [language for language in LANGUAGES if language != ENGLISH]


def one_entry(line: str) -> bool:
    """A line of a catalogue is one key and its template or plural forms, indented two spaces."""
    try:
        entry = json.loads("{" + line.removesuffix(",") + "}")
    except json.JSONDecodeError:
        return False
    return line.startswith('  "') and len(entry) == 1


def missing(language: str, keys) -> list[str]:
    return [f"{key!r} is missing from {path(language).name}" for key in keys if key not in catalogue(language)]


@pytest.mark.parametrize("language", OTHERS)
def test_every_key_is_in_every_catalogue(language):
    english, other = set(catalogue(ENGLISH)), set(catalogue(language))
    assert missing(language, sorted(english - other)) == []
    assert missing(ENGLISH, sorted(other - english)) == []


@pytest.mark.parametrize("language", OTHERS)
def test_every_word_takes_the_same_placeholders_in_every_language(language):
    wrong = [f"{key!r} in {path(language).name} takes {sorted(placeholders(entry))}, in English "
             f"{sorted(placeholders(catalogue(ENGLISH)[key]))}"
             for key, entry in catalogue(language).items()
             if key in catalogue(ENGLISH) and placeholders(entry) != placeholders(catalogue(ENGLISH)[key])]
    assert wrong == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_word_that_follows_a_number_has_each_plural_form_of_its_language(language):
    english = catalogue(ENGLISH)
    wrong = [f"{key!r} in {path(language).name}: forms {sorted(entry) if isinstance(entry, dict) else 'none'}, "
             f"not {sorted(PLURAL_FORMS[language])}"
             for key, entry in catalogue(language).items()
             if isinstance(english.get(key), dict) != isinstance(entry, dict)
             or isinstance(entry, dict) and set(entry) != set(PLURAL_FORMS[language])]
    assert wrong == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_r18_reason_has_its_sentence_in_every_language(language):
    assert missing(language, [f"reason.{reason}" for reason in REASONS]) == []
    assert all(explain(reason, language) for reason in REASONS)


def test_r18_the_english_sentences_are_the_ones_the_api_has_always_sent():
    assert SENTENCES["not_your_turn"] == explain("not_your_turn") == "not your turn"
    assert SENTENCES["joker_in_set"] == "a joker in a set can never be taken"
    assert explain_refusal("not_your_turn", "it is seat 2's turn, not seat 0's") == \
        "not your turn: it is seat 2's turn, not seat 0's"


def test_r18_a_refusal_reads_in_the_readers_language_with_the_logs_own_detail():
    assert explain_refusal("card_not_in_hand", "card not in hand: 7C", "ru") == \
        "этой карты нет на руке: card not in hand: 7C"
    assert explain("must_draw_first", "es") == "primero roba una carta"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_event_the_terminal_tells_has_its_words(language):
    why = typing.get_args(typing.get_type_hints(events.ClaimFailed)["why"])
    kinds = typing.get_args(events.MeldKind)
    assert missing(language, [f"tell.why.{w}" for w in why] + [f"kind.{k}" for k in kinds]) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_catalogue_holds_one_key_a_line_so_adding_a_word_is_one_line(language):
    lines = path(language).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    wrong = [f"{path(language).name}:{n}: {line[:60]}" for n, line in enumerate(lines[1:-1], 2)
             if line and not one_entry(line)]
    assert wrong == []
    json.loads(path(language).read_text(encoding="utf-8"))


def test_r7_a_contract_reads_in_each_language_with_its_plurals():
    assert contract("en", 1, 1) == "1 set + 1 run"
    assert contract("ru", 2, 2) == "2 группы + 2 последовательности"
    assert contract("ru", 0, 5) == "5 последовательностей"
    assert contract("es", 1, 2) == "1 grupo + 2 escaleras"


def test_russian_plurals_follow_cldr():
    assert [plural("ru", n) for n in (1, 2, 5, 11, 12, 21, 22, 25, 111, 0)] == [
        "one", "few", "many", "many", "many", "one", "few", "many", "many", "many"]
    assert say("ru", "web.cards", count=21) == "21 карта"


def test_the_terminals_language_comes_from_lang_then_the_environment():
    assert from_environment({"LANG": "ru_RU.UTF-8"}) == "ru"
    assert from_environment({"LANGUAGE": "de:es", "LANG": "ru_RU.UTF-8"}) == "es"
    assert from_environment({"LC_ALL": "C", "LANG": "es_ES.UTF-8"}) == "en"
    assert from_environment({}) == "en"
    assert words.choose_language(["play", "--lang", "es"], {"LANG": "ru_RU.UTF-8"}) == "es"
    assert words.choose_language(["--lang=ru", "run"], {}) == "ru"
    assert choose(["pt-BR", "es-MX"]) == "es"


def test_cli_words_come_from_the_catalogue_only():
    """A word written into cli/words.py would be English only: each is a `cli.` key of the catalogues."""
    source = (ROOT / "cli" / "words.py").read_text()
    assert re.findall(r"^([A-Z_]+) = [\"(]", source, re.M) == []
    assert words.REFUSED == catalogue(ENGLISH)["cli.REFUSED"]


def test_the_terminal_tells_a_game_in_the_language_chosen():
    try:
        words.use("ru")
        [line] = narrate(Discarded(seat=1, card="7C"), GameState(hands=((), ("2C", "3C"))))
        assert line == "  место 1 сбрасывает 7C (на руке 2 карты)"
        [line] = narrate(Rejected(seat=1, command="draw_stock", reason="not_your_turn", detail=""), GameState())
        assert "сейчас не ваш ход" in line
        words.use("es")
        assert narrate(GameEnded(totals=[10, 40, 10], winners=[0, 2]), GameState())[-1] == \
            "=== Fin de la partida. Ganadores: asiento 0, asiento 2"
    finally:
        words.use(ENGLISH)


def zioncheck(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zioncheck.cli.main", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60, env={"PATH": "/usr/bin:/bin", **env})


def test_a_failure_is_one_line_in_the_language_of_lang_or_the_environment():
    ru = zioncheck("run", "--players", "1", "--lang", "ru", env={})
    assert ru.returncode == 2 and ru.stderr.splitlines() == ["zioncheck run: --players должно быть 2..64, а не 1"]
    es = zioncheck("play", "--bots", "foo", env={"LANG": "es_ES.UTF-8"})
    assert es.stderr.splitlines() == ["zioncheck play: no existe el bot «foo»: los bots son greedy, random"]
    unknown = zioncheck("--lang", "de", "run", env={})
    assert unknown.returncode == 2 and unknown.stderr.splitlines() == [
        "zioncheck: --lang must be one of en, ru, es, not de"]


def test_help_speaks_the_language_chosen():
    helped = zioncheck("play", "--help", env={"LANGUAGE": "es"})
    assert "asientos en la mesa, 2..64" in " ".join(helped.stdout.split())


# --- the web pages ----------------------------------------------------------------------------------------------

def composed_in_words_js() -> set[str]:
    source = (STATIC / "words.js").read_text()
    block = source[source.index("const COMPOSED = {"):source.index("export const WORDS")]
    return set(re.findall(r"^  (\w+)[:,]", block, re.M))


def test_every_word_the_pages_ask_for_is_in_the_catalogues():
    """`W.name` (or WORDS.name) in a page's script and data-words="name" in its HTML are `web.name`, unless
    words.js composes them."""
    asked = set()
    for script in STATIC.glob("*.js"):
        asked |= {(script.name, name) for name in re.findall(r"\bW(?:ORDS)?\.(\w+)", script.read_text())}
    for page in STATIC.glob("*.html"):
        asked |= {(page.name, name) for name in re.findall(r'data-words(?:-\w+)?="(\w+)"', page.read_text())}
    composed = composed_in_words_js()
    unknown = sorted(f"{where}: web.{name}" for where, name in asked
                     if name not in composed and f"web.{name}" not in catalogue(ENGLISH))
    assert unknown == []


def test_words_js_reads_the_same_placeholders_as_python():
    """The pages fill `{name}` as contracts/languages.py does; words.js says how in one regular expression."""
    assert r"/\{(\w+)\}/g" in (STATIC / "words.js").read_text()
