"""The bots service waits on its seats' views (services/bots/views.py): what the server republished while the
connection was away never comes, so once it is back every wait reads the stored views at once."""
import asyncio

import msgspec

from zioncheck.domain.views import Projection, seat_view
from zioncheck.services.bots.views import RECHECK, SeatViews


def view_at(seq: int):
    view = seat_view(Projection(), 0)
    return msgspec.structs.replace(view, seq=seq, public=msgspec.structs.replace(view.public, seq=seq))


class Stored(SeatViews):
    """Views whose stored copy is one moment on from what was heard."""
    reads = 0

    async def read(self) -> None:
        self.reads += 1
        self.offer(view_at(2))


async def test_a_wait_reads_the_stored_views_as_soon_as_the_connection_is_back():
    table = Stored(None, "g", [0])   # type: ignore[arg-type]  # reads nothing from a server here
    table.offer(view_at(1))
    waiting = asyncio.ensure_future(table.wait(lambda: table.after(1)))
    await asyncio.sleep(0.1)
    assert not waiting.done() and table.reads == 0
    table.look_now()
    views = await asyncio.wait_for(waiting, RECHECK / 5)
    assert views[0].seq == 2 and table.reads == 1
