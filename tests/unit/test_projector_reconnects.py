"""The projector acks no delivery of the log (services/projector/service.py): what was in flight when the
connection dropped is never delivered again, so the projector sweeps every hot game whenever the connection
comes back, to the same server as to another; and a game it fails to fold again from its log, try after try,
is forgotten rather than left barred from sending its feed."""
import asyncio

from zioncheck.services.projector import service


class Connection:
    def __init__(self):
        self._server_info = {"server_id": "first"}
        self.stats = {"reconnects": 0}
        self.is_connected = True


class JetStream:
    def __init__(self):
        self._nc = Connection()


async def test_a_projector_sweeps_again_when_its_connection_comes_back_to_the_same_server(monkeypatch):
    monkeypatch.setattr(service, "SERVER_CHECK_SECONDS", 0.01)
    projector = service.ProjectorService(JetStream())
    swept: list[str | None] = []

    async def sweep() -> int:
        swept.append(projector.server)
        return 0
    projector.sweep = sweep
    await projector.start()
    try:
        await asyncio.sleep(0.1)
        assert swept == ["first"], "once on its first server, then not again while nothing happens"
        projector.js._nc.stats["reconnects"] = 1
        await asyncio.sleep(0.1)
        assert swept == ["first", "first"], "and again once the connection came back to it"
        projector.js._nc._server_info = {"server_id": "second"}
        await asyncio.sleep(0.1)
        assert swept == ["first", "first", "second"]
    finally:
        await projector.stop()


async def test_a_game_given_up_on_is_forgotten_and_its_feed_goes_out_again_at_its_next_batch():
    """A game whose feed was lost is barred from sending more until it is folded again from its log; when that
    fails every time, the projector forgets the game rather than leave it barred: its next batch folds it
    again from the log and the feed stream, as a game the projector never held."""
    projector = service.ProjectorService(JetStream())
    projector.games["g"] = service.ProjectedGame()
    projector.fast.barred.add("g")
    tries: list[int] = []

    async def failing(game: str) -> None:
        tries.append(1)
        raise ConnectionError("the store does not answer")
    projector._rewrite = failing
    await projector._recover("g", 1)
    assert "g" in projector.fast.barred and "g" in projector.games, "tried again later, still barred"
    assert "g" in projector.recovering
    projector.recovering.pop("g").cancel()
    await projector._recover("g", service.RECOVER_TRIES)
    assert "g" not in projector.fast.barred and "g" not in projector.games
    assert not projector.recovering and len(tries) == 2
