"""What the tests of generated documents (AsyncAPI, OpenAPI) share."""
import difflib
from pathlib import Path

import pytest


def refs_in(node) -> list[str]:
    """Every $ref anywhere in a JSON document."""
    if isinstance(node, dict):
        own = [node["$ref"]] if "$ref" in node else []
        return own + [r for v in node.values() for r in refs_in(v)]
    if isinstance(node, list):
        return [r for v in node for r in refs_in(v)]
    return []


def assert_committed_is_current(committed: Path, generated: str, regenerate: str) -> None:
    """Fail, with the command that fixes it and the start of the diff, when the committed copy is stale."""
    text = committed.read_text()
    if text != generated:
        name = f"docs/{committed.name}"
        diff = difflib.unified_diff(text.splitlines(), generated.splitlines(), name, "generated now",
                                    lineterm="", n=1)
        pytest.fail(f"{name} is stale: regenerate it with `{regenerate}` from the repository root\n"
                    + "\n".join(list(diff)[:40]), pytrace=False)
