"""R18: why a command is refused. A closed set of words, in R18's order of precedence.

A refusal (contracts.events.Rejected) carries one of these words as its `reason`, so a
program can test it, and a `detail` naming the cards and seats involved. `explain`
gives a person the reason in a few plain words, in English, Russian or Spanish
(contracts/words/); `explain_refusal` puts it together with the detail, said in the same language
(contracts/details.py), as a terminal shows it:

    not your turn: it is seat 2's turn, not seat 0's

A reason, once written to a log, stays in this list for as long as logs are read.
"""
from typing import Final, Literal, get_args

from zioncheck.contracts import details
from zioncheck.contracts.languages import ENGLISH, Language, template

Reason = Literal[
    "bad_command", "unknown_seat", "game_over", "hand_over", "not_your_turn",
    "cannot_take_own_discard", "turn_player_cannot_claim", "no_discard",
    "claim_window_closed", "already_claimed", "must_draw_first", "already_drew",
    "already_down", "not_down", "card_not_in_hand", "no_such_meld", "invalid_meld",
    "contract_not_met", "joker_in_set", "no_joker_to_swap", "cannot_lay_off",
    "ambiguous_end", "must_keep_discard",
    # R24.9: a seat that has gone down takes no discard, where the game says so; R24.11: a joker in a run stays
    # on the table, where the game moves it to an end instead.
    "down_cannot_take", "joker_stays",
    # R22: a bot's draw while a discard waits for a person's claim; R23: a ready out of the pause.
    "window_held", "not_paused", "already_ready",
    # A timer the table scheduled, come after the turn or absence it was for ended (R19, R21).
    "timer_stale",
    # Not a player's reason: the table reshuffles (R16) before passing such a draw on.
    "stock_empty",
]

REASONS: Final[tuple[Reason, ...]] = get_args(Reason)
"""Every reason, the one given first when several apply (R18) first."""

# Lower case and no full stop: each reads on its own or before a colon and the detail. Each reason's sentence
# in every language is `reason.<word>` in contracts/words/<language>.json; these are the English ones.
SENTENCES: Final[dict[Reason, str]] = {reason: template(ENGLISH, f"reason.{reason}") for reason in REASONS}


def explain(reason: Reason, language: Language = ENGLISH) -> str:
    """The reason in a few plain words for a person: `not your turn` for not_your_turn, `no es tu turno` in Spanish."""
    return template(language, f"reason.{reason}")


def explain_refusal(reason: Reason, detail: str = "", language: Language = ENGLISH) -> str:
    """The sentence, then the detail; a detail that already opens with the sentence is shown alone.

    The detail is the log's own record, in English, naming the cards and seats involved: in another
    language it is said in that language's words (contracts/details.py), or left out where it has none."""
    sentence = explain(reason, language)
    said = details.say(detail, language) if detail else None
    if not said:
        return sentence
    return said if said.startswith(sentence) else f"{sentence}: {said}"
