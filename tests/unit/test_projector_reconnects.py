"""The projector acks no delivery of the log (services/projector/service.py): what was in flight when the
connection dropped is never delivered again, so the projector sweeps every hot game whenever the connection
comes back, to the same server as to another."""
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
