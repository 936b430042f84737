"""A delivery's sequences and count read from its reply subject agree with nats-py's own reading, in both of
the forms the server writes (ADR-15), and a message no consumer delivered is refused as nats-py refuses it."""
import pytest
from nats.aio.msg import Msg
from nats.errors import NotJSMessageError

from zioncheck.services.bus.delivered import Delivery, delivery

REPLIES = {
    "v1": "$JS.ACK.ZC_LOG_0.projector.3.1207.88.1765000000123456789.4",
    "v2, no random token": "$JS.ACK._.ACCHASH.ZC_LOG_0.projector.3.1207.88.1765000000123456789.4",
    "v2": "$JS.ACK.hub.ACCHASH.ZC_LOG_0.projector.3.1207.88.1765000000123456789.4.x7Yq",
}


@pytest.mark.parametrize("reply", REPLIES.values(), ids=REPLIES.keys())
def test_a_deliverys_sequences_and_count_are_read_as_nats_py_reads_them(reply):
    msg = Msg(None, subject="zc.log.0.g.move", reply=reply)
    meta = msg.metadata
    assert delivery(msg) == Delivery(stream_seq=1207, consumer_seq=88, delivered=3)
    assert delivery(msg) == (meta.sequence.stream, meta.sequence.consumer, meta.num_delivered)
    assert delivery(msg) is delivery(msg), "read once a message: the table asks three times a delivery"


@pytest.mark.parametrize("reply", ["", "_INBOX.abc", "$JS.ACK.too.short", "$JS.API.ACK.a.b.1.2.3.4.5"])
def test_a_message_no_consumer_delivered_is_refused(reply):
    with pytest.raises(NotJSMessageError):
        delivery(Msg(None, subject="zc.log.0.g.move", reply=reply))
