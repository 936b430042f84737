"""What the scoring service publishes: per-hand scores and a game's standings."""
import msgspec


class HandScored(msgspec.Struct, frozen=True, tag="hand_scored"):
    """On zc.score.<game>, once per hand (R15, R16)."""
    game_id: str
    hand: int
    scores: list[int]
    totals: list[int]
    winner: int | None
    stuck: list[int]
    v: int = 1


class Standings(msgspec.Struct, frozen=True):
    """The KV zc_standings value for a game: recomputable from its log at any time (R17)."""
    game_id: str
    players: int
    hands: list[list[int]] = []
    totals: list[int] = []
    winners: list[int] = []
    over: bool = False
    abandoned: bool = False   # R21: over with no person left, after the hands in `hands`
    log_seq: int = 0
    v: int = 1
