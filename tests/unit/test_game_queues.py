"""Per-game queues of delivered commands: each game in delivery order, and delivery epochs
that change whenever the deliveries stop proving that nothing was missed."""
import asyncio
from types import SimpleNamespace

from zioncheck.services.bus.game_queues import GameBatches, GameQueues


def delivered(game: str, consumer_seq: int, times: int = 1):
    """A delivery as the server's reply subject tells it: $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.
    <consumer seq>.<time>.<pending>."""
    reply = f"$JS.ACK.ZC_COMMANDS_0.table.{times}.{100 + consumer_seq}.{consumer_seq}.1765000000000000000.0"
    return SimpleNamespace(subject=f"zc.cmd.{game}", reply=reply, name=f"{game}#{consumer_seq}")


class Recorder:
    def __init__(self):
        self.seen: list[tuple[str, int]] = []
        self.running: dict[str, int] = {}
        self.overlapped = False
        self.gate = asyncio.Event()

    async def work(self, game, msg, epoch):
        self.running[game] = self.running.get(game, 0) + 1
        self.overlapped = self.overlapped or self.running[game] > 1
        await self.gate.wait()
        self.seen.append((msg.name, epoch))
        self.running[game] -= 1


async def settled(queues: GameQueues) -> None:
    while queues.workers:
        await asyncio.sleep(0.001)


async def test_each_games_commands_are_worked_one_at_a_time_in_delivery_order_while_games_go_on_together():
    recorder = Recorder()
    queues = GameQueues(recorder.work)
    queues.take([delivered("a", 1), delivered("b", 2), delivered("a", 3)])
    queues.take([delivered("a", 4), delivered("b", 5)])
    await asyncio.sleep(0.01)
    assert set(queues.queues) == {"a", "b"}, "each game has one worker, both at work at once"
    recorder.gate.set()
    await settled(queues)
    names = [name for name, _ in recorder.seen]
    assert [n for n in names if n.startswith("a")] == ["a#1", "a#3", "a#4"]
    assert [n for n in names if n.startswith("b")] == ["b#2", "b#5"]
    assert not recorder.overlapped
    assert queues.queues == {}


async def test_unbroken_first_deliveries_share_one_epoch():
    recorder = Recorder()
    recorder.gate.set()
    queues = GameQueues(recorder.work)
    queues.take([delivered("a", 1), delivered("b", 2)])
    queues.take([delivered("a", 3)])
    await settled(queues)
    assert {epoch for _, epoch in recorder.seen} == {1}


async def test_a_gap_in_the_delivery_numbers_starts_a_new_epoch():
    """Another instance took delivery 3: whatever it held may sit between our messages."""
    recorder = Recorder()
    recorder.gate.set()
    queues = GameQueues(recorder.work)
    queues.take([delivered("a", 1), delivered("a", 2), delivered("a", 4)])
    await settled(queues)
    assert recorder.seen == [("a#1", 1), ("a#2", 1), ("a#4", 2)]


async def test_a_redelivery_starts_a_new_epoch():
    """A redelivered message is older than messages already delivered after it."""
    recorder = Recorder()
    recorder.gate.set()
    queues = GameQueues(recorder.work)
    queues.take([delivered("a", 1), delivered("b", 2, times=2), delivered("a", 3)])
    await settled(queues)
    assert sorted(recorder.seen) == [("a#1", 1), ("a#3", 2), ("b#2", 2)]


async def test_stop_drops_what_is_queued():
    recorder = Recorder()
    queues = GameQueues(recorder.work)
    queues.take([delivered("a", 1), delivered("a", 2)])
    await asyncio.sleep(0.01)
    await queues.stop()
    assert recorder.seen == [] and not queues.workers


class Drains:
    """A GameBatches drain that records what each hand-over held, held up until its gate opens."""

    def __init__(self):
        self.handed: list[list[str]] = []
        self.running: dict[str, int] = {}
        self.overlapped = False
        self.gate = asyncio.Event()
        self.settled = 0

    async def drain(self, game, msgs):
        self.running[game] = self.running.get(game, 0) + 1
        self.overlapped = self.overlapped or self.running[game] > 1
        await self.gate.wait()
        self.handed.append([msg.name for msg in msgs])
        self.running[game] -= 1

    def done(self, count):
        self.settled += count


async def test_a_games_batches_that_come_while_its_last_are_worked_are_handed_over_together_in_order():
    drains = Drains()
    batches = GameBatches(drains.drain, drains.done)
    batches.take(delivered("a", 1))
    batches.take(delivered("b", 2))
    await asyncio.sleep(0.01)               # a and b each in their first hand-over, held at the gate
    for seq in (3, 4, 5):
        batches.take(delivered("a", seq))   # come while a's first is worked
    drains.gate.set()
    await settled(batches)
    assert sorted(drains.handed) == [["a#1"], ["a#3", "a#4", "a#5"], ["b#2"]]
    assert drains.handed.index(["a#1"]) < drains.handed.index(["a#3", "a#4", "a#5"])
    assert not drains.overlapped, "one hand-over of a game at a time"
    assert drains.settled == 5, "every message is counted out of hand once"


async def test_stopping_leaves_what_is_queued_unworked_and_out_of_hand():
    drains = Drains()
    batches = GameBatches(drains.drain, drains.done)
    batches.take(delivered("a", 1))
    await asyncio.sleep(0.01)
    batches.take(delivered("a", 2))
    await batches.stop()
    assert drains.handed == [] and drains.settled == 2
