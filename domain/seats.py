"""R8: seats round the table, numbered 0, 1, 2, ... clockwise, each on the left of the one before.

Every count round the table is one of these, so no rule does its own sums modulo the players.
"""


def next_seat(seat: int, players: int) -> int:
    """The seat on `seat`'s left, where play and the deal go next; after the last seat comes seat 0."""
    return (seat + 1) % players


def seat_after(seat: int, places: int, players: int) -> int:
    """The seat `places` seats clockwise from `seat` (anticlockwise for a negative number)."""
    return (seat + places) % players


def clockwise(from_seat: int, to_seat: int, players: int) -> int:
    """How many seats clockwise `to_seat` sits from `from_seat`: 0 for the seat itself, at most players - 1."""
    return (to_seat - from_seat) % players


def left_of_dealer(dealer: int, players: int) -> int:
    """R8: a hand's first player, on the dealer's left."""
    return next_seat(dealer, players)
