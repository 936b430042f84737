"""Every word a person reads is in English, Russian and Spanish (contracts/words/): the same keys and placeholders
in each catalogue, a sentence for every R18 reason, and every word the pages and the terminal ask for; and no face
of the command line (its help, argparse's own words, its failures, a game told or replayed) says a word of its own
that is not in the reader's catalogue."""
import argparse
import ast
import inspect
import io
import json
import re
import subprocess
import sys
import typing
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from zioncheck.application.simulation import play_game
from zioncheck.bots import NAMES as BOTS
from zioncheck.cli import words
from zioncheck.cli.live import narrate
from zioncheck.cli.main import main, parser
from zioncheck.contracts import events
from zioncheck.contracts.commands import BOT_LEVELS, PERSON, PRESETS, AnyCommand
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
from zioncheck.contracts.log import tag_of, write_jsonl
from zioncheck.contracts.reasons import REASONS, SENTENCES, explain, explain_refusal
from zioncheck.domain import GameState, evolve
from zioncheck.domain.audit import Finding

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


def test_r18_a_refusal_reads_in_the_readers_language_detail_and_all():
    assert explain_refusal("card_not_in_hand", "card not in hand: 7C (seat 0 holds 2C 3C)", "ru") == \
        "этой карты нет на руке: 7C (у места 0 на руке: 2C 3C)"
    assert explain_refusal("not_your_turn", "it is seat 1's turn, not seat 0's", "es") == \
        "no es tu turno: es el turno del asiento 1, no del asiento 0"
    assert explain("must_draw_first", "es") == "primero roba una carta"
    # a detail the rules never write (the intake's words on bytes it could not decode): the sentence alone
    assert explain_refusal("bad_command", "Expected `int`, got `str` - at `$.seat`", "ru") == "неверная команда"


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
        assert line == "  (отказ: взятие карты из колоды от места 1: сейчас не ваш ход)"
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
    assert es.stderr.splitlines() == ["zioncheck play: no existe el bot «foo»: los bots son greedy, random, strong, "
                                      "expert, o por nivel easy (random), normal (greedy), hard (strong)"]
    unknown = zioncheck("--lang", "de", "run", env={})
    assert unknown.returncode == 2 and unknown.stderr.splitlines() == [
        "zioncheck: --lang must be one of en, ru, es, not de"]


def test_help_speaks_the_language_chosen():
    helped = zioncheck("play", "--help", env={"LANGUAGE": "es"})
    assert "asientos en la mesa, 2..64" in " ".join(helped.stdout.split())


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_command_a_refusal_names_has_its_name_in_words(language):
    tags = [tag_of(command) for command in typing.get_args(AnyCommand)] + ["unreadable"]
    assert missing(language, [f"tell.move.{tag}" for tag in tags]) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_fairness_problem_a_replay_finds_has_its_words(language):
    assert missing(language, [f"tell.audit.{what}" for what in typing.get_args(Finding)]) == []


# --- the command line -------------------------------------------------------------------------------------------

