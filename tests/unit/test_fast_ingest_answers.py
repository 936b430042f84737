"""What a fast batch's answers tell (services/bus/fast_ingest.py): a message refused means every one before
it was stored (the batch is in gap-fail mode); a batch the server does not know means only what it acked
was, so the owners of every message after that are told lost."""
from collections import deque
from types import SimpleNamespace

from zioncheck.services.bus.fast_ingest import FastIngest


def batch_in_flight(lost: list) -> FastIngest:
    fast = FastIngest(SimpleNamespace(), lost.append)
    fast.inbox, fast.batch, fast.sent, fast.stored = "_INBOX_projector.x", "b1", 5, 2
    fast.pending = deque([(3, "g1"), (4, "g2"), (5, "g3")])
    return fast


def answer(n: int, code: int, description: str) -> SimpleNamespace:
    data = b'{"error":{"code":400,"err_code":%d,"description":"%b"},"stream":"ZC_FEED","seq":0}' % (
        code, description.encode())
    return SimpleNamespace(subject=f"_INBOX_projector.x.b1.100.fail.{n}.1.$FI", data=data, headers=None)


async def test_a_message_refused_leaves_the_ones_before_it_stored():
    lost: list[set[str]] = []
    fast = batch_in_flight(lost)
    await fast._on_answer(answer(4, 10054, "message size exceeds maximum allowed"))
    assert lost == [{"g2", "g3"}] and not fast.batch
    assert fast.barred == {"g2", "g3"}


async def test_a_batch_the_server_does_not_know_loses_everything_not_acked():
    lost: list[set[str]] = []
    fast = batch_in_flight(lost)
    await fast._on_answer(answer(6, 10208, "batch publish ID unknown"))
    assert lost == [{"g1", "g2", "g3"}], "nothing after the last ack is known stored"


async def test_an_answer_to_a_batch_over_already_is_passed_over():
    lost: list[set[str]] = []
    fast = batch_in_flight(lost)
    stale = answer(4, 10208, "batch publish ID unknown")
    stale.subject = stale.subject.replace(".b1.", ".b0.")
    await fast._on_answer(stale)
    assert lost == [] and fast.batch == "b1"
