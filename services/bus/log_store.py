"""The game log in JetStream: reading a game's batches and appending as its single writer.

Every append names the log's last sequence for the game's subjects
(Nats-Expected-Last-Subject-Sequence over zc.log.<game>.*), so a second writer
cannot fork the log, and a Msg-Id, so a retried append is recognised as already done.
"""
from dataclasses import dataclass, field

from nats.js import JetStreamContext
from nats.js.api import DeliverPolicy
from nats.js.errors import BadRequestError, NotFoundError

from zioncheck.contracts.events import GameEnded, GameStarted, HandEnded
from zioncheck.contracts.log import Batch, decode_batch, encode
from zioncheck.domain import GameState, fold
from zioncheck.services.bus.topology import BATCH_HEADER, LOG, LOG_SUBJECTS, game_of, log_subject

WRONG_LAST_SEQUENCE = 10071


class LogConflict(Exception):
    """Someone else appended to this game's log: reload it and decide again."""


@dataclass
class LoggedGame:
    game: str
    state: GameState = field(default_factory=GameState)
    last_seq: int = 0        # stream sequence of the game's last log message
    applied: int = 0         # commands-stream sequence of the last command applied
    batches: int = 0
    in_order_since: int | None = None  # the table's delivery epoch in which it last read the commands stream


async def read_batches(js: JetStreamContext, game: str, kind: str = "*") -> list[tuple[int, Batch]]:
    """Every batch of a game's log (or of one kind) with its stream sequence, oldest first."""
    subject = log_subject(game, kind)
    try:
        last = await js.get_msg(LOG, subject=subject)
    except NotFoundError:
        return []
    found: list[tuple[int, Batch]] = []
    sub = await js.subscribe(subject, ordered_consumer=True, deliver_policy=DeliverPolicy.ALL)
    try:
        while not found or found[-1][0] < last.seq:
            msg = await sub.next_msg(timeout=10)
            found.append((msg.metadata.sequence.stream, decode_batch(msg.data)))
    finally:
        await sub.unsubscribe()
    return found


async def stored_games(js: JetStreamContext) -> dict[str, int]:
    """Every game with a log, and how many batches it holds."""
    try:
        info = await js.stream_info(LOG, subjects_filter=LOG_SUBJECTS)
    except NotFoundError:
        return {}
    counts: dict[str, int] = {}
    for subject, count in (info.state.subjects or {}).items():
        counts[game_of(subject)] = counts.get(game_of(subject), 0) + count
    return dict(sorted(counts.items()))


async def load(js: JetStreamContext, game: str) -> LoggedGame:
    logged = LoggedGame(game=game)
    for seq, batch in await read_batches(js, game):
        _advance(logged, seq, batch)
    return logged


async def catch_up(js: JetStreamContext, logged: LoggedGame) -> None:
    """Fold the batches another writer appended after this copy's last one."""
    while True:
        try:
            msg = await js.get_msg(LOG, seq=logged.last_seq + 1, subject=log_subject(logged.game), next=True)
        except NotFoundError:
            return
        _advance(logged, msg.seq, decode_batch(msg.data))


def _advance(logged: LoggedGame, seq: int, batch: Batch) -> None:
    logged.state = fold(logged.state, batch.events)
    logged.last_seq = seq
    logged.applied = max(logged.applied, batch.cause)
    logged.batches += 1


async def append(js: JetStreamContext, logged: LoggedGame, batch: Batch) -> None:
    """Append one batch as the game's next message, or raise LogConflict."""
    msg_id = f"{logged.game}:{batch.cause}"
    subject = log_subject(logged.game)
    headers = {"Nats-Expected-Last-Subject-Sequence": str(logged.last_seq),
               "Nats-Expected-Last-Subject-Sequence-Subject": subject, "Nats-Msg-Id": msg_id,
               BATCH_HEADER: str(logged.batches + 1)}
    try:
        ack = await js.publish(log_subject(logged.game, _kind(batch)), encode(batch), headers=headers)
        seq = ack.seq
    except BadRequestError as error:
        if error.err_code != WRONG_LAST_SEQUENCE:
            raise
        # A retried append comes back as "wrong last sequence", not as a duplicate:
        # it is ours if the last message carries our Msg-Id.
        last = await js.get_msg(LOG, subject=subject)
        if (last.headers or {}).get("Nats-Msg-Id") != msg_id:
            raise LogConflict(f"game {logged.game}: the logged moved past sequence {logged.last_seq}") from None
        seq = last.seq
    _advance(logged, seq, batch)


def _kind(batch: Batch) -> str:
    return "hand" if any(isinstance(e, (GameStarted, HandEnded, GameEnded)) for e in batch.events) else "move"