def argparse_words() -> list[str]:
    """Every word argparse can say (its `_("...")` and `ngettext("...", ...)`), as this Python's argparse has them."""
    found = []
    for node in ast.walk(ast.parse(inspect.getsource(argparse))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "ngettext"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append(node.args[0].value)
    return sorted(set(found))


PERCENT = re.compile(r"%(?:\((\w+)\))?[sr]")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_argparse_says_is_in_every_catalogue_with_its_placeholders(language):
    """argparse's words are `argparse.<its English>`: a Python that says a new one fails here until it has its words.
    A translation takes argparse's %-placeholders: each `%s` of the English, and no name it does not pass."""
    said = argparse_words()
    assert said and missing(language, [f"argparse.{message}" for message in said]) == []
    wrong = []
    for message in said:
        entry = catalogue(language)[f"argparse.{message}"]
        for text in [entry] if isinstance(entry, str) else entry.values():
            named, positional = PERCENT.findall(text), PERCENT.findall(message)
            if [n for n in named if not n] != [n for n in positional if not n] or not set(named) <= set(positional):
                wrong.append(f"{message!r}: {text!r}")
    assert wrong == []


def test_argparse_speaks_the_language_in_use():
    try:
        words.use("ru")
        helped = parser().format_help()
        assert helped.startswith("использование: zioncheck") and "показать эту справку и выйти" in helped
        words.use("es")
        assert argparse._("the following arguments are required: %s") == "faltan los argumentos obligatorios: %s"
        assert argparse.ngettext("expected %s argument", "expected %s arguments", 2) == "se esperan %s valores"
    finally:
        words.use(ENGLISH)
    assert parser().format_help().startswith("usage: zioncheck")


FACES = ROOT / "cli"
PROSE = re.compile(r"[A-Za-z]{2,} [a-z]{2,}")   # two words running: a sentence, or a piece of one
FOR_PROGRAMMERS = ("AttributeError", "TypeError")   # raised at a mistake in the code, never at a person's input


def english_in(path: Path) -> list[str]:
    """The sentences a module of the command line writes in its own code, docstrings and programmers' errors aside."""
    tree = ast.parse(path.read_text())
    aside: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value,
                                                                                               ast.Constant):
            aside.add(id(body[0].value))   # a docstring
        raised = node.exc if isinstance(node, ast.Raise) else None
        if isinstance(raised, ast.Call) and getattr(raised.func, "id", "") in FOR_PROGRAMMERS:
            aside |= {id(inner) for inner in ast.walk(raised)}
    return [f"{path.name}:{node.lineno}: {node.value[:60]!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in aside
            and PROSE.search(node.value)]


def test_no_face_of_the_command_line_writes_a_sentence_of_its_own():
    """A sentence written into cli/ would be English whatever the reader's language: each is a catalogue word.
    (cli/asyncapi.py renders the AsyncAPI document, whose descriptions are the document's own.)"""
    assert [found for path in sorted(FACES.glob("*.py")) if path.name != "asyncapi.py"
            for found in english_in(path)] == []


def spoken(language: str, *argv: str) -> tuple[int, str]:
    """`zioncheck --lang LANGUAGE ARGV` run here: its exit status, and all it wrote, out and err, as UTF-8 text."""
    out = io.TextIOWrapper(io.BytesIO(), "utf-8", write_through=True)
    with redirect_stdout(out), redirect_stderr(out):
        try:
            code = main(["--lang", language, *argv])
        except SystemExit as exit:   # argparse's help and its errors
            code = exit.code
        finally:
            words.use(ENGLISH)
    return code, out.buffer.getvalue().decode()


def subcommands() -> list[str]:
    [commands] = [action for action in parser()._actions if isinstance(action, argparse._SubParsersAction)]
    return list(commands.choices)


def names_on_the_command_line() -> set[str]:
    """Words a command line says in every language because a person types them or reads them as names: the
    commands, the options and their choices, and the bots by name and by level, and the games (R24)."""
    top = parser()
    [commands] = [action for action in top._actions if isinstance(action, argparse._SubParsersAction)]
    named = {"zioncheck", *LANGUAGES, *BOTS, *BOT_LEVELS, *PRESETS, PERSON,
             *(part for name in commands.choices for part in name.split("-"))}
    for each in [top, *commands.choices.values()]:
        for action in each._actions:
            named |= {part for option in action.option_strings for part in re.findall(r"[a-z]+", option)}
            named |= {str(choice) for choice in action.choices or ()}
    return named


WORD = re.compile(r"[^\W\d_]{2,}")
NOT_PROSE = re.compile(r"[-/._=@{}<>%*0-9\u2660\u2665\u2666\u2663]")   # options, paths, ids, cards, hashes


