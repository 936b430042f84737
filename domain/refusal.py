"""R18: why a command is refused, in order of precedence."""

REASONS = (
    "bad_command", "unknown_seat", "game_over", "hand_over", "not_your_turn",
    "cannot_take_own_discard", "turn_player_cannot_claim", "no_discard",
    "claim_window_closed", "already_claimed", "must_draw_first", "already_drew",
    "already_down", "not_down", "card_not_in_hand", "no_such_meld", "invalid_meld",
    "contract_not_met", "joker_in_set", "no_joker_to_swap", "cannot_lay_off",
    "ambiguous_end", "must_keep_discard",
    # Not a player's reason: the table reshuffles (R16) before passing such a draw on.
    "stock_empty",
)


class Refused(Exception):
    """Raised by a check; decide turns it into a Rejected event (R18)."""

    def __init__(self, reason: str, detail: str = ""):
        assert reason in REASONS, reason
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail
