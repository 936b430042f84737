"""R7: the six hands of Zioncheck, their deal sizes and contracts (R24: other games' are in domain/presets.py)."""
from typing import NamedTuple


class Contract(NamedTuple):
    dealt: int
    sets: int
    runs: int
    whole: bool = False   # R24.6: laid with every card at once, going out with no discard


HANDS_PER_GAME = 6   # Zioncheck's; a game's own count is its rules' (GameState.rules.hands)

CONTRACTS: dict[int, Contract] = {
    1: Contract(dealt=10, sets=2, runs=0),
    2: Contract(dealt=10, sets=1, runs=1),
    3: Contract(dealt=10, sets=0, runs=2),
    4: Contract(dealt=10, sets=2, runs=1),
    5: Contract(dealt=11, sets=1, runs=2),
    6: Contract(dealt=14, sets=2, runs=2),
}


def describe(hand: int | Contract) -> str:
    """A contract in words: "1 set + 2 runs" (a Zioncheck hand by number, or any contract)."""
    c = CONTRACTS[hand] if isinstance(hand, int) else hand
    parts = [f"{c.sets} set{'s' * (c.sets > 1)}"] * bool(c.sets) + [f"{c.runs} run{'s' * (c.runs > 1)}"] * bool(c.runs)
    return " + ".join(parts) + (", every card" if c.whole else "")
