"""JSON depth: measured before decoding, brackets inside strings not counted, in linear time."""
import time

import pytest

from zioncheck.services.gateway.problems import MAX_DEPTH, HTTPProblem, decode_json, depth


def test_depth_counts_arrays_and_objects_but_not_brackets_inside_strings():
    assert depth(b"{}") == 1
    assert depth(b'{"melds": [["7S", "7D", "7C"]]}') == 3
    assert depth(b'{"card": "[[[[{{{{"}') == 1
    assert depth(b'{"card": "a \\" [[[[ still the string"}') == 1
    assert depth(b'["ends in a backslash \\\\", [["out of the string"]]]') == 3
    assert depth(b"[" * 30_000) == 30_000
    assert depth(b"12") == 0


def test_json_deeper_than_the_bound_is_refused_before_it_is_decoded():
    decode_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, None, "invalid_command")
    for deep in (b"[" * 30_000 + b"]" * 30_000, b'{"a":' * 40 + b"1" + b"}" * 40, b"[" * 100):
        with pytest.raises(HTTPProblem) as refused:
            decode_json(deep, None, "invalid_command")
        assert (refused.value.status, refused.value.error) == (422, "too_deeply_nested")


def test_measuring_the_depth_of_any_body_up_to_64_kib_takes_milliseconds():
    worst = [b"[]" * 32_768, b'"' + b'a\\"' * 21_000, b'"[' * 32_768, b"\\" * 65_536, b'"' * 65_536]
    started = time.perf_counter()
    for body in worst:
        depth(body)
    assert time.perf_counter() - started < 0.25, "no body makes the scan backtrack"
