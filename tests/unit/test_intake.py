"""R18 bad_command: whatever bytes arrive, the table reads a command or a refusal saying why."""
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zioncheck.application.reading import json_depth, read_command
from zioncheck.contracts.commands import DEALER, MAX_COMMAND_BYTES, MAX_COMMAND_DEPTH, PLAY, Deal, DrawStock, StartGame
from zioncheck.contracts.events import Rejected
from zioncheck.contracts.log import encode


@pytest.mark.parametrize("data, says", [
    (b"", "empty"),
    (b"[" * 30_000 + b"]" * 30_000, "bytes"),
    (b"[" * 9 + b"]" * 9, "nested deeper"),
    (b'{"type": "draw_stock", "seat": 0, "pad": "' + b"x" * MAX_COMMAND_BYTES + b'"}', "bytes"),
    (b"\xff\xfe", "not a command"),
    (b'{"type": "draw_stock"', "not a command"),
])
def test_r18_unreadable_bytes_are_refused_as_bad_command_with_a_reason(data, says):
    refused = read_command(data)
    assert isinstance(refused, Rejected) and refused.reason == "bad_command"
    assert says in refused.detail


def test_r18_brackets_inside_strings_do_not_count_as_nesting():
    card = "[" * 20
    assert json_depth(encode(DrawStock(seat=0))[:-1] + b', "note": "' + card.encode() + b'"}') == 1


def test_r18_only_the_dealers_subject_deals_and_it_carries_nothing_else():
    deal = encode(Deal(hand=1, hands=[["AS"], ["2S"]], stock=[]))
    assert read_command(deal, PLAY).detail.startswith("only the dealer")
    assert isinstance(read_command(deal, DEALER), Deal)
    assert read_command(encode(DrawStock(seat=0)), DEALER).reason == "bad_command"
    assert read_command(encode(DrawStock(seat=0)), "admin").detail == "unknown origin 'admin'"


def test_r18_a_game_starts_only_on_its_own_subject():
    start = encode(StartGame(game_id="victim", players=2))
    assert read_command(start, PLAY, "victim") == StartGame(game_id="victim", players=2)
    refused = read_command(start, PLAY, "intruder")
    assert refused.reason == "bad_command" and "victim" in refused.detail


@given(st.binary(max_size=400))
def test_r18_any_bytes_give_a_command_or_a_refusal_never_an_error(data):
    read = read_command(data, PLAY, "g")
    assert not isinstance(read, Rejected) or read.reason == "bad_command"


@given(st.recursive(st.none() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=30))
def test_the_depth_scan_agrees_with_the_json_it_reads(value):
    data = json.dumps(value).encode()
    if data.count(b"[") + data.count(b"{") > MAX_COMMAND_DEPTH:
        assert json_depth(data) == depth(value)
    else:  # too few brackets to pass the bound: not scanned
        assert json_depth(data) == 0 and depth(value) <= MAX_COMMAND_DEPTH


def depth(value) -> int:
    """How deep lists and dicts nest in a decoded JSON value."""
    if isinstance(value, list):
        return 1 + max((depth(x) for x in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(x) for x in value.values()), default=0)
    return 0


def test_r18_the_table_reads_a_stored_command_with_a_field_it_does_not_know_as_it_always_did():
    """Old logs replay byte for byte: only the intake's strict reading refuses what no command declares."""
    data = b'{"type": "draw_stock", "seat": 0, "note": "from a client of an earlier version"}'
    assert read_command(data, PLAY, "g") == DrawStock(seat=0)
    refused = read_command(data, PLAY, "g", strict=True)
    assert isinstance(refused, Rejected) and refused.reason == "bad_command" and "'note'" in refused.detail
