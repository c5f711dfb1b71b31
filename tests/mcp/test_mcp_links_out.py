"""Through MCP, a path inside the root whose real path is not (``creds.py`` linked to
``~/.aws/credentials``, a file of a linked folder, a linked notebook) is a tool error naming
it, for every tool that takes a path or a target; the whole root's diagnostics, format and
fix leave such files out and say so; and no word of an outside file is in any answer (text
or structured), with ruff and basedpyright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import find_server
from tests.links_out import INSIDE, NAMED, leaked, stranger_with_links

from .harness import Client, structured, text
from .test_mcp_arguments import TOOLS

pytestmark = pytest.mark.real_server


def arguments_naming(tool: str, path: str) -> dict[str, Any] | None:
    """A call of ``tool`` about ``path`` (``None`` for a tool that takes none)."""
    properties = TOOLS[tool].get("properties", {})
    if "path" in properties:
        if tool == "edit":
            return {"path": path, "edits": [{"old": "aws", "new": "x"}], "write": False}
        return {"path": path}
    if "paths" in properties:
        return {"paths": [path]}
    if "target" in properties:
        call: dict[str, Any] = {"target": f"{path}:1:1"}
        if "new_name" in TOOLS[tool].get("required", []):
            call["new_name"] = "renamed"
        return call
    return None


@pytest.fixture(scope="module", params=["ruff", "basedpyright"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Client, Path]]:
    server = str(request.param)
    find_server(server)
    root = stranger_with_links(tmp_path_factory.mktemp("links-out"), git=True)
    client = Client.stdio("--root", root, "--server", server)
    try:
        yield client, root
    finally:
        client.close()


def test_every_tool_refuses_a_path_that_leads_out(served: tuple[Client, Path]) -> None:
    client, _root = served
    asked = 0
    for tool in sorted(TOOLS):
        for path in NAMED:
            call = arguments_naming(tool, path)
            if call is None:
                continue
            result = client.call(tool, call)
            said = text(result)
            assert result.is_error, (tool, path, said)
            assert f"{path} leads out of the root through a symbolic link" in said, (tool, said)
            assert leaked(said, result.structured_content) == [], (tool, path, said)
            asked += 1
    assert asked >= 14 * len(NAMED)  # every tool that takes a path or a target


def test_the_whole_root_leaves_links_out_and_says_so(served: tuple[Client, Path]) -> None:
    client, root = served
    outside = (root.parent / "outside" / "credentials").read_bytes()
    result = client.call("diagnostics", {})
    answer = structured(result)
    assert leaked(text(result), answer) == []
    assert {item["path"] for item in answer["items"]} <= {"a.py", INSIDE, "sub/b.py"}
    assert "a.py" in {item["path"] for item in answer["items"]}
    assert "3 files left out: links out of the root, never read" in text(result)
    for tool, call in (
        ("diagnostics", {"paths": ["sub"]}),
        ("find_symbol", {"query": "LEAKED"}),
        ("references", {"target": "a.py:3:1"}),
        ("format", {}),
        ("fix", {}),
    ):
        result = client.call(tool, call)
        assert leaked(text(result), result.structured_content) == [], (tool, text(result))
    assert (root.parent / "outside" / "credentials").read_bytes() == outside
