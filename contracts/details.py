"""R18: a refusal's detail in the reader's language.

The table writes each refusal's detail in English (contracts.events.Rejected.detail): the log's own record,
naming the cards, seats and hands involved, "it is seat 2's turn, not seat 0's". Every sentence the rules
(domain/) can write is a template in the catalogues, `detail.<name>` (contracts/words/), English in en.json
exactly as the table writes it. `read` takes a detail back to its template and the values in it, and `say`
says it again in Russian or Spanish, each value in that language too where it is a word: a run's end or a
move (`value.<placeholder>.<word>`), a contract (R7's words). A detail no template reads (one the intake
wrote about bytes it could not decode, say) has no words in another language: `say` gives None, and the
reason's sentence stands alone, so no English is left in a Russian or Spanish line.

A new refusal's detail in domain/ needs its `detail.` template in all three catalogues;
tests/test_refusal_words.py finds every detail the rules can write and fails naming one without.
"""
import re
from functools import cache
from typing import Final, NamedTuple

from zioncheck.contracts.languages import ENGLISH, PLACEHOLDER, Language, catalogue, contract, fill, template

CARD: Final = r"(?:10|[2-9AJQK])[CDHS]|JK"
CARDS: Final = rf"(?:(?:{CARD})(?: (?:{CARD}))*)?"
# A contract as the rules write it (domain.hands.describe): "2 sets + 1 run", "3 runs, every card".
CONTRACT: Final = re.compile(r"(?:(?P<sets>\d+) sets?)?(?: \+ )?(?:(?P<runs>\d+) runs?)?(?P<whole>, every card)?")
NUMBER: Final = r"-?\d+(?:\.\d+)?"
# What each placeholder of a detail may hold: cards, a contract, or words the table took from a command or its
# own names (a command's type, a game's id, what a start named); any other placeholder is a number.
HOLDS: Final[dict[str, str]] = {
    "card": CARD, "cards": CARDS, "held": CARDS, "contract": r"[^:,]+?(?:, every card)?",
    "text": ".+", "command": r"\w+", "game": r"\S+", "who": ".+?", "bots": ".+?", "name": ".+?", "presets": ".+?",
    "limit": r"\w+", "commitment": r"\w*", "allowed": ".+?", "given": ".+",
}


class Reading(NamedTuple):
    """A detail read: the key of its template and the value of each placeholder, as the English has it."""
    key: str
    values: dict[str, str]


def _words_of_values() -> dict[str, set[str]]:
    """The placeholders whose values are words said in each language: `value.<placeholder>.<word>`."""
    found: dict[str, set[str]] = {}
    for key in catalogue(ENGLISH):
        if key.startswith("value."):
            _, name, word = key.split(".", 2)
            found.setdefault(name, set()).add(word)
    return found


def _pattern(text: str, words: dict[str, set[str]]) -> re.Pattern[str]:
    parts, seen, at = [], set(), 0
    for match in PLACEHOLDER.finditer(text):
        parts.append(re.escape(text[at:match.start()]))
        name = match.group(1)
        if name in seen:
            parts.append(f"(?P={name})")
        else:
            held = "|".join(map(re.escape, sorted(words[name]))) if name in words else HOLDS.get(name, NUMBER)
            parts.append(f"(?P<{name}>{held})")
            seen.add(name)
        at = match.end()
    parts.append(re.escape(text[at:]))
    return re.compile("".join(parts))


@cache
def _templates() -> tuple[tuple[str, re.Pattern[str], int], ...]:
    """Each English detail template's key, its pattern, and how many of its characters are its own (not values):
    where two templates read a detail, the one with more words of its own is the one it was written from."""
    words = _words_of_values()
    found = []
    for key, entry in catalogue(ENGLISH).items():
        if key.startswith("detail."):
            for text in [entry] if isinstance(entry, str) else entry.values():
                found.append((key, _pattern(text, words), len(PLACEHOLDER.sub("", text))))
    return tuple(found)


def read(detail: str) -> Reading | None:
    """The template `detail` was written from, and its values; None when no template reads it."""
    best: tuple[int, Reading] | None = None
    for key, pattern, own in _templates():
        if (match := pattern.fullmatch(detail)) and (best is None or own > best[0]):
            values = match.groupdict()
            if "contract" in values and not _contract(values["contract"]):
                continue
            best = own, Reading(key, values)
    return best[1] if best else None


def _contract(text: str) -> tuple[int, int, bool] | None:
    """A contract as the rules write it: (sets, runs, whole), or None for text that is none."""
    match = CONTRACT.fullmatch(text)
    if not match or not (match["sets"] or match["runs"]):
        return None
    return int(match["sets"] or 0), int(match["runs"] or 0), bool(match["whole"])


def say(detail: str, language: Language) -> str | None:
    """`detail` in `language`: its template there, each value said in that language where it is a word; the
    detail itself in English; None when no template reads it."""
    if language == ENGLISH:
        return detail
    reading = read(detail)
    if reading is None:
        return None
    words = _words_of_values()
    values: dict[str, object] = {}
    for name, value in reading.values.items():
        if name in words:
            values[name] = template(language, f"value.{name}.{value}")
        elif name == "contract":
            sets, runs, whole = _contract(value) or (0, 0, False)
            values[name] = contract(language, sets, runs, whole)
        else:
            values[name] = value
    count = reading.values.get("count")
    return fill(template(language, reading.key, int(count) if count and count.isdigit() else None), values)