CARD = re.compile(r"(?:10|[2-9AJQKT])[CDHS]|JK")   # R2's codes, as a terminal without suit symbols shows them


def prose(text: str) -> set[str]:
    """The words of `text` as a reader reads them, lower-cased; options, paths, ids, numbers and cards aside."""
    found = set()
    for token in text.split():
        token = token.strip(".,;:()[]«»\"'`?!¿¡…")
        if not NOT_PROSE.search(token) and not CARD.fullmatch(token):
            found |= {word.lower() for word in WORD.findall(token)}
    return found


def vocabulary(language: str) -> set[str]:
    """Every word of a catalogue's templates."""
    texts = [text for entry in catalogue(language).values() for text in ([entry] if isinstance(entry, str)
                                                                        else entry.values())]
    return {word for text in texts for word in prose(text)}


@pytest.fixture(scope="module")
def game_log(tmp_path_factory) -> Path:
    log = tmp_path_factory.mktemp("log") / "game.jsonl"
    log.write_bytes(write_jsonl(play_game(["greedy", "random", "greedy"], "11", "game-11").log))
    return log


@pytest.fixture(scope="module")
def faces(tmp_path_factory, game_log) -> list[list[str]]:
    """A run of every face of the command line that needs no server: each command's help, argparse's own
    refusals, the commands' one-line failures, a server that does not answer, and a game replayed."""
    folder = tmp_path_factory.mktemp("faces")
    not_a_log = folder / "notes.jsonl"
    not_a_log.write_text("seat 1 wins\n")
    helps = [["--help"]] + [[name, "--help"] for name in subcommands()]
    refusals = [["replay"], ["run", "--pace", "x"], ["run", "--log-level", "9"], ["run", "--bogus"],
                ["run", "--pace", "-1"], ["run", "--players", "1"], ["run", "--metrics-port", "70000"],
                ["play", "--seat", "9"], ["play", "--bots", "42"], ["play", "--pace", "11"], ["serve", "9"],
                ["serve", "--idle-minutes", "0"], ["serve", "--retention", "-1"],
                ["serve", "archiver", "--archive", str(not_a_log / "archive")], ["simulate", "--games", "0"],
                ["replay", str(folder / "none.jsonl")],
                ["replay", "#1"], ["replay", str(folder)], ["replay", str(not_a_log)], ["export", "x.y"],
                ["credentials", "--add", "x"], ["scenario", str(folder / "none.json")],
                ["games", "--nats-url", "nats://127.0.0.1:1", "--credentials", str(folder)],
                ["history", "--from", "2026-02-30"], ["history", "--seat", "seat-9"], ["history", "--limit", "0"],
                ["history", "--from", "2026-03-02", "--to", "2026-03-01"], ["history", "--tenant", "a.b"],
                ["history", "--won-by", "1", "--outcome", "abandoned"], ["export"], ["export", "g", "--parquet", "d"],
                ["export", "g", "--tenant", "acme"],
                ["export", "--parquet", str(folder), "--archive", str(folder / "x")],
                ["history", "--nats-url", "nats://127.0.0.1:1", "--credentials", str(folder)]]
    return [*helps, *refusals, ["replay", str(game_log)]]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_face_of_the_command_line_says_only_words_of_the_readers_catalogue(language, faces):
    """Help, argparse's words, failures and a replayed game, in the reader's language: a word that is not in the
    reader's catalogue (and is no name a person types) was written in English into the code, or left untranslated."""
    known, named = vocabulary(language), names_on_the_command_line()
    strays = {}
    for argv in faces:
        code, text = spoken(language, *argv)
        assert code in (0, 2) and "Traceback" not in text, (argv, text)
        if stray := sorted(prose(text) - known - named):
            strays[" ".join(argv)] = stray
    assert strays == {}


