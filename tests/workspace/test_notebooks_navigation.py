"""Navigation in and into notebooks (notebooks.md, "What people see"): targets in cells
(``nb.ipynb:cell N:LINE[:COL]``, ``nb.ipynb#name``), answers that point into cells, outlines
of the cells, and a rename from a cell; with basedpyright by sync and as a joined document,
and through the MCP server."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from adecore_lsp import Registry, TargetNotFoundError, Workspace
from tests.integration.conftest import find_server
from tests.mcp.harness import Client, structured
from tests.workspace.conftest import write
from tests.workspace.test_notebooks_real import notebook

pytestmark = pytest.mark.real_server

CALC = "def triple(x: int) -> int:\n    return 3 * x\n"
NOTEBOOK = notebook(
    ("markdown", "# Uses calc\n"),
    ("code", "from calc import triple\n%matplotlib inline\ntotal = triple(2)\n"),
    ("code", "def shout(text: str) -> str:\n    return text.upper()\n"),
    ("code", "print(shout(str(total)))\n"),
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    find_server("basedpyright-langserver")
    return write(tmp_path / "p", {"calc.py": CALC, "nb.ipynb": NOTEBOOK})


@pytest.mark.parametrize("mode", ["sync", "joined"])
async def test_targets_in_cells_and_answers_in_cells(project: Path, mode: str) -> None:
    spec = replace(Registry.default().get("basedpyright"), notebooks=mode)
    async with Workspace(project, servers=[spec]) as ws:
        # From a cell to a .py file, and from a cell to another cell.
        (to_calc,) = await ws.definition("nb.ipynb:cell 2:3:9")
        assert (to_calc.path, to_calc.line, to_calc.column, to_calc.cell) == ("calc.py", 1, 5, None)
        (to_cell,) = await ws.definition("nb.ipynb:cell 4:1:7")
        assert (to_cell.path, to_cell.cell, to_cell.line, to_cell.column) == ("nb.ipynb", 3, 1, 5)
        hover = await ws.hover("nb.ipynb#shout")
        assert hover is not None
        assert "def shout(text: str) -> str" in hover
        uses = await ws.references("calc.py#triple")
        assert [(r.location.path, r.location.cell, r.location.line) for r in uses] == [
            ("nb.ipynb", 2, 1),
            ("nb.ipynb", 2, 3),
        ]
        outline = await ws.symbols("nb.ipynb")
        assert [(s.name, s.cell, s.location.line) for s in outline] == [
            ("total", 2, 3),
            ("shout", 3, 1),
        ]
        assert (await ws.resolve("nb.ipynb:cell 3:2")).name == "shout"
        plan = await ws.rename("nb.ipynb#shout", "yell")
    assert sorted(plan.changed_files) == ["nb.ipynb"]
    assert "+def yell(text: str) -> str:" in plan.diff
    assert "+print(yell(str(total)))" in plan.diff
    assert "--- a/nb.ipynb (cell 4)" in plan.diff


async def test_a_written_notebook_is_said_saved_to_a_server_that_asks(
    project: Path, tmp_path: Path
) -> None:
    """basedpyright asks for saves (``save: true``): after the rename is written, it hears
    notebookDocument/didSave, and the notebook's cells as they now are."""
    import json

    trace = tmp_path / "trace.jsonl"
    async with Workspace(project, servers=["basedpyright"], trace=str(trace)) as ws:
        plan = await ws.rename("nb.ipynb#shout", "yell")
        await ws.apply(plan)
        (place,) = await ws.definition("nb.ipynb:cell 4:1:7")
    assert (place.cell, place.line) == (3, 1)
    sent = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    methods = [
        (record.get("message") or {}).get("method")
        for record in sent
        if record.get("direction") == "send"
    ]
    assert "notebookDocument/didSave" in methods
    assert methods.index("notebookDocument/didChange") < methods.index("notebookDocument/didSave")


async def test_wrong_targets_in_notebooks_say_why(project: Path) -> None:
    async with Workspace(project, servers=["basedpyright"]) as ws:
        with pytest.raises(ValueError, match=r"names its cell: nb\.ipynb:cell N:LINE"):
            await ws.hover("nb.ipynb:2:1")
        with pytest.raises(ValueError, match="cell 1 is a markdown cell"):
            await ws.hover("nb.ipynb:cell 1:1:1")
        with pytest.raises(ValueError, match="no cell 9"):
            await ws.hover("nb.ipynb:cell 9:1:1")
        with pytest.raises(ValueError, match="outside the file"):
            await ws.hover("nb.ipynb:cell 2:7:1")
        with pytest.raises(ValueError, match=r"calc\.py is not a notebook"):
            await ws.hover("calc.py:cell 2:1:1")
        with pytest.raises(TargetNotFoundError, match="no symbol nowhere"):
            await ws.hover("nb.ipynb#nowhere")
        with pytest.raises(TargetNotFoundError, match=r"no symbol of nb\.ipynb is at"):
            await ws.resolve("nb.ipynb:cell 4:1")


@pytest.fixture
def mcp(project: Path) -> Iterator[Client]:
    session = Client.stdio("--root", project, "--server", "basedpyright")
    try:
        yield session
    finally:
        session.close()


def test_mcp_targets_and_places_carry_the_cell(mcp: Client) -> None:
    found = structured(mcp.call("definition", {"target": "nb.ipynb:cell 4:1:7"}))
    (place,) = found["items"]
    assert (place["path"], place["cell"], place["line"], place["column"]) == ("nb.ipynb", 3, 1, 5)
    assert place["text"] == "def shout(text: str) -> str:"
    checked = structured(mcp.call("diagnostics", {"paths": ["nb.ipynb"]}))
    assert checked["complete"] is True
    assert all(item["cell"] in (2, 3, 4) for item in checked["items"])
