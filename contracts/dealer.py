"""The table's request to the dealer for an R16 reshuffle (request/reply on zc.dealer.reshuffle)."""
import msgspec


class ReshuffleRequest(msgspec.Struct, frozen=True):
    game_id: str
    hand: int
    reshuffle: int   # 1 for the hand's first reshuffle
    count: int       # cards below the top of the pile
    log_seq: int = 0  # the game's last log message the table folded: the dealer reads at least that far


class ReshuffleRefused(msgspec.Struct, frozen=True, tag="reshuffle_refused"):
    """The dealer's answer when the asked reshuffle is not due: no order is given out."""
    reason: str
