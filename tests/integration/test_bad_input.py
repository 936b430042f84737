"""Bad input over the wire gets a refusal with a reason, and the consumer keeps going."""
import pytest

from over_nats import new_game, stacked_game, store
from zioncheck.client import CommandRefused
from zioncheck.contracts.commands import DrawStock, StartGame
from zioncheck.contracts.events import Rejected

HANDS = [["AS", "2S", "9D"], ["3S", "4S", "9C"]]
STOCK = ["5S", "6S", "7S"]


async def refusal(follower, client, data) -> Rejected:
    [event] = await client.play(follower, data)   # refused by the intake or by the table: the same refusal
    assert isinstance(event, Rejected)
    return event


async def test_r18_garbage_unknown_types_and_wrong_seats_are_refused_and_play_goes_on(services, client):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    assert (await refusal(follower, client, b"\x00\xffnot json")).reason == "bad_command"
    assert (await refusal(follower, client, b'{"type": "shuffle_the_deck", "seat": 0}')).reason == "bad_command"
    assert (await refusal(follower, client, b'{"type": "discard", "seat": 0, "card": "ZZ"}')).reason == "bad_command"
    assert (await refusal(follower, client, b'{"type": "draw_stock", "seat": 7}')).reason == "unknown_seat"
    assert (await refusal(follower, client, b'{"type": "draw_stock", "seat": 1}')).reason == "not_your_turn"
    [drawn] = await follower.outcome(await client.send(follower.game, DrawStock(seat=0)))
    assert drawn.card == "5S"
    assert follower.state.hands[0] == ("AS", "2S", "9D", "5S")


async def test_r18_only_the_dealer_may_deal_or_reshuffle(services, client):
    follower = await stacked_game(client, 2, HANDS, STOCK)
    deal = b'{"type": "deal", "hand": 2, "hands": [["AS"], ["2S"]], "stock": []}'
    assert (await refusal(follower, client, deal)).detail.startswith("only the dealer")


async def test_commands_for_a_game_never_started_are_refused_without_creating_a_log(services, client):
    game = new_game()
    follower = await client.follow(game)
    with pytest.raises(CommandRefused) as refused:   # the intake stores no move of a game not in play
        await client.send(game, DrawStock(seat=0))
    assert refused.value.refusal.reason == "no_game"
    # One stored all the same (the house may: the operator's login here) is refused by the table, unlogged.
    [event] = await follower.outcome(await store(client, game, DrawStock(seat=0)))
    assert event.reason == "unknown_seat"
    assert follower.batches == []
    [started] = await follower.outcome(await client.send(game, StartGame(game_id=game, players=2)))
    assert started.players == 2
