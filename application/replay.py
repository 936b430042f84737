"""Replaying a log: fold it and hash the final state (`zioncheck replay` tells it, in the reader's words)."""
import hashlib

import msgspec

from zioncheck.contracts.log import Entry
from zioncheck.domain import GameState, evolve
from zioncheck.domain.presets import ZIONCHECK, hashed


def fold_log(entries: list[Entry]) -> GameState:
    state = GameState()
    for entry in entries:
        state = evolve(state, entry.event)
    return state


def state_hash(state: GameState) -> str:
    """SHA-256 of the game's canonical JSON: everything a player could ask about, in a fixed shape.

    It hashes what the game is, not how GameState stores it, so a refactor of the
    state keeps the hashes of old logs.
    """
    canonical = {
        "game_id": state.game_id, "players": state.players, "decks": state.decks, "hand": state.hand,
        "dealer": state.dealer, "turn": state.turn, "drawn": state.drawn,
        "hands": [sorted(h) for h in state.hands], "stock": list(state.stock), "discard": list(state.discard),
        "table": [[m.owner, m.index, m.kind, list(m.cards)] for m in state.table],
        "down": list(state.down), "hand_over": state.hand_over, "winner": state.winner,
        "scores": state.scores, "stuck": list(state.stuck), "totals": list(state.totals),
        "game_over": state.game_over, "winners": list(state.winners),
        "commitments": list(state.commitments), "seeds": list(state.seeds),
    }
    # R20, R21: named only when they happened, so the hashes of games before them stand.
    if any(state.idle):
        canonical["idle"] = list(state.idle)
    if state.abandoned:
        canonical["abandoned"] = True
    # R24: the game played, named only when it is not Zioncheck, so the hashes of Zioncheck games stand; the
    # readings of its house options (R24.5, R24.9-R24.11) only where a house changed them, likewise.
    if state.rules != ZIONCHECK:
        canonical["rules"] = hashed(state.rules)
    return hashlib.sha256(msgspec.json.encode(canonical)).hexdigest()
