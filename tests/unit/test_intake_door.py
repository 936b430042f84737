"""The intake's checks: what it refuses before anything is stored, and how a limit reads to a sender."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from zioncheck.contracts.commands import DrawStock, StartGame
from zioncheck.contracts.intake import REFUSALS, Refused, Taken, decode_reply
from zioncheck.contracts.log import encode
from zioncheck.services.intake.service import TenantRates, check, message_id


def test_a_well_formed_command_for_a_game_passes():
    assert check("acme", "table-7", encode(DrawStock(seat=0)), "k1") == DrawStock(seat=0)
    start = StartGame(game_id="table-7", players=3)
    assert check("acme", "table-7", encode(start), None) == start


@pytest.mark.parametrize("game", ["", "a.b", "*", ">", "x" * 65, "tab le", "jeu-é", "acme=g"])
def test_a_subject_that_names_no_game_is_refused_as_bad_game(game):
    assert check("acme", game, encode(DrawStock(seat=0)), None).reason == "bad_game"
    assert check(game, "g", encode(DrawStock(seat=0)), None).reason == "bad_game"   # nor a tenant


@pytest.mark.parametrize("key", ["", "x" * 65, "with space", "tab\t", "ключ"])
def test_a_key_that_is_not_short_printable_ascii_is_refused(key):
    assert check("acme", "g", encode(DrawStock(seat=0)), key).reason == "bad_key"


def test_r18_bytes_the_table_could_not_read_are_refused_with_the_refusal_the_table_would_log():
    refused = check("acme", "g", b'{"type": "draw_stock"', None)
    assert refused.reason == "bad_command" and refused.rejected.reason == "bad_command"
    assert refused.detail == refused.rejected.detail and refused.detail.startswith("not a command")


def test_r18_a_dealers_command_or_a_start_of_another_game_never_passes_the_intake():
    deal = b'{"type": "deal", "hand": 2, "hands": [["AS"], ["2S"]], "stock": []}'
    assert check("acme", "g", deal, None).rejected.detail.startswith("only the dealer")
    assert "victim" in check("acme", "intruder", encode(StartGame(game_id="victim", players=2)), None).detail


@given(st.binary(max_size=300), st.text(max_size=70))
def test_any_bytes_and_any_game_give_a_refusal_with_a_reason_or_pass_never_an_error(data, game):
    refused = check("acme", game, data, None)
    assert not isinstance(refused, Refused) or refused.reason in REFUSALS


def test_a_senders_key_is_scoped_to_its_game_under_a_prefix_no_house_service_uses():
    assert message_id("g1", "deal:g1:2") == "in:g1:deal:g1:2"
    assert message_id("g1", "k") != message_id("g2", "k")


@pytest.mark.parametrize("said, reason", [
    ("maximum bytes exceeded", "store_full"),
    ("insufficient resources", "store_full"),
    ("wrong last sequence: 4", "unavailable"),
])
def test_a_limit_the_stream_reached_reads_as_a_refusal_with_its_reason(said, reason):
    """The stream answers the sender itself; its error names the limit."""
    ack = b'{"error": {"code": 503, "err_code": 10077, "description": "%s"}, "stream": "ZC_COMMANDS_0", "seq": 0}'
    refusal = decode_reply(ack % said.encode())
    assert isinstance(refusal, Refused) and refusal.reason == reason and said in refusal.detail


def test_the_streams_own_answer_reads_as_taken():
    assert decode_reply(b'{"stream": "ZC_COMMANDS_1", "seq": 42}') == Taken(seq=42)
    assert decode_reply(b'{"stream": "ZC_COMMANDS_1", "seq": 42, "duplicate": true}') == Taken(seq=42, duplicate=True)


def test_the_intakes_answers_decode_as_the_contract_says():
    assert decode_reply(encode(Taken(seq=7))) == Taken(seq=7)
    refused = decode_reply(encode(Refused(reason="store_full", detail=REFUSALS["store_full"])))
    assert isinstance(refused, Refused) and refused.rejected is None


def test_a_tenant_sending_faster_than_its_rate_is_refused_after_its_burst_and_others_are_not():
    now = [0.0]
    rates = TenantRates(rate=10, burst=3, clock=lambda: now[0])
    assert [rates.take("acme") for _ in range(4)] == [True, True, True, False]
    assert rates.take("beta"), "another tenant has a bucket of its own"
    now[0] = 0.1   # a tenth of a second: one more command's worth
    assert rates.take("acme") and not rates.take("acme")


class FakeRegister:
    """The register of games in play as the intake asks it (services/bus/open_games.py), counting asks."""

    def __init__(self, games: set[str]):
        self.games, self.asked = games, 0

    async def in_play(self, js, game):
        self.asked += 1
        return game in self.games

    async def tenant_games(self, js, tenant):
        return sum(1 for game in self.games if game.startswith(f"{tenant}="))

    async def mark_open(self, js, game):
        self.games.add(game)


@pytest.fixture
def register(monkeypatch):
    from zioncheck.services.intake import service
    fake = FakeRegister({"acme=g1", "acme=g2"})
    monkeypatch.setattr(service, "open_games", fake)
    return fake


async def test_a_move_for_a_game_not_in_play_is_refused_and_one_in_play_is_asked_about_once(register):
    from zioncheck.services.intake.service import IN_PLAY_SECONDS, InPlay
    now = [0.0]
    in_play = InPlay(None, tenant_games=10, clock=lambda: now[0])
    assert (await in_play.refusal("acme", "acme=nope", DrawStock(seat=0))).reason == "no_game"
    assert await in_play.refusal("acme", "acme=g1", DrawStock(seat=0)) is None
    assert await in_play.refusal("acme", "acme=g1", DrawStock(seat=0)) is None
    assert register.asked == 2, "a game found in play is taken at its word for a while"
    register.games.discard("acme=g1")
    now[0] = IN_PLAY_SECONDS + 1
    assert (await in_play.refusal("acme", "acme=g1", DrawStock(seat=0))).reason == "no_game"


async def test_a_start_past_the_tenants_games_in_play_is_refused_and_another_tenants_is_not(register):
    from zioncheck.services.intake.service import InPlay
    in_play = InPlay(None, tenant_games=2)
    refused = await in_play.refusal("acme", "acme=g3", StartGame(game_id="g3", players=2))
    assert refused.reason == "too_many_games" and "(2)" in refused.detail
    assert await in_play.refusal("beta", "beta=g3", StartGame(game_id="g3", players=2)) is None
    assert "beta=g3" in register.games, "a start let through is in play before it is stored"
    assert (await in_play.refusal("beta", "beta=g4", StartGame(game_id="g4", players=2))) is None
    assert (await in_play.refusal("beta", "beta=g5", StartGame(game_id="g5", players=2))).reason == "too_many_games"
