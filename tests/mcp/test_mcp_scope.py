"""The MCP ``diagnostics`` tool gives each server the files its own command line checks for
the same paths, as the command line does; what no server checks is named, never clean."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.conftest import find_server

from .harness import Client, structured

pytestmark = pytest.mark.real_server

BAD = 'import os\nx: int = "s"\n'
"""ruff: an unused import (line 1); basedpyright: a type error (line 2)."""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    find_server("basedpyright-langserver")
    find_server("ruff")
    root = tmp_path_factory.mktemp("mcp-scope")
    files = {
        "pyproject.toml": (
            '[tool.pyright]\ninclude = ["src"]\nexclude = ["gen"]\n'
            '[tool.ruff]\nextend-exclude = ["gen"]\n'
        ),
        "src/a.py": BAD,
        "scripts/s.py": BAD,
        "gen/g.py": BAD,
    }
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content, encoding="utf-8")
    session = Client.stdio("--root", root, "--server", "basedpyright", "--server", "ruff")
    try:
        yield session
    finally:
        session.close()


def found(client: Client, arguments: dict[str, object]) -> set[tuple[str, str, int]]:
    """Each server's findings (basedpyright's errors: its unused-import hint aside)."""
    items = structured(client.call("diagnostics", arguments))["items"]
    return {
        (item["server"], item["path"], item["line"])
        for item in items
        if item["server"] == "ruff" or item["severity"] == "error"
    }


def test_diagnostics_give_each_server_its_scope(client: Client) -> None:
    """The root by each configuration; a folder or file given as `basedpyright scripts`
    takes it (in place of include)."""
    assert found(client, {}) == {
        ("ruff", "src/a.py", 1),
        ("ruff", "scripts/s.py", 1),
        ("basedpyright", "src/a.py", 2),
    }
    both = {("ruff", "scripts/s.py", 1), ("basedpyright", "scripts/s.py", 2)}
    assert found(client, {"paths": ["scripts"]}) == both
    assert found(client, {"paths": ["scripts/s.py"]}) == both


def test_a_file_no_server_checks_is_named_never_clean(client: Client) -> None:
    """Once wrong: a file ruff's configuration excludes came back as an empty, complete
    report (ruff's server answers an empty report for a file it never linted)."""
    answer = client.call("diagnostics", {"paths": ["gen/g.py"]})
    result = structured(answer)
    assert result["items"] == []
    assert (result["complete"], result["reason"]) == (False, "left_out")
    assert set(result["left_out"]) == {"gen/g.py"}
    text = answer.content[0].text  # type: ignore[union-attr]
    assert "No file was checked" in text
    assert "left out by ruff's configuration (pyproject.toml, extend-exclude)" in text
    assert "Final for" not in text
