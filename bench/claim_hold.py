"""How much R22's claim window lengthens a game of one person and three bots: `python -m bench hold`.

Whole games in process, seats ["person", "greedy", "greedy", "greedy"], the person's seat played by
the greedy bot too (a quick person who never claims). Each time a bot is to draw while the person
may still claim the discard, the window is held `claim_seconds` (the default, 3 s) and the table's
timer releases it (ReleaseWindow, taken here at once): the game is longer by that time, held once
per hold. Against it: the same game's own time at the lobby's pace (each bot move `pace` seconds)
and the person's time to play its turns (PERSON_TURN seconds each, a guess of a quick player).
"""
import random
import statistics

from bench import Row
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import make_bot
from zioncheck.contracts.commands import Limits, ReleaseWindow, StartGame
from zioncheck.contracts.events import Discarded
from zioncheck.domain.claims import held

GAMES = 40
PACE = 0.5          # the lobby's default seconds a bot move
PERSON_TURN = 8.0   # seconds a person takes for a turn (a guess: a quick player)
SEATS = ["person", "greedy", "greedy", "greedy"]
# The holds' share of a one-person game's time that the rule's default (claim_seconds 3) is held to:
# a ceiling on what the window costs people, until a person can answer "no claim" and end a hold early.
TARGET_SHARE = 0.60


def one_game(seed: int) -> dict[str, int]:
    """Holds, bot moves and the person's turns of one game."""
    rng = random.Random(seed)
    bots = [make_bot("greedy", rng) for _ in SEATS]
    game = f"hold-{seed}"
    dealer = Dealer(seeded(seed, game))
    table = InProcessTable(dealer=dealer)
    table.handle(StartGame(game_id=game, players=len(SEATS), seats=SEATS, limits=Limits()))
    counts = {"holds": 0, "bot_moves": 0, "person_turns": 0}
    while not table.state.game_over:
        table.handle(dealer.deal(table.state))
        while not table.state.hand_over:
            state = table.state
            if held(state):
                counts["holds"] += 1
                table.handle(ReleaseWindow(hand=state.hand, turn=state.turn_no))
                continue
            seat = state.turn
            events = table.handle(bots[seat].move(state, seat))
            if seat:
                counts["bot_moves"] += 1
            elif any(isinstance(e, Discarded) for e in events):
                counts["person_turns"] += 1
        table.handle(dealer.reveal(table.state.hand))
    return counts


def run() -> list[Row]:
    games = [one_game(seed) for seed in range(GAMES)]
    holds = statistics.mean(g["holds"] for g in games)
    added = holds * Limits().claim_seconds
    length = statistics.mean(g["bot_moves"] * PACE + g["person_turns"] * PERSON_TURN for g in games)
    load = f"{GAMES} in-process games, 1 person + 3 greedy bots, claim_seconds {Limits().claim_seconds:g}"
    return [Row("claim holds a game (R22)", holds, "holds", load,
                versus=f"+{added:.0f} s a game (bots at {PACE:g} s a move, the person {PERSON_TURN:g} s a turn)"),
            Row("claim holds: their share of a game's time", 100 * added / (length + added), "%", load,
                100 * TARGET_SHARE, f"{added / 60:.0f} of a {(length + added) / 60:.0f}-minute game "
                                    f"(target <= {TARGET_SHARE:.0%})", at_most=True)]


if __name__ == "__main__":
    for row in run():
        print(row)
