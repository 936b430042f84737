"""The rules oracle through the wire: a scenario played by the real services over NATS.

The stacked deal goes in as the dealer's deal of a game started `stacked`, the
scenario's seed as the dealer's seed for that hand, and each command as the raw
bytes the scenario gives, handed to the intake exactly as a platform's (bytes that are no
command are refused there, with the refusal the table would give).
"""
import asyncio

from zioncheck.application.scenario import Scenario, result, view
from zioncheck.client import GameClient
from zioncheck.contracts.commands import Deal, StartGame
from zioncheck.services.bus.access import Access
from zioncheck.services.bus.embedded import bus
from zioncheck.services.bus.topology import SEEDS, new_game_id, seed_key
from zioncheck.services.wiring import SERVICES, Services


def run_over_nats(scenario: Scenario, url: str | None, credentials: str | None = None) -> dict:
    with bus(url, credentials) as access:
        return asyncio.run(play(scenario, access))


async def play(s: Scenario, access: Access, services: Services | None = None) -> dict:
    """Play the scenario; starts the services unless running ones are given.

    The oracle stacks the deal and sets the hand's seed itself, which only the operator may do.
    """
    own = services is None
    services = services or await Services().start(SERVICES, access)
    client = await GameClient.connect(access, "operator")
    game = new_game_id("scenario")
    try:
        seeds = await client.js.key_value(SEEDS)
        await seeds.put(seed_key(game, s.hand), f"{s.seed:064x}".encode())
        follower = await client.follow(game)
        start = StartGame(game_id=game, players=s.players, dealer=s.first_dealer, first_hand=s.hand, stacked=True,
                          rules=s.rules)
        await client.play(follower, start)
        deal = Deal(hand=s.hand, hands=s.hands, stock=s.stock, discard=s.discard)
        await follower.outcome(await client.send(game, deal, as_dealer=True))
        results = []
        for index, raw in enumerate(s.commands):
            events = await client.play(follower, bytes(raw))
            results.append(result(index, events))
        await follower.stop()
        return {"results": results, "state": view(follower.state)}
    finally:
        await client.close()
        if own:
            await services.stop()
