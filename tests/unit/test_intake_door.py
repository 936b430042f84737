"""The intake's checks: what it refuses before anything is stored, and how a limit reads to a sender."""
import msgspec
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
    assert [rates.take("acme") == 0 for _ in range(4)] == [True, True, True, False]
    assert rates.take("beta") == 0, "another tenant has a bucket of its own"
    now[0] = 0.1   # a tenth of a second: one more command's worth
    assert rates.take("acme") == 0 and rates.take("acme") > 0


def test_a_tenant_sending_more_bytes_a_second_than_it_may_is_refused_and_told_when_to_send_again():
    """The attack of the report: 16 KB commands at 19.5 MB/s, well within the commands a second."""
    now = [0.0]
    rates = TenantRates(rate=5_000, burst=10_000, byte_rate=256 * 1024, byte_burst=1024 * 1024,
                        clock=lambda: now[0])
    big = 16 * 1024
    assert [rates.take("acme", big) for _ in range(64)] == [0.0] * 64, "the burst holds 64 of the largest"
    wait = rates.take("acme", big)
    assert wait == pytest.approx(big / (256 * 1024)), "a sixteenth of a second makes room for the next"
    assert rates.take("beta", big) == 0.0, "another tenant's bytes are its own"
    refusal = rates.refusal(wait)
    assert refusal.reason == "over_rate" and "262,144 bytes a second" in refusal.detail
    assert "send again in 0.062 s" in refusal.detail
    now[0] = wait
    assert rates.take("acme", big) == 0.0 and rates.take("acme", 40) > 0


def test_small_commands_at_the_rate_people_play_never_meet_the_byte_rate():
    """docs/scaling.md: 0.4 commands a second a game, 36-40 bytes each: 10,000 games, a tenant's most."""
    now = [0.0]
    rates = TenantRates(clock=lambda: now[0])
    for second in range(30):
        now[0] = float(second)
        assert all(rates.take("acme", 40) == 0.0 for _ in range(4_000)), f"refused in second {second}"


def test_a_byte_burst_smaller_than_the_largest_command_is_refused_as_a_setting():
    with pytest.raises(ValueError, match="for ever"):
        TenantRates(byte_burst=1_000)


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


@pytest.mark.parametrize("data, field", [
    (b'{"type": "draw_stock", "seat": 0, "pad": "' + b"x" * 16_000 + b'"}', "pad"),
    (b'{"type": "start_game", "game_id": "g", "players": 2, "limits": {"turn_seconds": 60, "pad": 1}}', "limits.pad"),
    (b'{"type": "start_game", "game_id": "g", "players": 2, "rules": {"hands": [{"dealt": 7, "sets": 1, "runs": 0, '
     b'"x": []}]}}', "rules.hands[0].x"),
])
def test_r18_a_command_with_a_field_no_command_of_its_type_declares_is_refused_naming_the_field(data, field):
    refusal = check("acme", "g", data, None)
    assert isinstance(refusal, Refused) and refusal.reason == "bad_command"
    assert f"unknown field {field!r}" in refusal.detail and refusal.rejected.reason == "bad_command"


def test_r18_every_field_a_command_declares_passes_the_intake_even_with_its_defaults_written_out():
    start = StartGame(game_id="g", players=2, seats=["person", "greedy"], public=True)
    data = msgspec.json.encode(msgspec.to_builtins(start) | {"type": "start_game"})
    assert check("acme", "g", data, None) == start


class FakeHoldings:
    """What the server counts of each tenant's feed batches and views (services/bus/holdings.py)."""

    def __init__(self):
        self.feed: dict[str, int] = {}
        self.held: dict[str, int] = {}
        self.asked = 0

    async def feed_batches(self, js, tenant):
        self.asked += 1
        return self.feed.get(tenant, 0)

    async def views(self, js, tenant):
        self.asked += 1
        return self.held.get(tenant, 0)


@pytest.fixture
def holdings(monkeypatch):
    from zioncheck.services.intake import service
    fake = FakeHoldings()
    monkeypatch.setattr(service, "holdings", fake)
    return fake


