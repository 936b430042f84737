"""R18: a refusal reads in the reader's language, detail and all (contracts/details.py). Every detail the rules can
write has its template in the catalogues, and a refusal said in Russian or Spanish leaves no English word behind."""
import ast
import importlib
import itertools
import re
from pathlib import Path

import pytest

from zioncheck.application.simulation import play_game
from zioncheck.bots import NAMES as BOTS
from zioncheck.cli import words
from zioncheck.cli.live import narrate
from zioncheck.contracts import details
from zioncheck.contracts.commands import (
    PRESETS,
    ClaimDiscard,
    Discard,
    DrawStock,
    GoDown,
    LayOff,
    Ready,
    Rules,
    SwapJoker,
    TakeDiscard,
)
from zioncheck.contracts.events import GameStarted, Rejected
from zioncheck.contracts.languages import ENGLISH, LANGUAGES, PLACEHOLDER, catalogue, contract, fill, template
from zioncheck.contracts.reasons import REASONS, explain, explain_refusal
from zioncheck.domain import GameState, decide, evolve
from zioncheck.domain.refusal import refusal_of

ROOT = Path(__file__).parent.parent
OTHERS = [language for language in LANGUAGES if language != ENGLISH]
VALUE = "\x00"   # where a detail written in domain/ takes a value


# --- every detail the rules can write -------------------------------------------------------------------------

def _functions(tree: ast.AST) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def _written(node: ast.AST, function: ast.FunctionDef | None, functions: dict, module, depth: int = 0) -> list[str]:
    """Every text `node` may be, with VALUE where a value goes: an f-string's parts, each branch of a conditional,
    a local name's assignment, a module's string constant, a helper's returned f-string."""
    again = lambda inner, where=function: _written(inner, where, functions, module, depth + 1)  # noqa: E731
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else [VALUE]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append([part.value])
                continue
            inner = [VALUE] if part.format_spec is not None else again(part.value)
            if part.conversion == ord("r"):
                inner = [text if VALUE in text else repr(text) for text in inner]
            parts.append(inner)
        return ["".join(texts) for texts in itertools.product(*parts)]
    if isinstance(node, ast.IfExp):
        return again(node.body) + again(node.orelse)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return [text for value in node.values
                for text in (again(value) if isinstance(value, ast.Constant) else [VALUE])]
    if isinstance(node, ast.Name):
        for assigned in ast.walk(function) if function is not None else ():
            if isinstance(assigned, ast.Assign) and any(getattr(t, "id", None) == node.id for t in assigned.targets):
                return again(assigned.value) if isinstance(assigned.value, (ast.JoinedStr, ast.IfExp)) else [VALUE]
        constant = getattr(module, node.id, None)
        return [constant] if isinstance(constant, str) else [VALUE]
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) in functions and depth < 3:
        helper = functions[node.func.id]
        returned = [n.value for n in ast.walk(helper) if isinstance(n, ast.Return) and n.value is not None]
        if len(returned) == 1 and isinstance(returned[0], ast.JoinedStr):
            return again(returned[0], helper)
    return [VALUE]


def details_the_rules_write() -> list[tuple[str, str, str]]:
    """(where, reason, text with VALUE for each value) for each detail a `Refused(reason, detail)` in domain/ writes."""
    found = []
    for path in sorted((ROOT / "domain").rglob("*.py")):
        module = importlib.import_module("zioncheck." + ".".join(path.relative_to(ROOT).with_suffix("").parts))
        tree = ast.parse(path.read_text())
        functions = _functions(tree)
        for imported in ast.walk(tree):   # helpers imported from the rules' other modules (gates.not_held)
            if isinstance(imported, ast.ImportFrom) and (imported.module or "").startswith("zioncheck.domain"):
                source = ROOT / Path(*imported.module.split(".")[1:]).with_suffix(".py")
                theirs = _functions(ast.parse(source.read_text())) if source.exists() else {}
                functions |= {a.name: theirs[a.name] for a in imported.names if a.name in theirs
                              and a.name not in functions}
        parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "Refused" and len(call.args) == 2:
                function = call
                while function is not None and not isinstance(function, ast.FunctionDef):
                    function = parents.get(function)
                found += [(f"{path.relative_to(ROOT)}:{call.lineno}", call.args[0].value, text)
                          for text in _written(call.args[1], function, functions, module)]
    return found


