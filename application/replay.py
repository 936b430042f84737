"""Replaying a log: fold it, tell the game hand by hand, hash the final state."""
import hashlib

import msgspec

from zioncheck.contracts import events as ev
from zioncheck.contracts.log import Entry
from zioncheck.domain import GameState, evolve
from zioncheck.domain.hands import describe


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
    return hashlib.sha256(msgspec.json.encode(canonical)).hexdigest()


def story(entries: list[Entry]) -> list[str]:
    """The game told hand by hand: deals, going down, claims, swaps, outcomes."""
    lines: list[str] = []
    for entry in entries:
        e = entry.event
        line = _line(e)
        if line:
            lines.append(line)
    return lines


def _line(e: ev.Event) -> str | None:
    match e:
        case ev.GameStarted():
            return f"game {e.game_id}: {e.players} players, {e.decks} decks, seat {e.dealer} deals first"
        case ev.HandDealt():
            return f"\nhand {e.hand} ({describe(e.hand)}), dealer seat {e.dealer}, stock {len(e.stock)}"
        case ev.WentDown():
            return f"  seat {e.seat} went down: " + " | ".join(" ".join(m.cards) for m in e.melds)
        case ev.TurnTimedOut():
            return f"  seat {e.seat}'s turn ran out: a bot plays it"
        case ev.SeatIdle():
            return f"  seat {e.seat} is away: a bot keeps the seat"
        case ev.SeatBack():
            return f"  seat {e.seat} is back"
        case ev.GameAbandoned():
            return f"\ngame abandoned in hand {e.hand}: no one was left at the table"
        case ev.ClaimWon():
            return f"  seat {e.seat} claimed {e.card}"
        case ev.JokerSwapped():
            return f"  seat {e.seat} swapped {e.card} for a joker in seat {e.owner}'s meld {e.index + 1}"
        case ev.StockReshuffled():
            return f"  the pile was reshuffled into a stock of {len(e.order)}"
        case ev.HandEnded():
            outcome = f"seat {e.winner} went out" if e.winner is not None else "the stock ran dry, no winner"
            stuck = f"; stuck: {', '.join(map(str, e.stuck))}" if e.stuck else ""
            return f"  {outcome}; scores {e.scores}{stuck}; totals {e.totals}"
        case ev.GameEnded():
            return f"\ngame over: totals {e.totals}; winner{'s' * (len(e.winners) > 1)}: " + ", ".join(
                f"seat {s}" for s in e.winners)
    return None
