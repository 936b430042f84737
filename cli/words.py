"""What the terminal says to a person, in one place: option help, one-line failures, and the words of
`zioncheck play` (its moves, its screen, its answers), in English, Russian or Spanish.

Each word is `cli.<NAME>` in the catalogues (contracts/words/<language>.json; README.md there says
how to add one) and reads here as `words.NAME`, a str.format template in the language `use` chose
(English until then): `words.REFUSED.format(why=...)`. `say` fills any key of the catalogue.

Melds are numbered from 1 for people, as the web page numbers them; the wire (LayOff.target,
SwapJoker.target) stays 0-based, and cli/moves.py converts. The moves a person types (draw, take,
lay 7C on 1.1, ...) are the same words in every language.

argparse's own words (`usage:`, `options:`, its errors) are `argparse.<its English>` in the
catalogues, keyed by argparse's own text as a gettext catalogue is: argparse asks gettext for
them by name each time it says one, and this module answers in the language in use.
"""
import argparse
import errno
from collections.abc import Mapping, Sequence

from zioncheck.contracts.languages import ENGLISH, LANGUAGES, Language, catalogue, choose, from_environment, template
from zioncheck.contracts.languages import say as say_in

# Suits as a terminal shows them, when its encoding carries these symbols (else the letters).
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}

language: Language = ENGLISH


class UnknownLanguage(ValueError):
    """--lang names a language there is no catalogue for."""


def use(chosen: Language) -> None:
    """Speak `chosen` from now on."""
    global language
    language = chosen


def choose_language(argv: Sequence[str], environ: Mapping[str, str]) -> Language:
    """`--lang L` (or `--lang=L`) anywhere in `argv`, else the environment (LANGUAGE, LC_ALL, LANG); UnknownLanguage
    for a --lang that is not one of ours."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            given = argv[i + 1]
        elif arg.startswith("--lang="):
            given = arg.split("=", 1)[1]
        else:
            continue
        if given not in LANGUAGES:
            raise UnknownLanguage(template(from_environment(environ), "cli.UNKNOWN_LANGUAGE").format(
                languages=", ".join(LANGUAGES), language=given))
        return choose([given])
    return from_environment(environ)


def os_reason(error: OSError) -> str:
    """Why the system refused a file or an address: `cli.OS_<errno name>` where the catalogues have the common
    refusals, else the system's own sentence."""
    key = f"cli.OS_{errno.errorcode.get(error.errno or 0, '')}"
    return template(language, key) if key in catalogue(ENGLISH) else error.strerror or str(error)


def argparse_word(message: str) -> str:
    """One of argparse's own words in the language in use; argparse's English where no catalogue has it."""
    try:
        return template(language, f"argparse.{message}")
    except KeyError:
        return message


def argparse_plural(singular: str, plural: str, count: int) -> str:
    """One of argparse's words that follows a number, in the language in use (gettext's ngettext)."""
    try:
        return template(language, f"argparse.{singular}", count)
    except KeyError:
        return singular if count == 1 else plural


# argparse reads these two names from its own module each time it speaks (`from gettext import gettext as _`).
argparse._ = argparse_word  # type: ignore[attr-defined]
argparse.ngettext = argparse_plural  # type: ignore[attr-defined]


def say(key: str, **values: object) -> str:
    """Any word of the catalogue in the language in use: say("tell.seat", seat=2)."""
    return say_in(language, key, **values)


def __getattr__(name: str) -> str:
    if name.isupper():
        try:
            return template(language, f"cli.{name}")
        except KeyError:
            pass
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
