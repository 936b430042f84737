"""R18: why a command is refused. A closed set of words, in R18's order of precedence.

A refusal (contracts.events.Rejected) carries one of these words as its `reason`, so a
program can test it, and a `detail` naming the cards and seats involved. `explain`
gives a person the reason in a few plain words; `explain_refusal` puts it together
with the detail, as a terminal shows it:

    not your turn: it is seat 2's turn, not seat 0's

A reason, once written to a log, stays in this list for as long as logs are read.
"""
from typing import Final, Literal, get_args

Reason = Literal[
    "bad_command", "unknown_seat", "game_over", "hand_over", "not_your_turn",
    "cannot_take_own_discard", "turn_player_cannot_claim", "no_discard",
    "claim_window_closed", "already_claimed", "must_draw_first", "already_drew",
    "already_down", "not_down", "card_not_in_hand", "no_such_meld", "invalid_meld",
    "contract_not_met", "joker_in_set", "no_joker_to_swap", "cannot_lay_off",
    "ambiguous_end", "must_keep_discard",
    # A timer the table scheduled, come after the turn or absence it was for ended (R19, R21).
    "timer_stale",
    # Not a player's reason: the table reshuffles (R16) before passing such a draw on.
    "stock_empty",
]

REASONS: Final[tuple[Reason, ...]] = get_args(Reason)
"""Every reason, the one given first when several apply (R18) first."""

# Lower case and no full stop: each reads on its own or before a colon and the detail.
SENTENCES: Final[dict[Reason, str]] = {
    "bad_command": "bad command",
    "unknown_seat": "no such seat",
    "game_over": "the game is over",
    "hand_over": "no hand is in play",
    "not_your_turn": "not your turn",
    "cannot_take_own_discard": "you cannot take back your own discard",
    "turn_player_cannot_claim": "on your turn, take the discard instead",
    "no_discard": "the discard pile is empty",
    "claim_window_closed": "too late to claim that card",
    "already_claimed": "you have already claimed that card",
    "must_draw_first": "draw a card first",
    "already_drew": "you have already drawn this turn",
    "already_down": "you have already gone down this hand",
    "not_down": "go down before you lay off",
    "card_not_in_hand": "card not in hand",
    "no_such_meld": "no such meld on the table",
    "invalid_meld": "not a set or a run",
    "contract_not_met": "those melds are not this hand's contract",
    "joker_in_set": "a joker in a set can never be taken",
    "no_joker_to_swap": "no joker there stands for that card",
    "cannot_lay_off": "that card does not fit that meld",
    "ambiguous_end": "say which end of the run",
    "must_keep_discard": "you must keep a card to discard",
    "timer_stale": "that deadline is for a turn that is over",
    "stock_empty": "the stock is empty",
}


def explain(reason: Reason) -> str:
    """The reason in a few plain words for a person: `not your turn` for not_your_turn."""
    return SENTENCES[reason]


def explain_refusal(reason: Reason, detail: str = "") -> str:
    """The sentence, then the detail; a detail that already opens with the sentence is shown alone."""
    sentence = explain(reason)
    if not detail:
        return sentence
    return detail if detail.startswith(sentence) else f"{sentence}: {detail}"
