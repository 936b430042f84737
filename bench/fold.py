"""Folding a recorded log: evolve over already-decoded entries, as a replay or a follower does."""
from bench import Row, best_rates, corpus
from zioncheck.domain import GameState, evolve

TARGET = 100_000  # events per second
TARGET_OF_DECODE = 0.5  # evolve's rate as a share of msgspec decoding the same log, measured beside it
ROUNDS = 7


def fold_all(games) -> None:
    for entries in games:
        state = GameState()
        for entry in entries:
            state = evolve(state, entry.event)


def run() -> list[Row]:
    games = corpus.entries()
    events = sum(map(len, games))
    rates = best_rates({"fold": (lambda: fold_all(games), events), "decode": corpus.decoding()}, ROUNDS)
    ratio = rates["fold"] / corpus.noted(rates["decode"])
    return [Row("fold", rates["fold"], "events/s", f"evolve over {len(games)} games, {events:,} events", TARGET,
                f"fold/decode = {ratio:.2f}"),
            Row("fold/decode", ratio, "x", "evolve's rate over msgspec decoding the same log, in the same rounds",
                TARGET_OF_DECODE, f"decode {rates['decode']:,.0f} events/s")]
