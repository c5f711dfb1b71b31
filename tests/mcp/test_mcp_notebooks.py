"""Notebooks through the MCP server, as an agent uses them: the outline of a notebook gives
each symbol's cell and a target the other tools take, and ``edit`` changes the text of the
cells' sources (never the raw JSON), keeping every other byte of the file. With basedpyright
(cell by cell, notebook sync), driven by the MCP SDK's own client."""

from __future__ import annotations

import json
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
        "class Box:\n    def size(self) -> int:\n        return 1",
    ),
    ("code", "print(shout(str(total)))\ntotal = 3\n"),
)
"""``total`` is defined in two cells: its targets say which (``[0]``, ``[1]``). Cell 3's
source ends without a line break, as Jupyter writes a cell's last line."""


def jupyter_notebook() -> str:
    """The notebook of ``CELLS`` as Jupyter writes one that ran: ids, outputs, execution
    counts, metadata, a non-ASCII character written raw."""
    data = json.loads(notebook(*CELLS, ids=True))
    last = data["cells"][3]
    last["execution_count"] = 3
    last["metadata"] = {"tags": ["résumé"]}
    last["outputs"] = [{"name": "stdout", "output_type": "stream", "text": ["6\n"]}]
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    find_server("basedpyright-langserver")
    (tmp_path / "calc.py").write_text(CALC, encoding="utf-8")
    (tmp_path / "nb.ipynb").write_text(jupyter_notebook(), encoding="utf-8")
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


# -- edit: the text of cells, never the JSON ---------------------------------------------------


def source_line(line: str) -> str:
    """A line of a cell's source as the notebook's JSON writes it (one string of a list)."""
    return json.dumps(line, ensure_ascii=False)


def test_an_edit_replaces_text_of_one_cell_and_keeps_every_other_byte(
    client: Client, project: Path
) -> None:
    before = (project / "nb.ipynb").read_text(encoding="utf-8")
    found = structured(
        client.call(
            "edit",
            {
                "path": "nb.ipynb",
                "edits": [
                    {
                        "old": "def shout(text: str) -> str:\n    return text.upper()",
                        "new": "def shout(text: str) -> str:\n    return text.upper() + '!'",
                    }
                ],
            },
        )
    )
    assert (found["applied"], found["complete"], found["changed_files"]) == (
        True,
        True,
        ["nb.ipynb"],
    )
    after = (project / "nb.ipynb").read_text(encoding="utf-8")
    assert after == before.replace(
        source_line("    return text.upper()\n"), source_line("    return text.upper() + '!'\n")
    )
    assert found["diff"].startswith(
        "diff --git a/nb.ipynb b/nb.ipynb\n--- a/nb.ipynb (cell 3)\n+++ b/nb.ipynb (cell 3)\n"
    )
    assert "-    return text.upper()\n+    return text.upper() + '!'\n" in found["diff"]
    assert found["introduced"] == []


def test_an_old_text_found_in_several_cells_names_each_place(client: Client, project: Path) -> None:
    before = (project / "nb.ipynb").read_bytes()
    result = client.call("edit", {"path": "nb.ipynb", "edits": [{"old": "total", "new": "t"}]})
    assert result.is_error
    assert (
        "edits[0]: the old text 'total' occurs 3 times in the cells of nb.ipynb "
        "(cell 2 line 3; cell 4 lines 1, 2); nothing was changed." in text(result)
    )
    escaped = client.call(
        "edit",
        {"path": "nb.ipynb", "edits": [{"old": '"    return text.upper()\\n",', "new": "x"}]},
    )
    assert escaped.is_error
    message = text(escaped)
    assert "does not occur in any cell of nb.ipynb" in message
    assert "not the notebook's JSON" in message
    assert "give the cell's text itself, its line breaks as line breaks" in message
    assert (project / "nb.ipynb").read_bytes() == before


def test_an_edit_by_symbol_replaces_its_lines_in_its_cell(client: Client, project: Path) -> None:
    before = (project / "nb.ipynb").read_text(encoding="utf-8")
    found = structured(
        client.call(
            "edit",
            {
                "path": "nb.ipynb",
                "target": "nb.ipynb#Box/size",
                "new": "    def size(self) -> int:\n        return 2",
            },
        )
    )
    assert found["applied"] is True
    after = (project / "nb.ipynb").read_text(encoding="utf-8")
    # The method's lines ended the cell's source, which has no final line break: nor does the
    # new one.
    assert after == before.replace(source_line("        return 1"), source_line("        return 2"))
    assert "--- a/nb.ipynb (cell 3)" in found["diff"]
    by_place = structured(
        client.call(
            "edit",
            {"path": "nb.ipynb", "target": "nb.ipynb:cell 4:2", "new": "total = 4"},
        )
    )
    assert "-total = 3\n+total = 4\n" in by_place["diff"]
    assert "--- a/nb.ipynb (cell 4)" in by_place["diff"]


def test_a_previewed_notebook_edit_says_what_it_would_break_in_another_cell(
    client: Client, project: Path
) -> None:
    before = (project / "nb.ipynb").read_bytes()
    structured(client.call("diagnostics", {"paths": ["nb.ipynb"]}))
    found = structured(
        client.call(
            "edit",
            {
                "path": "nb.ipynb",
                "edits": [{"old": "def shout(", "new": "def yell("}],
                "write": False,
            },
        )
    )
    assert found["applied"] is False
    [broken] = [item for item in found["introduced"] if item["code"] == "reportUndefinedVariable"]
    assert (broken["path"], broken["cell"], broken["line"]) == ("nb.ipynb", 4, 1)
    assert broken["text"] == "print(shout(str(total)))"
    assert (project / "nb.ipynb").read_bytes() == before


def test_a_file_that_is_no_notebook_is_written_only_as_a_notebook(
    client: Client, project: Path
) -> None:
    """A ``.ipynb`` that is not notebook JSON (a merge left markers in it) has no cells: its
    text is edited as it is, and only a result that is a notebook is written."""
    good = jupyter_notebook()
    broken = "<<<<<<< ours\n" + good + "=======\n{}\n>>>>>>> theirs\n"
    (project / "broken.ipynb").write_text(broken, encoding="utf-8")
    still = client.call(
        "edit",
        {"path": "broken.ipynb", "edits": [{"old": "<<<<<<< ours\n", "new": ""}]},
    )
    assert still.is_error
    assert "nothing was written: broken.ipynb would not be a notebook: not JSON" in text(still)
    assert (project / "broken.ipynb").read_text(encoding="utf-8") == broken
    repaired = structured(
        client.call(
            "edit",
            {
                "path": "broken.ipynb",
                "edits": [
                    {"old": "<<<<<<< ours\n", "new": ""},
                    {"old": "=======\n{}\n>>>>>>> theirs\n", "new": ""},
                ],
            },
        )
    )
    assert repaired["applied"] is True
    assert (project / "broken.ipynb").read_text(encoding="utf-8") == good
