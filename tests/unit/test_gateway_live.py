"""A game's hub: a spectator who joins gets the newest view and the latest moves, then every frame once, framed
once for all its spectators."""
import asyncio

from websockets.protocol import State
from websockets.server import ServerProtocol

from zioncheck.services.gateway.live import HISTORY, VIEW_WAIT, Hub, Spectator, framed


def queued(spectator: Spectator) -> list[str]:
    frames = []
    while not spectator.frames.empty():
        frames.append(spectator.frames.get_nowait())
    return frames


def ready_hub(view: str | None, feed: int) -> Hub:
    hub = Hub("g")
    hub.view, hub.feed = view, [(seq, f"feed {seq}") for seq in range(1, feed + 1)]
    hub.ready.set()
    return hub


async def test_a_joiner_gets_the_newest_view_then_the_latest_feed_batches_then_each_new_frame():
    hub = ready_hub("view 9", feed=HISTORY + 5)
    spectator = Spectator(backlog=1000)
    hub.join(spectator)
    hub._broadcast("view 10")
    frames = queued(spectator)
    assert frames[0] == "view 9" and frames[-1] == "view 10"
    assert frames[1:-1] == [f"feed {seq}" for seq in range(6, HISTORY + 6)]


async def test_a_spectator_that_falls_behind_its_backlog_is_marked_and_the_others_go_on():
    hub = ready_hub(None, feed=0)
    slow, quick = Spectator(backlog=3), Spectator(backlog=100)
    hub.join(slow)
    hub.join(quick)
    for n in range(5):
        hub._broadcast(f"frame {n}")
    assert slow.overflowed.is_set() and queued(slow) == ["frame 0", "frame 1", "frame 2"]
    assert not quick.overflowed.is_set() and len(queued(quick)) == 5


async def test_nothing_is_broadcast_before_the_hub_has_caught_up():
    hub = Hub("g")
    spectator = Spectator(backlog=10)
    hub.spectators.add(spectator)
    hub._broadcast("too early")
    assert queued(spectator) == []


def writing(spectator: Spectator, takes: bool = True) -> list[bytes]:
    """What the spectator's socket is written, as the gateway's server takes it framed (live.FRAMED)."""
    written: list[bytes] = []

    def write(data: bytes) -> bool:
        if takes:
            written.append(data)
        return takes

    spectator.write = write
    return written


async def test_a_frame_is_framed_once_and_written_as_it_stands_to_every_spectators_socket():
    hub = ready_hub(None, feed=0)
    spectators = [Spectator(backlog=10) for _ in range(3)]
    sockets = []
    for spectator in spectators:
        hub.join(spectator)
        sockets.append(writing(spectator))
    hub._broadcast("feed 7")
    assert [written == [framed("feed 7")] for written in sockets] == [True] * 3
    assert sockets[0][0] is sockets[1][0] is sockets[2][0], "one framing for all"
    assert all(queued(spectator) == [] for spectator in spectators)


async def test_frames_a_socket_cannot_take_queue_and_later_ones_wait_behind_them_in_order():
    spectator = Spectator(backlog=10)
    full = writing(spectator, takes=False)
    spectator.offer("frame 0")
    spectator.write = lambda data: full.append(data) or True   # the socket drains: it would take more now
    spectator.offer("frame 1")
    assert full == [] and queued(spectator) == ["frame 0", "frame 1"]


async def test_while_a_queued_frame_is_being_sent_new_frames_wait_behind_it():
    spectator = Spectator(backlog=10)
    written = writing(spectator)
    spectator.sending = True
    spectator.offer("frame 1")
    assert written == [] and queued(spectator) == ["frame 1"]


def test_a_frame_is_framed_as_the_websocket_library_frames_a_servers_text():
    for text in ("{}", "é" * 100, "x" * 70_000):   # each length's form: 7 bits, 16 bits, 64 bits
        server = ServerProtocol(state=State.OPEN)
        server.send_text(text.encode())
        assert framed(text) == b"".join(server.data_to_send())


async def test_what_a_joiner_gets_goes_to_its_socket_in_one_write_in_order():
    hub = ready_hub("view 9", feed=3)
    spectator = Spectator(backlog=10)
    hub.join(spectator)
    written = writing(spectator)
    spectator.catch_up()
    assert written == [b"".join(framed(frame) for frame in ("view 9", "feed 1", "feed 2", "feed 3"))]
    assert queued(spectator) == []


async def test_what_a_joiner_gets_stays_queued_in_order_when_its_socket_cannot_take_it():
    hub = ready_hub("view 9", feed=2)
    spectator = Spectator(backlog=10)
    hub.join(spectator)
    writing(spectator, takes=False)
    spectator.catch_up()
    assert queued(spectator) == ["view 9", "feed 1", "feed 2"]


async def test_views_that_come_together_go_out_once_the_newest_after_the_feed_that_came_meanwhile():
    hub = ready_hub("view 1", feed=0)
    spectator = Spectator(backlog=10)
    hub.join(spectator)
    assert queued(spectator) == ["view 1"]
    hub._on_view("view 2", 2)
    hub._broadcast("feed 2")
    hub._on_view("view 3", 3)
    hub._broadcast("feed 3")
    assert queued(spectator) == ["feed 2", "feed 3"]
    await asyncio.sleep(2 * VIEW_WAIT)
    assert queued(spectator) == ["view 3"] and hub.view == "view 3"


async def test_a_spectator_who_joins_while_a_view_waits_gets_each_view_once():
    hub = ready_hub("view 1", feed=0)
    hub._on_view("view 2", 2)
    spectator = Spectator(backlog=10)
    hub.join(spectator)
    await asyncio.sleep(2 * VIEW_WAIT)
    assert queued(spectator) == ["view 1", "view 2"]
