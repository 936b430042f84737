"""R15 a hand's end and its scores, whether a seat went out or R16's stock ran dry; R17 the game's end."""
from zioncheck.contracts.events import GameEnded, HandEnded
from zioncheck.domain.cards import hand_points
from zioncheck.domain.hands import HANDS_PER_GAME
from zioncheck.domain.state import GameState


def end_of_hand(state: GameState, winner: int | None) -> list[HandEnded | GameEnded]:
    """R15: everyone but the winner scores the cards left in hand; R17 after hand 6."""
    scores = [0 if seat == winner else hand_points(cards) for seat, cards in enumerate(state.hands)]
    totals = [total + score for total, score in zip(state.totals, scores, strict=True)]
    stuck = [seat for seat, down in enumerate(state.down) if not down]
    ended = HandEnded(hand=state.hand, winner=winner, scores=scores, stuck=stuck, totals=totals)
    events: list[HandEnded | GameEnded] = [ended]
    if state.hand >= HANDS_PER_GAME:
        events.append(GameEnded(totals=totals, winners=game_winners(totals)))
    return events


def game_winners(totals: list[int]) -> list[int]:
    """R17: the lowest total wins; a tie is shared."""
    best = min(totals)
    return [seat for seat, total in enumerate(totals) if total == best]