def english_templates() -> dict[str, str]:
    """Each English detail template with VALUE for each placeholder, and its key."""
    found = {}
    for key, entry in catalogue(ENGLISH).items():
        if key.startswith("detail."):
            for text in [entry] if isinstance(entry, str) else entry.values():
                found.setdefault(PLACEHOLDER.sub(VALUE, text), key)
    return found


def template_of(written: str, templates: dict[str, str]) -> str | None:
    """The key of the template a detail written in domain/ is said by: its words, in order, with a value (or words
    the template takes as a value, a field's name say) where the template has a placeholder."""
    if written in templates:
        return templates[written]
    for text, key in templates.items():
        if re.fullmatch(".+?".join(map(re.escape, text.split(VALUE))), written, re.S):
            return key
    return None


def test_r18_every_detail_the_rules_write_has_its_template_in_the_catalogues():
    written = details_the_rules_write()
    assert len(written) > 60
    known = english_templates()
    assert [f"{where} ({reason}): {text.replace(VALUE, '{...}')!r} has no detail.<name> template in en.json"
            for where, reason, text in written if template_of(text, known) is None] == []


# --- said in Russian and Spanish --------------------------------------------------------------------------------

# A value for each placeholder a detail takes: cards, a contract, names a person types or reads as names.
SAMPLES = {"card": "7C", "cards": "5H 6H 8H", "held": "2C 3C JK", "contract": "1 set + 2 runs", "text": "'7X'",
           "command": "Bad_Command", "game": "game-7", "who": "'x-1'", "bots": ", ".join(BOTS),
           "name": "'z-1'", "presets": ", ".join(PRESETS), "limit": "turn_seconds", "commitment": "9f3a1c",
           "seconds": "2.5", "allowed": ", ".join(PRESETS), "given": "'z-2'"}
NAMES = {"person", *BOTS, *PRESETS}
WORD = re.compile(r"[^\W\d_]{2,}")
NOT_A_WORD = re.compile(r"[-/._=@'0-9]")   # ids, numbers, field names, quoted values
CARD = re.compile(details.CARD)


def words_of(text: str) -> set[str]:
    """The words of `text` as a reader reads them, lower-cased: cards, ids, numbers and rules' numbers aside."""
    tokens = [token.strip(".,;:()«»") for token in text.split()]
    return {word.lower() for token in tokens if not NOT_A_WORD.search(token) and not CARD.fullmatch(token)
            for word in WORD.findall(token)}


def vocabulary(language: str) -> set[str]:
    texts = [text for entry in catalogue(language).values() for text in ([entry] if isinstance(entry, str)
                                                                        else entry.values())]
    return {word for text in texts for word in words_of(text)} | NAMES


def samples() -> list[tuple[str, str, dict[str, str]]]:
    """A detail written from each English template (each form, each word a value may be): (key, detail, values)."""
    words = {}
    for key in catalogue(ENGLISH):
        if key.startswith("value."):
            _, name, word = key.split(".", 2)
            words.setdefault(name, []).append(word)
    found = []
    for key, entry in catalogue(ENGLISH).items():
        if not key.startswith("detail."):
            continue
        for count, text in ([(None, entry)] if isinstance(entry, str) else
                            [(1 if form == "one" else 5, form_text) for form, form_text in entry.items()]):
            names = sorted(set(PLACEHOLDER.findall(text)))
            for chosen in itertools.product(*[words.get(name, [None]) for name in names]):
                values = {name: value if value is not None else SAMPLES.get(name, "3")
                          for name, value in zip(names, chosen, strict=True)}
                if count is not None:
                    values["count"] = str(count)
                found.append((key, fill(text, values), values))
    return found


def test_r18_each_detail_template_reads_back_what_the_rules_wrote():
    for key, detail, values in samples():
        assert details.read(detail) == details.Reading(key, values), detail


