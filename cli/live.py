"""Telling a game as it happens, one line per move, for a person at a terminal."""
from zioncheck.contracts import events as ev
from zioncheck.contracts.reasons import explain, explain_refusal
from zioncheck.domain import GameState
from zioncheck.domain.hands import describe
from zioncheck.domain.seats import left_of_dealer


def narrate(event: ev.Event, state: GameState, hide_draws_from: int | None = None) -> list[str]:
    """Lines for one event; `state` is the game after it. A seat's own draws name their card.

    A refusal says why in words (R18); its detail, which may name the cards a seat holds, is
    shown for the person's own seat only, or for every seat when no person plays.
    """
    match event:
        case ev.GameStarted():
            return [f"Game {event.game_id}: {event.players} players, {event.decks} decks."]
        case ev.HandDealt():
            return ["", f"=== Hand {event.hand}: {describe(event.hand)}; seat {event.dealer} deals, "
                        f"{len(event.hands[0])} cards each; seat {left_of_dealer(event.dealer, len(event.hands))} "
                        f"plays first (twice). Commitment {event.commitment[:16]}..."]
        case ev.StockDrawn():
            shown = f" {event.card}" if event.seat == hide_draws_from else ""
            return [f"  seat {event.seat} draws{shown} from the stock ({len(state.stock)} left)"]
        case ev.DiscardTaken():
            return [f"  seat {event.seat} takes the discard {event.card}"]
        case ev.DiscardClaimed():
            return [f"  seat {event.seat} claims {event.card} out of turn"]
        case ev.ClaimWon():
            return [f"  seat {event.seat} wins the claim on {event.card}"]
        case ev.ClaimFailed():
            return [f"  seat {event.seat}'s claim on {event.card} fails ({event.why.replace('_', ' ')})"]
        case ev.WentDown():
            return [f"  seat {event.seat} GOES DOWN: " + " | ".join(" ".join(m.cards) for m in event.melds)]
        case ev.LaidOff():
            return [f"  seat {event.seat} lays off {event.card} on seat {event.owner}'s meld {event.index}"]
        case ev.JokerSwapped():
            return [f"  seat {event.seat} swaps {event.card} for the joker in seat {event.owner}'s meld {event.index}"]
        case ev.Discarded():
            left = len(state.hands[event.seat])
            return [f"  seat {event.seat} discards {event.card} ({left} card{'s' * (left != 1)} left)"]
        case ev.StockReshuffled():
            return [f"  the pile is reshuffled into a new stock of {len(event.order)}"]
        case ev.StockExhausted():
            return [f"  seat {event.seat} finds no card to draw: the hand ends"]
        case ev.HandEnded():
            who = f"seat {event.winner} goes out" if event.winner is not None else "no winner"
            return [f"--- Hand {event.hand} over: {who}.", table_lines(state), score_line(event)]
        case ev.SeedRevealed():
            return [f"  (hand {event.hand}'s seed revealed: {event.seed[:16]}...)"]
        case ev.GameEnded():
            return ["", "=== Game over. Winner" + ("s" if len(event.winners) > 1 else "") + ": "
                    + ", ".join(f"seat {s}" for s in event.winners)]
        case ev.Rejected():
            mine = hide_draws_from is None or event.seat == hide_draws_from
            why = explain_refusal(event.reason, event.detail) if mine else explain(event.reason)
            return [f"  (refused {event.command} from seat {event.seat}: {why})"]
    return []


def table_lines(state: GameState) -> str:
    melds = [f"    seat {m.owner} #{m.index} {m.kind}: {' '.join(m.cards)}" for m in state.table]
    return "  table:\n" + ("\n".join(melds) if melds else "    (nothing)")


def score_line(event: ev.HandEnded) -> str:
    stuck = f"  stuck: {', '.join(map(str, event.stuck))}" if event.stuck else ""
    return ("  scores: " + "  ".join(f"seat {s}: {p:>3}" for s, p in enumerate(event.scores))
            + "\n  totals: " + "  ".join(f"seat {s}: {t:>3}" for s, t in enumerate(event.totals)) + stuck)
