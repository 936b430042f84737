"""The rules of Zioncheck as pure functions: decide(state, command) and evolve(state, event).

No I/O, no clock, no randomness: deals and reshuffles arrive as data.
"""
from zioncheck.domain.decide import decide
from zioncheck.domain.evolve import evolve, fold
from zioncheck.domain.state import GameState

__all__ = ["GameState", "decide", "evolve", "fold"]
