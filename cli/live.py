"""Telling a game as it happens, one line per move, for a person at a terminal."""
from collections.abc import Callable

from zioncheck.cli import words
from zioncheck.cli.words import SUIT_SYMBOLS
from zioncheck.contracts import events as ev
from zioncheck.contracts.reasons import explain, explain_refusal
from zioncheck.domain import GameState
from zioncheck.domain.hands import describe
from zioncheck.domain.seats import left_of_dealer

Face = Callable[[str], str]   # a card code ("10H") as the terminal shows it


def letters(card: str) -> str:
    """A card as its code: 10H, JK (R2)."""
    return card


def symbols(card: str) -> str:
    """A card with its suit as a symbol: 10♥, JK."""
    return card[:-1] + SUIT_SYMBOLS[card[-1]] if card[-1:] in SUIT_SYMBOLS and card != "JK" else card


def face_for(stream) -> Face:
    """`symbols` when the stream's encoding carries the suit symbols, else `letters`."""
    try:
        "".join(SUIT_SYMBOLS.values()).encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return letters
    return symbols


def narrate(event: ev.Event, state: GameState, hide_draws_from: int | None = None, face: Face = letters) -> list[str]:
    """Lines for one event; `state` is the game after it. A seat's own draws name their card.

    A refusal says why in words (R18); its detail, which may name the cards a seat holds, is
    shown for the person's own seat only, or for every seat when no person plays. Melds are
    numbered from 1, and each card is shown by `face`.
    """
    show = face
    match event:
        case ev.GameStarted():
            return [f"Game {event.game_id}: {event.players} players, {event.decks} decks."]
        case ev.HandDealt():
            return ["", f"=== Hand {event.hand}: {describe(event.hand)}; seat {event.dealer} deals, "
                        f"{len(event.hands[0])} cards each; seat {left_of_dealer(event.dealer, len(event.hands))} "
                        f"plays first (twice). Commitment {event.commitment[:16]}..."]
        case ev.StockDrawn():
            drawn = f" {show(event.card)}" if event.seat == hide_draws_from else ""
            return [f"  seat {event.seat} draws{drawn} from the stock ({len(state.stock)} left)"]
        case ev.DiscardTaken():
            return [f"  seat {event.seat} takes the discard {show(event.card)}"]
        case ev.DiscardClaimed():
            return [f"  seat {event.seat} claims {show(event.card)} out of turn"]
        case ev.ClaimWon():
            return [f"  seat {event.seat} wins the claim on {show(event.card)}"]
        case ev.ClaimFailed():
            return [f"  seat {event.seat}'s claim on {show(event.card)} fails ({event.why.replace('_', ' ')})"]
        case ev.WentDown():
            return [f"  seat {event.seat} GOES DOWN: " + " | ".join(" ".join(map(show, m.cards)) for m in event.melds)]
        case ev.LaidOff():
            return [f"  seat {event.seat} lays off {show(event.card)} on seat {event.owner}'s meld {event.index + 1}"]
        case ev.JokerSwapped():
            return [f"  seat {event.seat} swaps {show(event.card)} for the joker in seat {event.owner}'s "
                    f"meld {event.index + 1}"]
        case ev.Discarded():
            left = len(state.hands[event.seat])
            return [f"  seat {event.seat} discards {show(event.card)} ({left} card{'s' * (left != 1)} left)"]
        case ev.StockReshuffled():
            return [f"  the pile is reshuffled into a new stock of {len(event.order)}"]
        case ev.StockExhausted():
            return [f"  seat {event.seat} finds no card to draw: the hand ends"]
        case ev.HandEnded():
            who = f"seat {event.winner} goes out" if event.winner is not None else "no winner"
            return [f"--- Hand {event.hand} over: {who}.", table_lines(state, face), score_line(event)]
        case ev.SeedRevealed():
            return [f"  (hand {event.hand}'s seed revealed: {event.seed[:16]}...)"]
        case ev.GameEnded():
            return ["", "=== Game over. Winner" + ("s" if len(event.winners) > 1 else "") + ": "
                    + ", ".join(f"seat {s}" for s in event.winners)]
        case ev.TurnTimedOut():
            return [words.TURN_TIMED_OUT.format(seat=event.seat)]
        case ev.SeatIdle():
            return [words.SEAT_IDLE.format(seat=event.seat)]
        case ev.SeatBack():
            return [words.SEAT_BACK.format(seat=event.seat)]
        case ev.GameAbandoned():
            return ["", words.GAME_ABANDONED_LIVE.format(hand=event.hand)]
        case ev.Rejected():
            mine = hide_draws_from is None or event.seat == hide_draws_from
            why = explain_refusal(event.reason, event.detail) if mine else explain(event.reason)
            return [f"  (refused {event.command} from seat {event.seat}: {why})"]
    return []


def table_lines(state: GameState, face: Face = letters) -> str:
    """The melds on the table, each numbered from 1 among its owner's."""
    melds = [f"    seat {m.owner} #{m.index + 1} {m.kind}: {' '.join(map(face, m.cards))}" for m in state.table]
    return "  table:\n" + ("\n".join(melds) if melds else "    (nothing)")


def score_line(event: ev.HandEnded) -> str:
    stuck = f"  stuck: {', '.join(map(str, event.stuck))}" if event.stuck else ""
    return ("  scores: " + "  ".join(f"seat {s}: {p:>3}" for s, p in enumerate(event.scores))
            + "\n  totals: " + "  ".join(f"seat {s}: {t:>3}" for s, t in enumerate(event.totals)) + stuck)
