"""Notebooks through the MCP server, as an agent uses them: the outline of a notebook gives
each symbol's cell and a target the other tools take, and ``edit`` changes the text of the
cells' sources (never the raw JSON), keeping every other byte of the file. With basedpyright
(cell by cell, notebook sync), driven by the MCP SDK's own client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import find_server
from tests.workspace.test_notebooks_real import notebook

from .harness import Client, structured, text

pytestmark = pytest.mark.real_server

CALC = "def triple(x: int) -> int:\n    return 3 * x\n"

CELLS = (
    ("markdown", "# Uses calc\n"),
    ("code", "from calc import triple\n%matplotlib inline\ntotal = triple(2)\n"),
    (
        "code",
        "def shout(text: str) -> str:\n    return text.upper()\n\n\n"
        "class Box:\n    def size(self) -> int:\n        return 1\n",
    ),
    ("code", "print(shout(str(total)))\ntotal = 3\n"),
)
"""``total`` is defined in two cells: its targets say which (``[0]``, ``[1]``)."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    find_server("basedpyright-langserver")
    (tmp_path / "calc.py").write_text(CALC, encoding="utf-8")
    (tmp_path / "nb.ipynb").write_text(notebook(*CELLS), encoding="utf-8")
    return tmp_path.resolve()


@pytest.fixture
def client(project: Path) -> Iterator[Client]:
    session = Client.stdio("--root", project, "--server", "basedpyright")
    try:
        yield session
    finally:
        session.close()


def walk(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for item in items:
        yield item
        yield from walk(item["children"])


# -- symbols: each with its cell and a target ------------------------------------------------------


def test_the_outline_of_a_notebook_gives_cells_and_targets_the_tools_take(client: Client) -> None:
    outline = structured(client.call("symbols", {"path": "nb.ipynb"}))
    every = list(walk(outline["items"]))
    assert [(s["name_path"], s["cell"], s["line"], s["target"]) for s in every] == [
        ("total", 2, 3, "nb.ipynb#total[0]"),
        ("shout", 3, 1, "nb.ipynb#shout"),
        ("shout/text", 3, 1, "nb.ipynb#shout/text"),
        ("Box", 3, 5, "nb.ipynb#Box"),
        ("Box/size", 3, 6, "nb.ipynb#Box/size"),
        ("total", 4, 2, "nb.ipynb#total[1]"),
    ]
    for item in every:
        hover = client.call("hover", {"target": item["target"]})
        assert not hover.is_error, (item["target"], text(hover))
        assert item["name"] in (structured(hover)["markdown"] or ""), item["target"]
        found = structured(client.call("definition", {"target": item["target"]}))
        places = [(p["path"], p["cell"], p["line"]) for p in found["items"]]
        assert ("nb.ipynb", item["cell"], item["line"]) in places, (item["target"], places)
    uses = structured(client.call("references", {"target": "nb.ipynb#shout"}))
    assert [(u["cell"], u["line"], u["text"]) for u in uses["items"]] == [
        (4, 1, "print(shout(str(total)))")
    ]
    shown = text(client.call("symbols", {"path": "nb.ipynb"}))
    assert "variable total  (cell 4, line 2)  target nb.ipynb#total[1]" in shown
