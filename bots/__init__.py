"""Bots that play Zioncheck: by name, for the simulator and the services."""
import random

from zioncheck.bots.base import Bot
from zioncheck.bots.expert import ExpertBot
from zioncheck.bots.greedy import GreedyBot
from zioncheck.bots.random_bot import RandomBot
from zioncheck.bots.strong import StrongBot

NAMES = ("greedy", "random", "strong", "expert")


def make_bot(name: str, rng: random.Random) -> Bot:
    if name == "greedy":
        return GreedyBot(rng)
    if name == "random":
        return RandomBot(rng)
    if name == "strong":
        return StrongBot(rng)
    if name == "expert":
        return ExpertBot(rng)
    raise ValueError(f"unknown bot {name!r} (choose from {', '.join(NAMES)})")
