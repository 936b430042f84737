"""The snippet of docs/integration.md runs as written against the real services."""
import re
from pathlib import Path

DOC = Path(__file__).parent.parent.parent / "docs" / "integration.md"


async def test_the_integration_snippet_starts_a_game_draws_and_hears_a_refusal(services, nats_server, capsys):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    namespace = {"__name__": "integration_doc"}
    exec(compile(code, str(DOC), "exec"), namespace)
    await namespace["main"](nats_server.url, "doc-game")
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("[GameStarted(game_id='doc-game', players=3")
    assert printed[1].startswith("[StockDrawn(seat=1, card=")
    assert printed[2].startswith("Rejected(seat=0, command='draw_stock'")
