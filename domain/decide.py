"""decide(state, command) -> events: the Decider's entry point (R18 for every refusal)."""
from collections.abc import Callable
from typing import Any, TypeVar

from zioncheck.contracts import commands as cmd
from zioncheck.contracts.events import AnyEvent, Rejected
from zioncheck.contracts.log import tag_of
from zioncheck.contracts.reasons import Reason
from zioncheck.domain.claims import claim
from zioncheck.domain.dealing import deal, reshuffle, reveal_seed, start_game
from zioncheck.domain.discarding import discard
from zioncheck.domain.drawing import draw_stock, take_discard
from zioncheck.domain.going_down import go_down
from zioncheck.domain.joker_swap import swap_joker
from zioncheck.domain.laying_off import lay_off
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import GameState
from zioncheck.domain.timers import abandon_game, back, end_pause, ready, release_window, turn_timeout

C = TypeVar("C", bound=cmd.Command)
Decider = Callable[[GameState, Any], list[AnyEvent]]   # takes the command type it is listed under


def _for(kind: type[C], decider: Callable[[GameState, C], list[AnyEvent]]) -> tuple[type[cmd.Command], Decider]:
    """One entry of DECIDERS; the type checker sees that `decider` takes a `kind`."""
    return kind, decider


# One decider per command type of cmd.AnyCommand (tests/unit/test_completeness.py checks none is missing).
DECIDERS: dict[type[cmd.Command], Decider] = dict([
    _for(cmd.StartGame, start_game), _for(cmd.Deal, deal), _for(cmd.Reshuffle, reshuffle),
    _for(cmd.RevealSeed, reveal_seed), _for(cmd.DrawStock, draw_stock), _for(cmd.TakeDiscard, take_discard),
    _for(cmd.ClaimDiscard, claim), _for(cmd.GoDown, go_down), _for(cmd.LayOff, lay_off),
    _for(cmd.SwapJoker, swap_joker), _for(cmd.Discard, discard),
    _for(cmd.TurnTimeout, turn_timeout), _for(cmd.AbandonGame, abandon_game),
    _for(cmd.ReleaseWindow, release_window), _for(cmd.EndPause, end_pause), _for(cmd.Ready, ready),
])


def decide(state: GameState, command: cmd.Command) -> list[AnyEvent]:
    """Events that happen, or a single Rejected(reason) (R18). Never raises.

    A seat's own accepted command brings its person back first (R20).
    """
    return back(state, command, decide_move(state, command))


def decide_move(state: GameState, command: cmd.Command) -> list[AnyEvent]:
    """`decide` as for a bot standing in for the seat's person (R19): no one comes back."""
    decide_ = DECIDERS.get(type(command))
    try:
        if decide_ is None:
            raise Refused("bad_command", f"unknown command {type(command).__name__}")
        return decide_(state, command)
    except Refused as refusal:
        return [rejection(command, refusal.reason, refusal.detail)]


def rejection(command: object, reason: Reason, detail: str = "") -> Rejected:
    return Rejected(seat=getattr(command, "seat", None), command=tag_of(command), reason=reason, detail=detail)
