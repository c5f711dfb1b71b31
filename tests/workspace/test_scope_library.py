"""The library's ``Workspace.diagnostics`` gives each file to the servers whose own command
line, given the same paths, checks it: the root by each configuration's scope, a folder or
a file given in place of pyright's ``include``; what no server checks is ``left_out``."""

from __future__ import annotations

from pathlib import Path

import pytest

from adecore_lsp import Diagnostic, Workspace
from tests.integration.conftest import find_server
from tests.workspace.conftest import write

pytestmark = pytest.mark.real_server

BAD = 'import os\nx: int = "s"\n'
"""ruff: an unused import (line 1); basedpyright: a type error (line 2)."""


def found(items: list[Diagnostic]) -> set[tuple[str, str, int]]:
    """Each server's findings (basedpyright's errors: its unused-import hint aside)."""
    return {
        (d.server, d.path, d.line) for d in items if d.server == "ruff" or d.severity == "error"
    }


async def test_each_server_checks_the_files_of_its_scope(tmp_path: Path) -> None:
    find_server("basedpyright-langserver")
    find_server("ruff")
    root = write(
        tmp_path / "p",
        {
            "pyproject.toml": '[tool.pyright]\ninclude = ["src"]\n',
            "src/a.py": BAD,
            "scripts/s.py": BAD,
        },
    )
    async with Workspace(root, servers=["basedpyright", "ruff"]) as ws:
        whole = await ws.diagnostics()
        folder = await ws.diagnostics(["scripts"])
        named = await ws.diagnostics(["scripts/s.py"])
    # ruff's defaults take both; basedpyright's configuration names src only ...
    assert found(whole.items) == {
        ("ruff", "src/a.py", 1),
        ("ruff", "scripts/s.py", 1),
        ("basedpyright", "src/a.py", 2),
    }
    assert set(whole.files) == {"src/a.py", "scripts/s.py"}
    # ... but a folder or file given replaces include, as `basedpyright scripts` does.
    both = {("ruff", "scripts/s.py", 1), ("basedpyright", "scripts/s.py", 2)}
    assert found(folder.items) == both
    assert found(named.items) == both
    assert all(report.complete for report in (whole, folder, named))


async def test_a_folder_no_scope_covers_checks_nothing_and_never_looks_clean(
    tmp_path: Path,
) -> None:
    find_server("basedpyright-langserver")
    root = write(
        tmp_path / "p",
        {
            "pyrightconfig.json": '{"include": ["src"], "exclude": ["scripts"]}',
            "src/a.py": BAD,
            "scripts/s.py": BAD,
        },
    )
    async with Workspace(root, servers=["basedpyright"]) as ws:
        report = await ws.diagnostics(["scripts"])
    assert report.files == {}
    assert report.items == []
    assert report.left_out == {
        "scripts/s.py": "left out by basedpyright's configuration (pyrightconfig.json, exclude)"
    }
    assert (report.complete, report.reason) == (False, "left_out")


async def test_a_configuration_that_cannot_be_read_is_a_warning(tmp_path: Path) -> None:
    find_server("basedpyright-langserver")
    root = write(tmp_path / "p", {"pyrightconfig.json": "{oops", "a.py": BAD})
    async with Workspace(root, servers=["basedpyright"]) as ws:
        with pytest.warns(UserWarning, match=r"pyrightconfig.json: line 1 column 2"):
            report = await ws.diagnostics()
    assert found(report.items) == {("basedpyright", "a.py", 2)}
