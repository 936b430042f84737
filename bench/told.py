"""The expert's search told the other seat's cards: how far its worlds, rather than its play, keep it from its target.

The expert (bots/expert.py) deals the cards its seat has not seen at random, less those it saw the other seat take
(`Taken`). Here the same search, the same moves weighed, the same thresholds and rollouts, is told the other seat's
real hand at each decision and deals it to that seat in every world; only the stock is left to chance. It plays
the first GAMES games of `bench bots`' expert rows (the same game ids: GAMES / 2 deals, each with the seats swapped)
against the strong bot, and the row is how often it has the lowest total, held to the expert's target (55%): whether the
search would reach it if its worlds held the real cards. It reads a hidden hand, so it is a measure of the search,
never a bot anyone can seat:

    python -m bench told
"""
import random
import sys
import time
from collections import Counter
from multiprocessing import Pool

from bench import Row
from bench.bots import EXPERT_TARGET, PRESETS, SEED, WORKERS, paired, rate_row
from zioncheck.application.simulation import play_game
from zioncheck.bots.expert import ExpertBot, search
from zioncheck.bots.shortfall import clear_memory
from zioncheck.bots.sight import Sight
from zioncheck.bots.strong import StrongBot
from zioncheck.contracts.commands import Command, Rules
from zioncheck.domain.state import GameState

GAMES = 200


class Told(ExpertBot):
    """The expert's search with the other seat's real hand dealt to it in every world (read from the game's state
    as each move is asked for): a measure of the search, never a player."""

    def __init__(self, rng: random.Random):
        super().__init__(rng)
        self.other: Counter[str] = Counter()

    def move(self, state: GameState, seat: int) -> Command:
        self.other = Counter(state.hands[1 - seat])
        return super().move(state, seat)

    def decide(self, sight: Sight) -> Command:
        options = self.weighed(sight)
        return options[0] if len(options) < 2 else search(sight, options, self.worlds, self.other)


def play(game: tuple[tuple[str, ...], str, str]) -> bool:
    """One of `bench bots`' expert games with the told search in the expert's seat: whether that seat has the
    lowest total (a tie on the lowest counts, as there)."""
    names, game_id, preset = game
    table = play_game(list(names), SEED, game_id, Rules(preset=preset),  # type: ignore[arg-type]
                      lambda name, rng: Told(rng) if name == "expert" else StrongBot(rng))
    return names.index("expert") in table.state.winners


def run(games: int = GAMES) -> list[Row]:
    rows = []
    with Pool(WORKERS, initializer=clear_memory) as pool:
        for preset in PRESETS:
            started = time.monotonic()
            won = sum(pool.imap(play, paired("expert", "strong", games, preset)))
            print(f"told: {preset}, {games} games, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
            rows.append(rate_row(f"expert told the other seat's cards, {preset}, 2 seats vs strong", won, games,
                                 EXPERT_TARGET, "bench bots' expert row: the same deals, the cards unknown"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
