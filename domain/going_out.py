"""R15 a hand's end and its scores, whether a seat went out or R16's stock ran dry; R17 the game's end,
after its last hand (R24.1); R23 the pause before the next hand."""
from zioncheck.contracts.events import GameEnded, HandEnded, PauseEnded
from zioncheck.domain.cards import hand_points
from zioncheck.domain.state import GameState


def end_of_hand(state: GameState, winner: int | None) -> list[HandEnded | GameEnded | PauseEnded]:
    """R15: everyone but the winner scores the cards left in hand; R17 after hand 6; R23: with no
    person at the table to wait for (or no pause set), the next hand is dealt at once. R24.3: the game's
    card values."""
    pips = state.rules.pips
    scores = [0 if seat == winner else hand_points(cards, pips) for seat, cards in enumerate(state.hands)]
    totals = [total + score for total, score in zip(state.totals, scores, strict=True)]
    stuck = [seat for seat, down in enumerate(state.down) if not down]
    ended = HandEnded(hand=state.hand, winner=winner, scores=scores, stuck=stuck, totals=totals,
                      hands=[list(cards) for cards in state.hands])
    events: list[HandEnded | GameEnded | PauseEnded] = [ended]
    if state.last_hand:
        events.append(GameEnded(totals=totals, winners=game_winners(totals)))
    elif not state.stacked and not any(state.present(seat) for seat in range(state.players)):
        events.append(PauseEnded(hand=state.hand, why="nobody"))
    elif not state.stacked and not state.limits.pause_seconds:
        events.append(PauseEnded(hand=state.hand, why="timer"))
    return events


def pausing(state: GameState) -> bool:
    """R23: a hand the dealer service dealt has ended and the next waits: for its pause to run, or for
    every person to say ready."""
    return (state.started and state.hand_over and state.scores is not None and not state.game_over
            and not state.stacked and not state.pause_over)


def game_winners(totals: list[int]) -> list[int]:
    """R17: the lowest total wins; a tie is shared."""
    best = min(totals)
    return [seat for seat, total in enumerate(totals) if total == best]
