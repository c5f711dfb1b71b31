"""The MCP ``diagnostics`` tool of the root or a folder gives each server the files of its
scope, as the command line does; a file named goes to every server that takes it."""

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
        "pyproject.toml": '[tool.pyright]\ninclude = ["src"]\n',
        "src/a.py": BAD,
        "scripts/s.py": BAD,
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
    """Once wrong for a folder: its files were named one by one, and basedpyright checked
    ``scripts`` that its configuration leaves out."""
    assert found(client, {}) == {
        ("ruff", "src/a.py", 1),
        ("ruff", "scripts/s.py", 1),
        ("basedpyright", "src/a.py", 2),
    }
    assert found(client, {"paths": ["scripts"]}) == {("ruff", "scripts/s.py", 1)}
    assert found(client, {"paths": ["scripts/s.py"]}) == {
        ("ruff", "scripts/s.py", 1),
        ("basedpyright", "scripts/s.py", 2),
    }