@pytest.mark.parametrize("language", OTHERS)
def test_a_game_told_in_russian_or_spanish_has_no_english_left(language):
    """Every line narrate says (each refusal too, with its command's name), in the reader's words."""
    log = play_game(["greedy", "random"], "3", "game-3").log
    state, lines = GameState(), []
    try:
        words.use(language)
        for entry in log:
            state = evolve(state, entry.event)
            lines += narrate(entry.event, state)
        for command in typing.get_args(AnyCommand):
            lines += narrate(Rejected(seat=1, command=tag_of(command), reason="not_your_turn"), GameState(),
                             hide_draws_from=0)
    finally:
        words.use(ENGLISH)
    assert sorted(prose("\n".join(lines)) - vocabulary(language) - names_on_the_command_line()) == []
    assert not [line for line in lines if re.search(r"\b[a-z]+_[a-z]+\b", line)], "a command's name in words"


def test_a_replay_tells_the_game_in_the_readers_words_with_suit_symbols(game_log):
    code, told = spoken("es", "replay", str(game_log))
    assert code == 0
    assert "=== Mano 1:" in told and "semillas comprobadas en las manos 1, 2, 3, 4, 5, 6" in told
    assert "\u2666" in told and not re.search(r"\b(?:10|[2-9AJQK])[CDHS]\b", told), "cards as the live game shows"
    code, told = spoken("ru", "replay", str(game_log))
    assert "итоги: место" in told and re.search(r"\d+ событи[йея]; хеш состояния [0-9a-f]{64}", told)


TERMINAL = ("cli.", "tell.", "argparse.", "kind.", "contract.", "reason.")   # the keys the terminal says
TYPED = {"draw", "take", "claim", "down", "lay", "on", "low", "high", "swap", "discard", "ready", "help", "quit",
         "as", "qh", "jk"}   # the moves and cards typed at the terminal, the same in every language (cli.HELP)
# Names, environment variables, `code`, and the time zone and tools a person types or reads as names.
PRODUCTS = {"table", "nats", "jetstream", "json", "jsonl", "kv", "http", "websocket", "api", "asyncapi", "openapi",
            "prometheus", "url", "lang", "language", "required", "reload", "utc", "pip", "install", "pyarrow"}


def test_no_russian_word_of_the_terminal_is_left_in_latin_letters():
    """Russian leaves no English word behind in Latin letters: only the names a person types or reads as such.
    (Spanish shares the letters: the faces' test checks it against its catalogue.)"""
    names = names_on_the_command_line() | TYPED | PRODUCTS
    latin = {}
    for key, entry in catalogue("ru").items():
        if key.startswith(TERMINAL):
            texts = [entry] if isinstance(entry, str) else list(entry.values())
            if found := {word for text in texts for word in prose(text) if re.fullmatch(r"[a-z]+", word)} - names:
                latin[key] = sorted(found)
    assert latin == {}


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


def problem_codes() -> set[str]:
    """Every `error` a refusal of the gateway's own may carry, as services/gateway/problems.py lists them."""
    table = (ROOT / "services" / "gateway" / "problems.py").read_text().split('"""')[1]
    listed = {code for row in re.findall(r"^\| \d{3} \| ([\w, ]+?) \|", table, re.M) for code in row.split(", ")}
    return listed | {"http_error", "internal_error"}   # starlette's other statuses; a fault of the gateway's own


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_refusal_of_the_gateway_a_page_may_meet_reads_in_the_readers_language(language):
    """A page says a Problem (or a WebSocket's close) by its code, `problem.<error>`, never by its English detail."""
    codes = problem_codes()
    assert {"token_expired", "invalid_game", "too_many_commands", "seat_taken"} <= codes
    assert missing(language, sorted(f"problem.{code}" for code in codes) + ["problem.other"]) == []


def test_words_js_reads_the_same_placeholders_as_python():
    """The pages fill `{name}` as contracts/languages.py does; words.js says how in one regular expression."""
    assert r"/\{(\w+)\}/g" in (STATIC / "words.js").read_text()
