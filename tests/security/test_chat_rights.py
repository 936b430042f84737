"""A game's chat belongs to the gateway on the bus: no other login hears a line, or says one as a seat, against a
real nats-server running the shipped users and permissions."""
import msgspec
import pytest
from nats.errors import TimeoutError as NatsTimeout

from over_nats import new_game
from zioncheck.services.bus.topology import CHAT_SUBJECTS, chat_subject
from zioncheck.services.gateway.wire import ChatLine

pytestmark = pytest.mark.security

NOT_THE_GATEWAY = ("platform", "spectator", "bots", "table", "dealer", "scoring", "projector", "intake")


async def test_no_login_but_the_gateways_hears_a_games_chat_or_says_a_line_in_it(nats_server, login):
    game = new_game()
    gateway = await login("gateway")
    heard = await gateway.nc.subscribe(CHAT_SUBJECTS)
    for user in NOT_THE_GATEWAY:
        attacker = await login(user)
        await attacker.nc.subscribe(CHAT_SUBJECTS)
        await attacker.nc.subscribe(chat_subject(game))
        assert await attacker.refused("subscription to \"zc.chat"), f"{user} may hear a game's chat"
        forged = ChatLine(id="forged", game_id=game, seat=0, text=f"{user} speaking as seat 0", at=0)
        await attacker.nc.publish(chat_subject(game), msgspec.json.encode(forged))
        assert await attacker.refused(f"publish to \"{chat_subject(game)}"), f"{user} may say a line as a seat"
    line = ChatLine(id="said", game_id=game, seat=1, text="good luck", at=0)
    await gateway.nc.publish(chat_subject(game), msgspec.json.encode(line))
    first = await heard.next_msg(timeout=2)
    assert msgspec.json.decode(first.data, type=ChatLine) == line, "no forged line reached the gateway"
    with pytest.raises(NatsTimeout):
        await heard.next_msg(timeout=0.3)
