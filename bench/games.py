"""Whole games in process: 4 greedy seats, six hands each, as `zioncheck simulate` plays them."""
from bench import Row, best_rates, corpus
from zioncheck.application.simulation import play_game

TARGET = 20  # games per second
MOST_DECODED = 60_000  # a game costs at most the decoding of this many events, measured beside it
GAMES, SEED = 30, "bench"
ROUNDS = 5


def play_all() -> None:
    for i in range(GAMES):
        play_game(["greedy"] * 4, SEED, f"{SEED}-{i:05d}")


def run() -> list[Row]:
    rates = best_rates({"games": (play_all, GAMES), "decode": corpus.decoding()}, ROUNDS)
    per_game = corpus.noted(rates["decode"]) / rates["games"]
    return [Row("games", rates["games"], "games/s", f"{GAMES} whole 4-seat greedy games", TARGET,
                f"1 game = decoding {per_game:,.0f} events"),
            Row("game/decode", per_game, "events", "one whole 4-seat greedy game costs as much as decoding this many",
                MOST_DECODED, f"decode {rates['decode']:,.0f} events/s", at_most=True)]