def _shares(views: int, feed: int, now: list[float]):
    from zioncheck.services.bus.topology import StoreLimits
    from zioncheck.services.intake.service import TenantShares
    limits = StoreLimits()
    share = TenantShares(None, limits, clock=lambda: now[0])
    share.views_most, share.feed_most = views, feed
    return share


async def test_a_start_whose_views_would_pass_the_tenants_share_is_refused_and_another_tenants_is_not(holdings):
    now = [0.0]
    shares = _shares(views=12, feed=1_000, now=now)
    holdings.held = {"acme": 5}   # a 2-seat game's, over and not yet removed, and another's public view
    assert await shares.refusal("acme", StartGame(game_id="g2", players=2)) is None   # 5 + 5 views
    refusal = await shares.refusal("acme", StartGame(game_id="g3", players=2))
    assert refusal.reason == "too_many_games" and "views bucket (12)" in refusal.detail, refusal
    assert await shares.refusal("beta", StartGame(game_id="g3", players=2)) is None


async def test_what_a_tenant_holds_is_counted_again_after_a_while_and_the_archivers_removals_make_room(holdings):
    from zioncheck.services.intake.service import SHARE_SECONDS
    now = [0.0]
    shares = _shares(views=10, feed=1_000, now=now)
    holdings.held = {"acme": 8}
    assert (await shares.refusal("acme", StartGame(game_id="g", players=2))).reason == "too_many_games"
    holdings.held = {"acme": 0}   # the archiver removed its finished games
    assert (await shares.refusal("acme", StartGame(game_id="g", players=2))).reason == "too_many_games", \
        "taken at its word a while"
    now[0] = SHARE_SECONDS
    assert await shares.refusal("acme", StartGame(game_id="g", players=2)) is None


async def test_a_tenant_whose_games_fill_its_share_of_the_feed_starts_no_game_then_stores_no_move(holdings):
    from zioncheck.contracts.commands import DrawStock
    from zioncheck.services.intake.service import STARTS_WITHIN
    now = [0.0]
    shares = _shares(views=1_000, feed=100, now=now)
    holdings.feed = {"acme": int(100 * STARTS_WITHIN) - 2}
    assert await shares.refusal("acme", StartGame(game_id="g", players=2)) is None
    assert await shares.refusal("acme", DrawStock(seat=0)) is None
    assert await shares.refusal("acme", DrawStock(seat=0)) is None, "its last start's room"
    refusal = await shares.refusal("acme", StartGame(game_id="g2", players=2))
    assert refusal.reason == "too_many_games" and "share of the feed (100)" in refusal.detail
    moves = [await shares.refusal("acme", DrawStock(seat=0)) for _ in range(30)]
    assert sum(move is None for move in moves) == 100 - int(100 * STARTS_WITHIN), "its games in play go on a while"
    assert moves[-1].reason == "store_full" and "share of the feed" in moves[-1].detail
    assert await shares.refusal("beta", DrawStock(seat=0)) is None
    assert holdings.asked == 3, "within SHARE_SECONDS: acme's feed and views once, beta's feed once"


class FakeStreams:
    """A commands stream's fill, as stream info tells it."""

    def __init__(self, held: int, most: int):
        self.held, self.most, self.asked = held, most, 0

    async def stream_info(self, name):
        from types import SimpleNamespace
        self.asked += 1
        return SimpleNamespace(state=SimpleNamespace(bytes=self.held), config=SimpleNamespace(max_bytes=self.most))


async def test_a_commands_stream_near_its_byte_limit_takes_no_more_from_senders_so_none_is_pushed_out():
    from zioncheck.services.intake.service import ROOM_SECONDS, CommandsRoom
    now = [0.0]
    streams = FakeStreams(held=940, most=1_000)
    room = CommandsRoom(streams, clock=lambda: now[0])
    assert await room.refusal(0) is None
    streams.held = 950
    assert await room.refusal(0) is None and streams.asked == 1, "asked once a while"
    now[0] = ROOM_SECONDS
    refusal = await room.refusal(0)
    assert refusal.reason == "store_full" and "ZC_COMMANDS_0 holds 950 bytes of its 1,000" in refusal.detail
    streams.most = -1   # a store made before the commands streams had a byte limit: the account's cap refuses
    now[0] = 2 * ROOM_SECONDS
    assert await room.refusal(0) is None
