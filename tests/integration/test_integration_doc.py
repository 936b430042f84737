"""The snippet of docs/integration.md runs as written against the real services, logged in as a platform."""
import json
import re
from pathlib import Path

from archived import PUBLIC, archive
from zioncheck.application.archive_samples import sample_season

DOC = Path(__file__).parent.parent.parent / "docs" / "integration.md"


async def test_the_integration_snippet_starts_a_game_and_learns_each_outcome_from_the_views(
        services, nats_server, capsys):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    namespace = {"__name__": "integration_doc"}
    exec(compile(code, str(DOC), "exec"), namespace)
    login = nats_server.access.credentials / "platform.json"
    assert json.loads(login.read_text())["role"] == "platform"
    await namespace["main"](list(nats_server.access.servers), login, "doc-game")
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "game doc-game started with 3 seats"
    assert printed[1] == "accepted: seat 1 now holds 11 cards"
    assert printed[2].startswith("SeatRefusal(cause=") and "reason='already_drew'" in printed[2]
    assert printed[3].startswith("Rejected(seat=None, command='start_game', reason='bad_command'")
    assert printed[4].startswith("not stored: no_game: ")


async def test_the_archives_snippet_lists_a_platforms_archived_games_and_checks_each(services, nats_server, capsys):
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[1]
    namespace = {"__name__": "integration_doc_archives"}
    exec(compile(code, str(DOC), "exec"), namespace)
    records = sample_season(2, seed="doc")
    await archive(nats_server.access, records)
    await namespace["archived"](list(nats_server.access.servers), nats_server.access.credentials / "platform.json",
                                PUBLIC)
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"{r.manifest.game}: finished, winners {r.manifest.winners}, intact" for r in records]

