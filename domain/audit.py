"""Checking a log's fairness: every revealed seed matches its commitment and re-derives its deal."""
from typing import Literal, NamedTuple

from zioncheck.contracts import events as ev
from zioncheck.contracts.log import Entry
from zioncheck.domain import GameState, evolve
from zioncheck.domain.fairness import commitment
from zioncheck.domain.seeded import Dealt, deal_from_seed, reshuffle_order

Finding = Literal["never_dealt", "no_commitment", "seed_mismatch", "deal_mismatch", "reshuffle_mismatch"]


class Problem(NamedTuple):
    """A hand that does not check out, and what is wrong with it (each reads `tell.audit.<what>` in words);
    `reshuffle` numbers the reshuffle the seed does not give."""
    hand: int
    what: Finding
    reshuffle: int = 0


class Audit:
    def __init__(self) -> None:
        self.verified: list[int] = []     # hands whose seed, deal and reshuffles all check out
        self.unrevealed: list[int] = []
        self.problems: list[Problem] = []


def audit(entries: list[Entry]) -> Audit:
    result = Audit()
    deals: dict[int, tuple[GameState, ev.HandDealt]] = {}
    reshuffles: dict[int, list[tuple[GameState, ev.StockReshuffled]]] = {}
    state = GameState()
    for entry in entries:
        e = entry.event
        if isinstance(e, ev.HandDealt):
            deals[e.hand] = (state, e)
        elif isinstance(e, ev.StockReshuffled):
            reshuffles.setdefault(e.hand, []).append((state, e))
        elif isinstance(e, ev.SeedRevealed):
            _check_hand(result, e, deals.get(e.hand), reshuffles.get(e.hand, []))
        state = evolve(state, e)
    revealed = {e.event.hand for e in entries if isinstance(e.event, ev.SeedRevealed)}
    result.unrevealed = sorted(set(deals) - revealed)
    return result


def _check_hand(result: Audit, reveal: ev.SeedRevealed, dealt: tuple[GameState, ev.HandDealt] | None,
                reshuffles: list[tuple[GameState, ev.StockReshuffled]]) -> None:
    hand = reveal.hand
    if dealt is None:
        result.problems.append(Problem(hand, "never_dealt"))
        return
    before, deal = dealt
    if not deal.commitment:
        result.problems.append(Problem(hand, "no_commitment"))
        return
    if commitment(reveal.seed) != deal.commitment:
        result.problems.append(Problem(hand, "seed_mismatch"))
        return
    if deal_from_seed(reveal.seed, before, hand) != Dealt(hands=deal.hands, stock=deal.stock, discard=deal.discard):
        result.problems.append(Problem(hand, "deal_mismatch"))
        return
    for state, shuffle in reshuffles:
        if reshuffle_order(reveal.seed, state.reshuffles + 1, len(state.discard) - 1) != shuffle.order:
            result.problems.append(Problem(hand, "reshuffle_mismatch", state.reshuffles + 1))
            return
    result.verified.append(hand)
