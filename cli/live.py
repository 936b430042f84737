"""Telling a game as it happens, one line per move, for a person at a terminal."""
from collections.abc import Callable

from zioncheck.cli import words
from zioncheck.cli.words import SUIT_SYMBOLS
from zioncheck.contracts import events as ev
from zioncheck.contracts.languages import ENGLISH, catalogue, contract
from zioncheck.contracts.reasons import explain, explain_refusal
from zioncheck.domain import GameState
from zioncheck.domain.going_out import pausing
from zioncheck.domain.presets import ZIONCHECK
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
    numbered from 1, and each card is shown by `face`. The words are the terminal's language (cli/words.py).
    """
    show, say = face, words.say
    match event:
        case ev.GameStarted():
            if state.rules == ZIONCHECK:
                return [say("tell.game_started", game=event.game_id, players=event.players, decks=event.decks)]
            return [say("tell.game_started_rules", game=event.game_id, rules=game_name(state),
                        hands=state.rules.hands, players=event.players, decks=event.decks)]
        case ev.HandDealt():
            told = dict(hand=event.hand, contract=contract_words(state, event.hand), dealer=event.dealer,
                        size=len(event.hands[0]), first=left_of_dealer(event.dealer, len(event.hands)),
                        commitment=event.commitment[:16])
            if state.rules.upcard and event.discard:   # R24.4: the deal turned up the pile's first card
                return ["", say("tell.hand_dealt_upcard", upcard=show(event.discard[-1]), **told)]
            return ["", say("tell.hand_dealt", **told)]
        case ev.StockDrawn():
            if event.seat == hide_draws_from:
                return ["  " + say("tell.stock_drawn_card", seat=event.seat, card=show(event.card),
                                   left=len(state.stock))]
            return ["  " + say("tell.stock_drawn", seat=event.seat, left=len(state.stock))]
        case ev.DiscardTaken():
            return ["  " + say("tell.discard_taken", seat=event.seat, card=show(event.card))]
        case ev.DiscardClaimed():
            return ["  " + say("tell.discard_claimed", seat=event.seat, card=show(event.card))]
        case ev.ClaimWon():
            return ["  " + say("tell.claim_won", seat=event.seat, card=show(event.card))]
        case ev.ClaimFailed():
            return ["  " + say("tell.claim_failed", seat=event.seat, card=show(event.card),
                               why=say(f"tell.why.{event.why}"))]
        case ev.WentDown():
            melds = " | ".join(" ".join(map(show, m.cards)) for m in event.melds)
            return ["  " + say("tell.went_down", seat=event.seat, melds=melds)]
        case ev.LaidOff() if isinstance(event.position, int):   # R24.11: the joker moved to an end
            return ["  " + say("tell.joker_moved", seat=event.seat, card=show(event.card), owner=event.owner,
                               meld=event.index + 1, end=say(f"tell.end.{event.end}"))]
        case ev.LaidOff():
            return ["  " + say("tell.laid_off", seat=event.seat, card=show(event.card), owner=event.owner,
                               meld=event.index + 1)]
        case ev.JokerSwapped():
            return ["  " + say("tell.joker_swapped", seat=event.seat, card=show(event.card), owner=event.owner,
                               meld=event.index + 1)]
        case ev.Discarded():
            return ["  " + say("tell.discarded", seat=event.seat, card=show(event.card),
                               count=len(state.hands[event.seat]))]
        case ev.StockReshuffled():
            return ["  " + say("tell.stock_reshuffled", count=len(event.order))]
        case ev.StockExhausted():
            return ["  " + say("tell.stock_exhausted", seat=event.seat)]
        case ev.HandEnded():
            ended = (say("tell.hand_won", hand=event.hand, seat=event.winner) if event.winner is not None
                     else say("tell.hand_dry", hand=event.hand))
            shown = [say("tell.hand_shown", seat=seat, cards=" ".join(map(face, cards)))   # R15: face up at scoring
                     for seat, cards in enumerate(event.hands) if cards]
            waits = pausing(state) and state.limits.pause_seconds and state.present(hide_draws_from or 0)
            hint = [say("tell.ready_hint")] if hide_draws_from is not None and waits else []   # R23, to the person
            return [ended, table_lines(state, face), *shown, score_line(event), *hint]
        case ev.SeedRevealed():
            return ["  " + say("tell.seed_revealed", hand=event.hand, seed=event.seed[:16])]
        case ev.GameEnded():
            return ["", say("tell.game_ended", count=len(event.winners), seats=seats(event.winners))]
        case ev.TurnTimedOut():
            return [say("tell.turn_timed_out", seat=event.seat)]
        case ev.SeatIdle():
            return [say("tell.seat_idle", seat=event.seat)]
        case ev.SeatBack():
            return [say("tell.seat_back", seat=event.seat)]
        case ev.GameAbandoned():
            return ["", say("tell.game_abandoned", hand=event.hand)]
        case ev.SeatReady():
            return [say("tell.seat_ready", seat=event.seat)]
        case ev.PauseEnded() if event.why != "nobody":
            return [say("tell.pause_ended", hand=event.hand)]
        case ev.Rejected():
            mine = hide_draws_from is None or event.seat == hide_draws_from
            why = (explain_refusal(event.reason, event.detail, words.language) if mine
                   else explain(event.reason, words.language))
            return ["  " + say("tell.rejected", command=move_name(event.command), seat=event.seat, why=why)]
    return []


def move_name(command: str) -> str:
    """A command by its name in words ("the draw" for draw_stock); a name no command has (the log
    keeps what unreadable bytes said they were) as it is."""
    return words.say(f"tell.move.{command}") if f"tell.move.{command}" in catalogue(ENGLISH) else command


def table_lines(state: GameState, face: Face = letters) -> str:
    """The melds on the table, each numbered from 1 among its owner's."""
    say = words.say
    melds = ["    " + say("tell.meld", owner=m.owner, meld=m.index + 1, kind=say(f"kind.{m.kind}"),
                          cards=" ".join(map(face, m.cards))) for m in state.table]
    return "  " + say("tell.table") + "\n" + ("\n".join(melds) if melds else "    " + say("tell.no_melds"))


def seats(numbers) -> str:
    """Seats by number, as a line names them: "seat 1, seat 3"."""
    return ", ".join(words.say("tell.seat", seat=s) for s in numbers)


def score_line(event: ev.HandEnded) -> str:
    say = words.say
    stuck = "  " + say("tell.stuck", seats=", ".join(map(str, event.stuck))) if event.stuck else ""
    return ("  " + say("tell.scores") + " " + "  ".join(say("tell.seat_points", seat=s, points=f"{p:>3}")
                                                        for s, p in enumerate(event.scores))
            + "\n  " + say("tell.totals") + " " + "  ".join(say("tell.seat_points", seat=s, points=f"{t:>3}")
                                                           for s, t in enumerate(event.totals)) + stuck)


def contract_words(state: GameState, hand: int) -> str:
    """R7, R24.1: hand `hand`'s contract in the game's rules, in words."""
    c = state.rules.contract(hand)
    return contract(words.language, c.sets, c.runs, c.whole) if c else ""


def game_name(state: GameState) -> str:
    """R24: the game played, in words ("Liverpool rummy")."""
    return words.say(f"game.{state.rules.preset}")
