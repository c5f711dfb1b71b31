"""Notebook synchronisation, sans-IO: which servers' selectors take a notebook, and the
``notebookDocument/*`` params that open, change, save and close one."""

from __future__ import annotations

import json

import pytest

from adecore_lsp.protocol.documents.documents import DocumentStore
from adecore_lsp.protocol.documents.notebook_sync import (
    JUPYTER,
    CellText,
    NotebookSync,
    notebook_selector_matches,
    sync_options,
)
from adecore_lsp.protocol.documents.notebooks import parse_notebook

NB = "file:///work/nb.ipynb"
CELL1 = "vscode-notebook-cell:/work/nb.ipynb#cell2"
CELL2 = "vscode-notebook-cell:/work/nb.ipynb#cell3"

BASEDPYRIGHT = [
    {
        "notebook": {"scheme": "file", "notebookType": "jupyter-notebook"},
        "cells": [{"language": "python"}],
    }
]
RUFF = [{"cells": [{"language": "python"}]}]


@pytest.mark.parametrize(
    ("selector", "uri", "language", "taken"),
    [
        (RUFF, NB, "python", True),
        (RUFF, NB, "r", False),
        (BASEDPYRIGHT, NB, "python", True),
        (BASEDPYRIGHT, "untitled:nb.ipynb", "python", False),
        ([{"notebook": "jupyter-notebook"}], NB, "r", True),
        ([{"notebook": "*", "cells": [{"language": "*"}]}], NB, "julia", True),
        ([{"notebook": "interactive"}], NB, "python", False),
        ([{"notebook": {"pattern": "**/*.ipynb"}}], NB, "python", True),
        ([{"notebook": {"pattern": "**/*.other"}}], NB, "python", False),
        ([{"notebook": {"notebookType": "interactive"}}], NB, "python", False),
        ([{"notebook": {"scheme": "*"}}], NB, "python", True),
        ([{"notebook": {"scheme": 3}}], NB, "python", False),
        ([{"notebook": {}}], NB, "python", False),  # a filter of nothing takes nothing
        ([{"notebook": 7}], NB, "python", False),
        ([{"cells": "python"}], NB, "python", False),
        ([{}, "python", {"cells": [{"language": "python"}]}], NB, "python", True),
        ([{}], NB, "python", False),
        (None, NB, "python", False),
    ],
)
def test_a_notebook_selector_takes_what_it_names(
    selector: object, uri: str, language: str, taken: bool
) -> None:
    assert notebook_selector_matches(selector, JUPYTER, uri, language) is taken


def test_registrations_come_before_the_static_capability() -> None:
    static = {"notebookSelector": RUFF, "save": False}
    registered = [{"notebookSelector": [{"notebook": "interactive"}], "save": True}]
    assert sync_options(static, registered, JUPYTER, NB, "python") == static
    taking = [{"notebookSelector": BASEDPYRIGHT, "save": True}]
    assert sync_options(static, taking, JUPYTER, NB, "python") == taking[0]
    assert sync_options(None, [], JUPYTER, NB, "python") is None
    assert sync_options(True, [], JUPYTER, NB, "python") is None


def cells(first: str = "import os\n", second: str = "print(os)\n") -> list[CellText]:
    return [CellText(CELL1, "python", first), CellText(CELL2, "python", second)]


def test_open_change_save_and_close_a_notebook() -> None:
    store = DocumentStore()
    sync = NotebookSync(store)
    opened = sync.open(NB, JUPYTER, cells(), "utf-16", metadata={"kernelspec": {}})
    assert opened == {
        "notebookDocument": {
            "uri": NB,
            "notebookType": JUPYTER,
            "version": 1,
            "cells": [{"kind": 2, "document": CELL1}, {"kind": 2, "document": CELL2}],
            "metadata": {"kernelspec": {}},
        },
        "cellTextDocuments": [
            {"uri": CELL1, "languageId": "python", "version": 1, "text": "import os\n"},
            {"uri": CELL2, "languageId": "python", "version": 1, "text": "print(os)\n"},
        ],
    }
    # The cells are documents of the store: positions and versions work as for files.
    assert store[CELL1].text == "import os\n"
    assert sync.cells_of(NB) == [CELL1, CELL2]

    assert sync.change(NB, cells()) is None  # nothing changed, nothing to send
    changed = sync.change(NB, cells(second="print(os.sep)\n"))
    assert changed == {
        "notebookDocument": {"uri": NB, "version": 2},
        "change": {
            "cells": {
                "textContent": [
                    {
                        "document": {"uri": CELL2, "version": 2},
                        "changes": [{"text": "print(os.sep)\n"}],
                    }
                ]
            }
        },
    }
    assert store[CELL2].version == 2
    assert store[CELL1].version == 1
    assert sync.save(NB) == {"notebookDocument": {"uri": NB}}

    closed = sync.close(NB)
    assert closed == {
        "notebookDocument": {"uri": NB},
        "cellTextDocuments": [{"uri": CELL1}, {"uri": CELL2}],
    }
    assert CELL1 not in store
    assert json.dumps(closed)  # plain JSON values only