@pytest.mark.parametrize("language", OTHERS)
def test_r18_every_detail_says_in_russian_or_spanish_the_catalogues_words_and_no_english(language):
    known = vocabulary(language)
    wrong = {}
    for key, detail, values in samples():
        said = details.say(detail, language)
        count = int(values["count"]) if "count" in values else None
        shown = {name: template(language, f"value.{name}.{value}") if f"value.{name}.{value}" in catalogue(language)
                 else value for name, value in values.items()}
        if "contract" in shown:
            shown["contract"] = contract(language, 1, 2)
        assert said == fill(template(language, key, count), shown), key
        if stray := words_of(said) - known:
            wrong[key] = (said, sorted(stray))
    assert wrong == {}


def refusals_of_a_game() -> list:
    """Real refusals: every seat sends every kind of move, right or wrong, at states all through a whole game."""
    log = play_game(["greedy", "random", "greedy"], "5", "game-5",
                    Rules(preset="liverpool")).log + play_game(["greedy", "random"], "6", "game-6").log
    state, found = GameState(), []
    for n, entry in enumerate(log):
        state = evolve(GameState() if isinstance(entry.event, GameStarted) else state, entry.event)
        if n % 7 or not state.started:
            continue
        for seat in range(state.players + 1):
            cards = list(state.hands[seat]) if seat < state.players and state.hands else []
            others = [c for s, hand in enumerate(state.hands) if s != seat for c in hand][:1] or ["AS"]
            for command in [DrawStock(seat=seat), TakeDiscard(seat=seat), ClaimDiscard(seat=seat), Ready(seat=seat),
                            Discard(seat=seat, card=(cards or others)[0]), Discard(seat=seat, card=others[0]),
                            Discard(seat=seat, card="ZZ"), GoDown(seat=seat, melds=[cards[:3]]),
                            GoDown(seat=seat, melds=[[]]), LayOff(seat=seat, target=(0, 0), card=(cards or others)[0]),
                            SwapJoker(seat=seat, target=(0, 0), card=(cards or others)[0])]:
                if refused := refusal_of(decide(state, command)):
                    found.append(refused)
    return found


def test_r18_every_refusal_a_whole_game_gives_reads_in_russian_and_spanish_with_no_english_left():
    refused = refusals_of_a_game()
    assert len({r.reason for r in refused}) >= 12, sorted({r.reason for r in refused})
    unread = sorted({r.detail for r in refused if details.read(r.detail) is None})
    assert unread == [], "a detail the rules wrote that no detail.<name> template reads"
    for language in OTHERS:
        known = vocabulary(language)
        strays = {r.detail: said for r in refused
                  if words_of(said := explain_refusal(r.reason, r.detail, language)) - known}
        assert strays == {}, language


@pytest.mark.parametrize("language", OTHERS)
def test_r18_every_reason_reads_in_the_readers_language_with_each_detail_the_rules_give_it(language):
    """For every R18 reason, each detail the rules write with it (a sample of each), said in Russian or Spanish:
    the reason's sentence, then the detail in the catalogue's words, and no English word left."""
    known, templates = vocabulary(language), english_templates()
    by_reason: dict[str, set[str]] = {reason: set() for reason in REASONS}
    for _, reason, text in details_the_rules_write():
        if key := template_of(text, templates):
            by_reason.setdefault(reason, set()).add(key)
    examples = {key: detail for key, detail, _ in samples()}
    for reason, keys in by_reason.items():
        for key in keys:
            said = explain_refusal(reason, examples[key], language)
            assert said.startswith(explain(reason, language)), said
            assert words_of(said) <= known, (reason, said, sorted(words_of(said) - known))


@pytest.mark.parametrize("language", OTHERS)
def test_r18_the_terminal_tells_a_refusal_in_the_readers_language_detail_and_all(language):
    try:
        words.use(language)
        [line] = narrate(Rejected(seat=0, command="draw_stock", reason="not_your_turn",
                                  detail="it is seat 1's turn, not seat 0's"), GameState(), hide_draws_from=0)
    finally:
        words.use(ENGLISH)
    assert fill(template(language, "detail.not_your_turn"), {"turn": 1, "seat": 0}) in line
    assert words_of(line) <= vocabulary(language), line
