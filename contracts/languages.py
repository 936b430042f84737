"""The words a person reads, in the three languages of the game's sources: English, Russian, Spanish.

One catalogue per language, contracts/words/<language>.json (README.md there says how to add a
word), read by the terminal, the command line, the gateway (which serves them at /words/<language>)
and the web pages. An entry is a template whose placeholders are `{name}`, or, for a word that
follows a number, an object of its plural forms (CLDR's categories: `one` and `other` in English
and Spanish, `one`, `few` and `many` in Russian), the number being the placeholder `{count}`.

The keys: `reason.<R18 word>` (contracts/reasons.py), `detail.<name>` and `value.<placeholder>.<word>` (a
refusal's detail, contracts/details.py), `problem.<error>` (the gateway's own refusals, on a page), `cli.<NAME>`
(cli/words.py), `tell.<event>`
(the terminal telling a game; `tell.move.<command>` names a refused command, `tell.audit.<finding>` a
replay's fairness problem), `contract.*` (R7's contracts), `web.<name>` (the web pages), and
`argparse.<argparse's own English>` (its `usage:`, `options` and errors, which cli/words.py hands it).
"""
import json
import os
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Final, Literal, get_args

Language = Literal["en", "ru", "es"]
LANGUAGES: Final[tuple[Language, ...]] = get_args(Language)
ENGLISH: Final[Language] = "en"
NAMES: Final[dict[Language, str]] = {"en": "English", "ru": "Русский", "es": "Español"}
"""Each language by its own name, as a switch offers it."""

FOLDER: Final = Path(__file__).parent / "words"
PLACEHOLDER: Final = re.compile(r"\{(\w+)\}")
PLURAL_FORMS: Final[dict[Language, tuple[str, ...]]] = {"en": ("one", "other"), "ru": ("one", "few", "many"),
                                                        "es": ("one", "other")}

Entry = str | dict[str, str]   # a template, or its plural forms by category


@cache
def catalogue(language: Language) -> dict[str, Entry]:
    """Every word of one language, by key."""
    loaded: dict[str, Entry] = json.loads(path(language).read_text(encoding="utf-8"))
    return loaded


def path(language: Language) -> Path:
    return FOLDER / f"{language}.json"


def plural(language: Language, count: int) -> str:
    """CLDR's plural category of a whole number in `language`: `one`, `few`, `many` or `other`."""
    if language == "ru":
        if count % 10 == 1 and count % 100 != 11:
            return "one"
        if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
            return "few"
        return "many"
    return "one" if count == 1 else "other"


def template(language: Language, key: str, count: int | None = None) -> str:
    """The template of `key`, in its plural form for `count` where it has forms; English where `language` lacks it."""
    entry = catalogue(language).get(key)
    if entry is None:
        if language == ENGLISH:
            raise KeyError(f"no word {key!r} in {path(language).name}")
        return template(ENGLISH, key, count)
    if isinstance(entry, str):
        return entry
    form = plural(language, count if count is not None else 0)
    return entry.get(form) or entry.get("other") or entry.get("many", "")


def say(language: Language, key: str, **values: object) -> str:
    """`key` in `language` with its placeholders filled: say("ru", "contract.sets", count=2) == "2 группы"."""
    count = values.get("count")
    return fill(template(language, key, count if isinstance(count, int) else None), values)


def fill(text: str, values: Mapping[str, object]) -> str:
    """Each `{name}` of `text` replaced by its value; the same rule the web pages follow (words.js)."""
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), text)


def placeholders(entry: Entry) -> set[str]:
    """The names a template (or every form of a plural) takes."""
    texts = [entry] if isinstance(entry, str) else list(entry.values())
    return {name for text in texts for name in PLACEHOLDER.findall(text)}


def contract(language: Language, sets: int, runs: int, whole: bool = False) -> str:
    """R7: a hand's contract in words, "1 set + 1 run" in English; R24.6 `whole`: laid with every card."""
    parts = ([say(language, "contract.sets", count=sets)] if sets else []) + (
        [say(language, "contract.runs", count=runs)] if runs else [])
    return say(language, "contract.and").join(parts) + (say(language, "contract.whole") if whole else "")


def supported(tag: str) -> Language | None:
    """The language a tag such as `ru_RU.UTF-8`, `es-MX` or `en` names, if it is one of ours."""
    primary = re.split(r"[-_.@]", tag.strip().lower(), maxsplit=1)[0]
    for language in LANGUAGES:
        if primary == language:
            return language
    return None


def choose(wanted: Iterable[str]) -> Language:
    """The first of `wanted` (tags, the reader's preference first) that is one of ours; else English."""
    for tag in wanted:
        if language := supported(tag):
            return language
    return ENGLISH


def from_environment(environ: Mapping[str, str] = os.environ) -> Language:
    """The language a terminal asks for, as gettext reads it: LANGUAGE's list first, then the first of LC_ALL,
    LC_MESSAGES and LANG that is set; English for C, POSIX or a language not ours."""
    for tag in environ.get("LANGUAGE", "").split(":"):
        if tag and (language := supported(tag)):
            return language
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if environ.get(name):
            return supported(environ[name]) or ENGLISH
    return ENGLISH
