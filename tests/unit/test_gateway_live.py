"""A game's hub: a spectator who joins gets the newest view and the latest moves, then every frame once."""

from zioncheck.services.gateway.live import HISTORY, Hub, Spectator


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
