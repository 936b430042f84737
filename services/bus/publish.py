"""A JetStream publish that waits for its ack, as `js.publish` does, with the ack read by one msgspec
decoder instead of `json.loads` and a dataclass: a tenth of the table's CPU per command went there."""
import msgspec
from nats.errors import NoRespondersError
from nats.js import JetStreamContext
from nats.js.errors import APIError, NoStreamResponseError


class _ApiError(msgspec.Struct):
    code: int
    err_code: int | None = None
    description: str = ""


class _PubAck(msgspec.Struct):
    """The part of JetStream's answer to a publish that is read: the stored sequence, or the error."""
    seq: int = 0
    error: _ApiError | None = None


_ack_decoder = msgspec.json.Decoder(_PubAck)


async def publish_stored(js: JetStreamContext, subject: str, payload: bytes,
                         headers: dict[str, str] | None = None) -> int:
    """Publish and wait until a stream stored it; its stream sequence. Raises what `js.publish`
    raises: NoStreamResponseError when no stream takes the subject, an APIError (BadRequestError
    for a refused expectation, with its err_code) when the stream refuses it."""
    try:
        reply = await js._nc.request(subject, payload, timeout=js._timeout, headers=headers)
    except NoRespondersError:
        raise NoStreamResponseError from None
    ack = _ack_decoder.decode(reply.data)
    if ack.error is not None:
        raise APIError.from_error(msgspec.structs.asdict(ack.error))
    return ack.seq
