"""R7: the six hands of a game, their deal sizes and contracts."""
from typing import NamedTuple


class Contract(NamedTuple):
    dealt: int
    sets: int
    runs: int


HANDS_PER_GAME = 6

CONTRACTS: dict[int, Contract] = {
    1: Contract(dealt=10, sets=2, runs=0),
    2: Contract(dealt=10, sets=1, runs=1),
    3: Contract(dealt=10, sets=0, runs=2),
    4: Contract(dealt=10, sets=2, runs=1),
    5: Contract(dealt=11, sets=1, runs=2),
    6: Contract(dealt=14, sets=2, runs=2),
}


def describe(hand: int) -> str:
    c = CONTRACTS[hand]
    parts = [f"{c.sets} set{'s' * (c.sets > 1)}"] * bool(c.sets) + [f"{c.runs} run{'s' * (c.runs > 1)}"] * bool(c.runs)
    return " + ".join(parts)