def test_what_cannot_be_done_is_said() -> None:
    sync = NotebookSync(DocumentStore())
    with pytest.raises(ValueError, match="is not open"):
        sync.save(NB)
    with pytest.raises(ValueError, match="is not open"):
        sync.change(NB, cells())
    sync.open(NB, JUPYTER, cells(), "utf-8")
    with pytest.raises(ValueError, match="already open"):
        sync.open(NB, JUPYTER, cells(), "utf-8")
    other = NotebookSync(sync.store)
    with pytest.raises(ValueError, match=r"cell .* is already open"):
        other.open("file:///work/other.ipynb", JUPYTER, cells()[:1], "utf-8")
    other.open("file:///work/other.ipynb", JUPYTER, [CellText("x:o#1", "python", "")], "utf-8")
    with pytest.raises(ValueError, match=r"cell x:o#1 is already open"):
        sync.change(NB, [*cells(), CellText("x:o#1", "python", "")])
    # A cell closed on its own (a restart's bookkeeping) does not stop the notebook's close.
    sync.store.close(CELL1)
    assert sync.close(NB)["cellTextDocuments"] == [{"uri": CELL1}, {"uri": CELL2}]
    assert sync.open(NB, JUPYTER, [], "utf-8")["notebookDocument"]["cells"] == []


def test_cells_that_come_go_and_change_in_one_did_change() -> None:
    store = DocumentStore()
    sync = NotebookSync(store)
    sync.open(NB, JUPYTER, cells(), "utf-16")
    third = "vscode-notebook-cell:/work/nb.ipynb#cell4"
    changed = sync.change(
        NB,
        [CellText(CELL2, "python", "print(1)\n"), CellText(third, "python", "x = 2\n")],
        "utf-16",
    )
    assert changed == {
        "notebookDocument": {"uri": NB, "version": 2},
        "change": {
            "cells": {
                "structure": {
                    "array": {
                        "start": 0,
                        "deleteCount": 2,
                        "cells": [{"kind": 2, "document": CELL2}, {"kind": 2, "document": third}],
                    },
                    "didOpen": [
                        {"uri": third, "languageId": "python", "version": 1, "text": "x = 2\n"}
                    ],
                    "didClose": [{"uri": CELL1}],
                },
                "textContent": [
                    {"document": {"uri": CELL2, "version": 2}, "changes": [{"text": "print(1)\n"}]}
                ],
            }
        },
    }
    assert CELL1 not in store
    assert store[third].text == "x = 2\n"
    assert sync.cells_of(NB) == [CELL2, third]
    # Moved, with no text changed: the structure alone.
    moved = sync.change(
        NB,
        [CellText(third, "python", "x = 2\n"), CellText(CELL2, "python", "print(1)\n")],
    )
    assert moved is not None
    assert "textContent" not in moved["change"]["cells"]
    assert moved["change"]["cells"]["structure"]["didOpen"] == []


def test_the_raw_line_of_each_source_line() -> None:
    document = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": ["import os\n", "x = 1\n", "y"],
            },
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": "a = 1\nb = 2",
            },
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": [],
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    text = json.dumps(document, indent=1)
    notebook = parse_notebook(text)
    lines = text.split("\n")
    assert lines[notebook.file_line(2, 0)].strip() == '"import os\\n",'
    assert lines[notebook.file_line(2, 1)].strip() == '"x = 1\\n",'
    assert lines[notebook.file_line(2, 2)].strip() == '"y"'
    assert notebook.file_line(2, 9) == notebook.file_line(2, 2)  # past the end: the last
    assert lines[notebook.file_line(3, 1)].strip() == '"source": "a = 1\\nb = 2"'
    assert lines[notebook.file_line(4, 0)].strip() == '"source": []'
