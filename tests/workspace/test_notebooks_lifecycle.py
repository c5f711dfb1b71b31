"""Notebooks over a workspace's life, with ruff: closed and opened again, a server restarted,
format and fix of a joined document, the lines shown for cells, a notebook of another
language, and warm new_since refusing what it cannot take in place."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from adecore_lsp import Registry, Workspace
from adecore_lsp.workspace.checks import warm_revision
from adecore_lsp.workspace.files.lines import line_of
from tests.integration.conftest import find_server
from tests.workspace.conftest import write
from tests.workspace.test_notebooks_real import ANALYSIS, found, notebook

pytestmark = pytest.mark.real_server

RUFF_F = {"ruff.toml": '[lint]\nselect = ["F"]\n'}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    find_server("ruff")
    return write(tmp_path / "project", {**RUFF_F, "nb.ipynb": ANALYSIS, "plain.py": "x = 1\n"})


async def test_closed_restarted_and_opened_again(project: Path) -> None:
    for mode in ("sync", "joined"):
        spec = replace(Registry.default().get("ruff"), notebooks=mode)
        async with Workspace(project, servers=[spec]) as ws:
            first = await ws.diagnostics(["nb.ipynb"])
            await ws.close("nb.ipynb")
            assert ws.notebook("nb.ipynb") is None
            assert not ws.server_choice.used()[0].notebooks
            again = await ws.diagnostics(["nb.ipynb"])
            await ws.restart("ruff")
            restarted = await ws.diagnostics(["nb.ipynb"])
            view = ws.notebook("nb.ipynb")
            assert view is not None
            assert ws.notebook(view.joined_uri) is view
            assert ws.notebook(next(iter(view.cell_uris.values()))) is view
            assert ws.notebook("file:///elsewhere/x.ipynb") is None
        expected = [("nb.ipynb", 2, 1, 8, "F401"), ("nb.ipynb", 4, 3, 1, "F821")]
        assert found(first) == found(again) == found(restarted) == expected, mode


async def test_lines_of_cells(project: Path) -> None:
    async with Workspace(project, servers=["ruff"]) as ws:
        line = line_of(ws)
        # Not open yet: read from disk.
        assert line("nb.ipynb", 3, 2) == "count: int = 'many'"
        await ws.diagnostics(["nb.ipynb"])
        assert line("nb.ipynb", 1, 4) == "!ls"
        assert line("nb.ipynb", 9, 4) is None
        assert line("nb.ipynb", 1, 99) is None
        assert line("missing.ipynb", 1, 1) is None
        assert line("plain.py", 1) == "x = 1"


async def test_format_and_fix_of_a_joined_document(project: Path) -> None:
    text = notebook(("code", "import os\nimport sys\nx=1\n"), ("code", "y=os.sep\n"))
    (project / "nb.ipynb").write_text(text, encoding="utf-8")
    joined = replace(Registry.default().get("ruff"), notebooks="joined")
    async with Workspace(project, servers=[joined]) as ws:
        plan = await ws.fix(["nb.ipynb"])
        assert plan.changed_files == ["nb.ipynb"]
        assert "--- a/nb.ipynb (cell 1)\n" in plan.diff
        assert "-import sys\n" in plan.diff
        # Formatting the joined document moves the blank lines between cells: an edit that
        # crosses a cell's end is refused, naming it, and nothing is planned.
        with pytest.raises(ValueError, match="does not stay inside one cell"):
            await ws.format(["nb.ipynb"])
    (project / "nb.ipynb").write_text(
        notebook(("code", "x=1"), ("code", "y = 2")), encoding="utf-8"
    )
    async with Workspace(project, servers=[joined]) as ws:
        formatted = await ws.format(["nb.ipynb"])
    new = formatted.files["nb.ipynb"].new_text
    sources = ["".join(cell["source"]) for cell in json.loads(new)["cells"]]
    assert sources == ["x = 1", "y = 2"]


async def test_a_notebook_of_another_language_is_no_python_servers(tmp_path: Path) -> None:
    find_server("ruff")
    r_notebook = json.loads(notebook(("code", "x <- 1\n")))
    r_notebook["metadata"] = {"kernelspec": {"language": "R", "name": "ir"}}
    root = write(tmp_path / "r", {"analysis.ipynb": json.dumps(r_notebook)})
    async with Workspace(root, servers=["ruff"]) as ws:
        report = await ws.diagnostics(["analysis.ipynb"])
    assert report.items == []
    assert report.files["analysis.ipynb"].reason == "unsupported"


async def test_warm_new_since_takes_only_what_it_can_in_place(
    project: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "outside", {"o.py": "x = 1\n"})
    async with Workspace(project, servers=["ruff"]) as ws:
        assert not warm_revision.warm(ws, [])
        assert not warm_revision.warm(ws, [project / "plain.py"])  # no server runs yet
        await ws.diagnostics(["plain.py"])
        assert warm_revision.warm(ws, [project / "plain.py"])
        assert not warm_revision.warm(ws, [outside / "o.py"])
        assert not warm_revision.warm(ws, [project / "ruff.toml"])  # no server takes it
        assert not warm_revision.warm(ws, [project / "gone.py"])
