"""R12 going down with exactly the contract; R12a two runs of one suit; R6 ambiguous melds; R24.6 a
contract laid whole, which goes out."""
from itertools import combinations

from zioncheck.contracts.commands import GoDown
from zioncheck.contracts.events import AnyEvent, Meld, MeldKind, WentDown
from zioncheck.domain.evolve import evolve
from zioncheck.domain.gates import after_the_draw, card, not_held
from zioncheck.domain.going_out import end_of_hand
from zioncheck.domain.hands import CONTRACTS, Contract, describe
from zioncheck.domain.melds import kinds, run_low, run_suit
from zioncheck.domain.refusal import Refused
from zioncheck.domain.state import GameState, without


def go_down(state: GameState, command: GoDown) -> list[AnyEvent]:
    melds = [[card(c) for c in meld] for meld in command.melds]
    seat = command.seat
    after_the_draw(state, seat)
    if state.down[seat]:
        raise Refused("already_down", f"seat {seat} went down already this hand (R12)")
    laid = [c for meld in melds for c in meld]
    rest = without(state.hands[seat], laid)
    if rest is None:
        raise Refused("card_not_in_hand", not_held(state, seat, laid))
    contract = state.contract
    read = read_contract(contract, melds, state.hand)
    if contract.whole:
        if rest:
            raise Refused("contract_not_met", f"hand {state.hand} is laid whole, every card at once: "
                                              f"{' '.join(rest)} would be left (R24.6)")
        went = WentDown(seat=seat, melds=read)
        return [went, *end_of_hand(evolve(state, went), winner=seat)]   # R24.6: out, with no discard
    if not rest:
        raise Refused("must_keep_discard", "going down must leave a card to discard (R15)")
    return [WentDown(seat=seat, melds=read)]


def read_contract(contract: int | Contract, melds: list[list[str]], hand: int = 0) -> list[Meld]:
    """R12: the melds read as exactly the contract (Zioncheck's hand `contract`, or the contract itself,
    of hand `hand`), or a refusal saying why."""
    readings = [kinds(meld) for meld in melds]
    for meld, read in zip(melds, readings, strict=True):
        if not read:
            raise Refused("invalid_meld", f"not a set or a run: {' '.join(meld) or '(empty)'} (R4, R5)")
    if isinstance(contract, int):
        hand = contract
    contract = CONTRACTS[hand] if isinstance(contract, int) else contract
    wanted = f"hand {hand} needs {describe(contract)}"
    if len(melds) != contract.sets + contract.runs:
        raise Refused("contract_not_met", f"{wanted}, not {len(melds)} melds (R12)")
    either = [i for i, read in enumerate(readings) if len(read) == 2]
    sets_fixed = sum(read == ("set",) for read in readings)
    open_sets = contract.sets - sets_fixed
    if not 0 <= open_sets <= len(either):
        raise Refused("contract_not_met", f"{wanted} (R12)")
    # R6: where either reading would do, the earlier melds count as sets.
    for as_sets in combinations(either, open_sets):
        kind_of: list[MeldKind] = ["set" if i in as_sets or read == ("set",) else "run"
                                   for i, read in enumerate(readings)]
        runs = [meld for meld, kind in zip(melds, kind_of, strict=True) if kind == "run"]
        if not any(runs_connect(a, b) for a, b in combinations(runs, 2)):
            return [Meld(kind=kind, cards=meld) for meld, kind in zip(melds, kind_of, strict=True)]
    raise Refused("contract_not_met", f"{wanted}: two runs of one suit connect into one (R12a)")


def runs_connect(a: list[str], b: list[str]) -> bool:
    """R12a: same-suit runs that touch end to end with fewer than nine cards between them."""
    if run_suit(a) != run_suit(b):
        return False
    low_a, low_b = run_low(a), run_low(b)
    if low_a is None or low_b is None:  # not two runs: nothing to connect
        return False
    high_a, high_b = low_a + len(a) - 1, low_b + len(b) - 1
    touch = high_a + 1 == low_b or high_b + 1 == low_a
    return touch and len(a) + len(b) < 9
