"""The expert's choices, measured finely: what each move it weighed is worth with the other seat's cards known.

A 400-game win rate moves by about 2.5 points from one set of deals to another, so it cannot show a change to the
expert worth less than that. This bench looks at the expert's choices one by one instead. It plays GAMES two-seat
games of each preset, the expert against the strong bot (seats swapped game by game), and keeps every position at
which the expert weighed more than one move (bots/expert.py, `choices`), with the other seat's real cards. Each
move weighed there is then played out in TRUTH_WORLDS worlds that deal the other seat its real cards and shuffle
only the stock, the hand played to its end as the expert's worlds play it (bots/rollout.py): its worth, as near as
the rollouts can tell with nothing hidden but the stock's order. The row is the points the expert's choices gain
over the strong bot's moves at those positions, beside what the best move each time would gain (the most a
search could), and what each reading of the search would gain at the same positions (its thresholds, the cards
known taken from the pile): held to losing nothing against the strong bot's moves (at least 0).

    python -m bench positions
"""
import random
from collections import Counter
from multiprocessing import Pool

from bench import Row
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import play_hand
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import expert
from zioncheck.bots.expert import ExpertBot, ahead, apply_move
from zioncheck.bots.rollout import Play
from zioncheck.bots.shortfall import clear_memory
from zioncheck.bots.sight import Sight
from zioncheck.bots.strong import StrongBot
from zioncheck.contracts.commands import Command, Rules, StartGame
from zioncheck.domain.state import GameState

GAMES, TRUTH_WORLDS, SEED, WORKERS = 12, 60, "positions", 2
PRESETS = ("zioncheck", "contract", "liverpool")
Position = tuple[Sight, list[Command], Counter[str], tuple[str, ...], tuple[str, ...]]
# Readings of the search set beside the expert's own at the same positions: (SURE, CONFIRM, cards known)
READINGS = {"without the cards seen taken": (expert.SURE, expert.CONFIRM, False),
            "thresholds 0 and 0": (0.0, 0.0, True)}


class Recording(ExpertBot):
    """The expert, each position it weighs more than one move at kept with what the other seat really holds
    (its cards, the stock): for measuring its choices afterwards, never for making them."""

    def __init__(self, rng: random.Random, positions: list[Position]):
        super().__init__(rng)
        self.positions = positions
        self.state = GameState()   # the table's, as this seat's move is asked for

    def move(self, state: GameState, seat: int) -> Command:
        self.state = state
        return super().move(state, seat)

    def weighed(self, sight: Sight) -> list[Command]:
        options = super().weighed(sight)
        if len(options) > 1:
            self.positions.append((sight, options, Counter(self.taken.known), self.state.hands[1 - sight.seat],
                                   self.state.stock))
        return options


def record(game: tuple[str, int]) -> list[Position]:
    preset, number = game
    positions: list[Position] = []
    game_id, rng = f"{SEED}-{preset}-{number}", random.Random(number)
    bots = [Recording(rng, positions), StrongBot(rng)]
    dealer = Dealer(seeded(SEED, game_id))
    table = InProcessTable(dealer=dealer)
    table.handle(StartGame(game_id=game_id, players=2, rules=Rules(preset=preset)))  # type: ignore[arg-type]
    while not table.state.game_over:
        table.handle(dealer.deal(table.state))
        play_hand(table, bots if number % 2 == 0 else bots[::-1], rng)   # type: ignore[arg-type]
        table.handle(dealer.reveal(table.state.hand))
    return positions


def truth(position: Position) -> list[float]:
    """Each weighed move's worth in TRUTH_WORLDS worlds of the real hidden hand and a shuffled stock."""
    sight, options, _, other, stock = position
    worth = []
    for option in options:
        total = 0.0
        for world in range(TRUTH_WORLDS):
            shuffled = list(stock)
            random.Random(f"{SEED}/{world}").shuffle(shuffled)
            play = Play(sight, [*other, *shuffled], random.Random(f"{SEED}/{world}/play"))
            apply_move(play, option)
            total += ahead(play.finish(), sight.seat)
        worth.append(total / TRUTH_WORLDS)
    return worth


def chosen(reading: tuple[tuple[float, float, bool], Position]) -> int:
    """The option a reading of the search picks at the position."""
    (sure, confirm, known), (sight, options, taken, _, _) = reading
    return options.index(expert.search(sight, options, expert.WORLDS, taken if known else None, sure, confirm))


def gain(worths: list[list[float]], picks: list[int]) -> float:
    """Points a 100 positions the picks gain over the strong bot's moves (each position's first option)."""
    return 100 * sum(worth[k] - worth[0] for worth, k in zip(worths, picks, strict=True)) / len(worths)


def run() -> list[Row]:
    rows = []
    with Pool(WORKERS, initializer=clear_memory) as pool:
        for preset in PRESETS:
            positions = [p for found in pool.map(record, [(preset, n) for n in range(GAMES)]) for p in found]
            worths = pool.map(truth, positions, chunksize=4)
            readings = {"the expert": (expert.SURE, expert.CONFIRM, True), **READINGS}
            gains = {name: gain(worths, pool.map(chosen, [(reading, p) for p in positions]))
                     for name, reading in readings.items()}
            best = gain(worths, [max(range(len(w)), key=w.__getitem__) for w in worths])
            others = ", ".join(f"{name} {value:+.1f}" for name, value in gains.items() if name != "the expert")
            rows.append(Row(f"expert's choices over the strong bot's, {preset}", gains["the expert"],
                            "points a 100 positions", f"{len(positions):,} positions of {GAMES} games, "
                            f"{TRUTH_WORLDS} worlds a move", 0.0, f"best move {best:+.0f}; {others}"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
