"""decide(state, command) -> events: the Decider's entry point (R18 for every refusal)."""
from contracts import commands as cmd
from contracts.events import Rejected
from domain.claims import claim
from domain.dealing import deal, reshuffle, reveal_seed, start_game
from domain.drawing import draw_stock, take_discard
from domain.going_down import go_down
from domain.going_out import discard
from domain.joker_swap import swap_joker
from domain.laying_off import lay_off
from domain.refusal import Refused
from domain.state import GameState

_DECIDE = {
    cmd.StartGame: start_game, cmd.Deal: deal, cmd.Reshuffle: reshuffle, cmd.RevealSeed: reveal_seed,
    cmd.DrawStock: draw_stock, cmd.TakeDiscard: take_discard, cmd.ClaimDiscard: claim,
    cmd.GoDown: go_down, cmd.LayOff: lay_off, cmd.SwapJoker: swap_joker, cmd.Discard: discard,
}


def decide(state: GameState, command: cmd.Command) -> list:
    """Events that happen, or a single Rejected(reason) (R18). Never raises."""
    decide_ = _DECIDE.get(type(command))
    try:
        if decide_ is None:
            raise Refused("bad_command", f"unknown command {type(command).__name__}")
        return decide_(state, command)
    except Refused as refusal:
        return [rejection(command, refusal.reason, refusal.detail)]


def rejection(command: object, reason: str, detail: str = "") -> Rejected:
    config = getattr(type(command), "__struct_config__", None)
    name = config.tag if config is not None and isinstance(config.tag, str) else type(command).__name__
    return Rejected(seat=getattr(command, "seat", None), command=name, reason=reason, detail=detail)
