"""The faster header parser gives every reader the headers nats-py's own parser gives."""
from hypothesis import given
from hypothesis import strategies as st

from zioncheck.services.bus.headers import library_parse, parse_header_lines

LOG_REPLY = (b"Nats-Stream: ZC_LOG\r\nNats-Subject: zc.log.g1.move\r\nNats-Sequence: 42\r\n"
             b"Nats-Expected-Last-Subject-Sequence: 41\r\nNats-Msg-Id: g1:57\r\nZc-Batch: 12\r\n\r\n")


def test_a_log_message_headers_read_as_the_library_reads_them():
    assert parse_header_lines(LOG_REPLY) == library_parse(LOG_REPLY)
    assert parse_header_lines(LOG_REPLY)["Nats-Sequence"] == "42"


@given(st.lists(st.tuples(st.text(max_size=12), st.sampled_from([":", ": ", "", ":\t"]), st.text(max_size=12))))
def test_any_header_lines_read_as_the_library_reads_them(lines):
    raw = b"\r\n".join(f"{name}{sep}{value}".encode() for name, sep, value in lines) + b"\r\n\r\n"
    assert parse_header_lines(raw) == library_parse(raw)


@given(st.binary(max_size=200))
def test_any_bytes_read_as_the_library_reads_them(raw):
    assert parse_header_lines(raw) == library_parse(raw)
