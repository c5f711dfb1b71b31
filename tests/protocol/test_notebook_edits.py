"""Edits of notebook cells become edits of the notebook's file that change only the cells'
sources (notebooks.md, "Writing a notebook"); an edit that cannot be placed fails naming it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adecore_lsp.protocol.documents.notebooks import (
    JoinedDocument,
    Notebook,
    join_code_cells,
    parse_notebook,
)
from adecore_lsp.protocol.workspace.notebook_edits import cells_of_edit

NB = "file:///work/nb.ipynb"
TEXT = (
    json.dumps(
        {
            "cells": [
                {"cell_type": "markdown", "id": "m", "metadata": {}, "source": ["# T\n"]},
                {
                    "cell_type": "code",
                    "execution_count": 3,
                    "id": "a",
                    "metadata": {},
                    "outputs": [{"output_type": "stream", "name": "stdout", "text": ["6\n"]}],
                    "source": ["from calc import triple\n", "print(triple(2))"],
                },
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "id": "b",
                    "metadata": {},
                    "outputs": [],
                    "source": "y = triple(3)",
                },
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )
    + "\n"
)
NOTEBOOK = parse_notebook(TEXT)
JOINED = join_code_cells(NOTEBOOK)
CELL_A = "vscode-notebook-cell:/work/nb.ipynb#a"
CELL_B = "vscode-notebook-cell:/work/nb.ipynb#b"


def find(uri: str) -> tuple[str, Notebook, JoinedDocument | None] | None:
    if uri == NB + ".py":
        return NB, NOTEBOOK, JOINED
    if uri.startswith(("vscode-notebook-cell:/work/nb.ipynb", NB + "#")):
        return NB, NOTEBOOK, None
    return None


def edit_at(line: int, start: int, end: int, text: str, end_line: int | None = None) -> Any:
    return {
        "range": {
            "start": {"line": line, "character": start},
            "end": {"line": line if end_line is None else end_line, "character": end},
        },
        "newText": text,
    }


def whole_text(edit: Any) -> str:
    (change,) = [c for c in edit["documentChanges"] if c["textDocument"]["uri"] == NB]
    (only,) = change["edits"]
    assert only["range"]["start"] == {"line": 0, "character": 0}
    return str(only["newText"])


def test_a_rename_over_cells_and_a_file_changes_only_the_cells_sources() -> None:
    rename = {
        "changes": {
            "file:///work/calc.py": [edit_at(0, 4, 10, "thrice")],
            CELL_A: [edit_at(0, 17, 23, "thrice"), edit_at(1, 6, 12, "thrice")],
            CELL_B: [edit_at(0, 4, 10, "thrice")],
        }
    }
    rewritten, changes = cells_of_edit(rename, find, "utf-16")
    text = whole_text(rewritten)
    assert text == TEXT.replace("triple", "thrice")
    assert [c for c in rewritten["documentChanges"] if "calc.py" in c["textDocument"]["uri"]]
    (change,) = changes
    assert change.uri == NB
    assert change.cells == {
        2: (
            "from calc import triple\nprint(triple(2))",
            "from calc import thrice\nprint(thrice(2))",
        ),
        3: ("y = triple(3)", "y = thrice(3)"),
    }
    assert change.text == text


def test_basedpyrights_form_and_no_op_edits() -> None:
    # file:///.../nb.ipynb#1 is the second code cell; an edit that puts back what was there
    # leaves the cell (and so the notebook) untouched.
    same = {
        "documentChanges": [
            {"textDocument": {"uri": NB + "#0", "version": 3}, "edits": [edit_at(0, 0, 4, "from")]}
        ]
    }
    rewritten, changes = cells_of_edit(same, find, "utf-8")
    assert changes == []
    assert rewritten["documentChanges"] == []
    renamed = {
        "documentChanges": [
            {"textDocument": {"uri": NB + "#1", "version": 3}, "edits": [edit_at(0, 0, 1, "z")]}
        ]
    }
    rewritten, changes = cells_of_edit(renamed, find, "utf-32")
    assert changes[0].cells == {3: ("y = triple(3)", "z = triple(3)")}
    assert '"source": "z = triple(3)"' in whole_text(rewritten)


def test_an_edit_up_to_the_blank_line_after_a_cell_ends_at_the_cells_end() -> None:
    # Joined line 2 is the blank line after cell 2: an edit up to its start covers cell 2's
    # text and the line break joining it, which the new text ends with too.
    joined = {"changes": {NB + ".py": [edit_at(1, 0, 0, "print(6)\n", end_line=2)]}}
    _rewritten, changes = cells_of_edit(joined, find, "utf-16")
    assert changes[0].cells == {
        2: ("from calc import triple\nprint(triple(2))", "from calc import triple\nprint(6)")
    }


def test_an_edit_of_the_joined_document_lands_in_its_cell() -> None:
    # Joined: cell 2's lines are 0-1, a blank line, then cell 3's line 3.
    joined = {"changes": {NB + ".py": [edit_at(3, 0, 1, "w"), edit_at(1, 6, 12, "thrice")]}}
    rewritten, changes = cells_of_edit(joined, find, "utf-16")
    assert changes[0].cells == {
        2: (
            "from calc import triple\nprint(triple(2))",
            "from calc import triple\nprint(thrice(2))",
        ),
        3: ("y = triple(3)", "w = triple(3)"),
    }
    assert "calc" in whole_text(rewritten)


@pytest.mark.parametrize(
    ("uri", "text_edit", "said"),
    [
        ("vscode-notebook-cell:/work/nb.ipynb#gone", edit_at(0, 0, 1, "x"), "names no cell"),
        (NB + "#7", edit_at(0, 0, 1, "x"), "names no cell"),
        ("vscode-notebook-cell:/work/nb.ipynb#m", edit_at(0, 0, 1, "x"), "names no cell"),
        ("vscode-notebook-cell:/work/other.ipynb#a", edit_at(0, 0, 1, "x"), "cannot be read here"),
        (NB + ".py", edit_at(1, 0, 0, "x", end_line=3), "does not stay inside one cell"),
        (NB + ".py", edit_at(2, 0, 0, "x"), "does not stay inside one cell"),
        (NB + ".py", edit_at(3, 0, 0, "x\n", end_line=5), "does not stay inside one cell"),
        (NB + ".py", edit_at(1, 0, 0, "x\n", end_line=4), "does not stay inside one cell"),
        (CELL_A, {"range": {"start": {}}, "newText": "x"}, "without a valid range"),
        (CELL_A, edit_at(9, 0, 0, "x"), "reaches line 9"),
    ],
)
def test_an_edit_that_cannot_be_placed_fails_naming_it(uri: str, text_edit: Any, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        cells_of_edit({"changes": {uri: [text_edit]}}, find, "utf-16")


def test_edits_of_plain_files_pass_through_untouched() -> None:
    plain = {"changes": {"file:///work/calc.py": [edit_at(0, 0, 1, "x")]}}
    assert cells_of_edit(plain, find, "utf-16") == (plain, [])
    assert cells_of_edit(None, find, "utf-16") == (None, [])
    odd = {
        "documentChanges": [{"kind": "create", "uri": "file:///work/new.py"}, "junk"],
        "changes": 5,
    }
    assert cells_of_edit(odd, find, "utf-16") == (odd, [])
    assert cells_of_edit({"changes": 5}, find, "utf-16") == ({"changes": 5}, [])
    bad_parts = {
        "documentChanges": [
            {"textDocument": {"uri": 5}, "edits": []},
            {"textDocument": {"uri": CELL_A}, "edits": "no"},
        ]
    }
    assert cells_of_edit(bad_parts, find, "utf-16") == (bad_parts, [])
    assert cells_of_edit({"changes": {CELL_A: "no"}}, find, "utf-16") == (
        {"changes": {CELL_A: "no"}},
        [],
    )
    # Resource operations beside cell edits are kept, in order, before the notebook's edit.
    mixed = {
        "documentChanges": [
            {"kind": "create", "uri": "file:///work/new.py"},
            {"textDocument": {"uri": CELL_B, "version": 1}, "edits": [edit_at(0, 0, 1, "q")]},
        ]
    }
    rewritten, _changes = cells_of_edit(mixed, find, "utf-16")
    assert rewritten["documentChanges"][0] == {"kind": "create", "uri": "file:///work/new.py"}
    assert rewritten["documentChanges"][1]["textDocument"]["uri"] == NB


@pytest.mark.parametrize(
    "bad",
    [
        {**edit_at(0, 4, 10, "z"), "newText": None},
        {"range": edit_at(0, 4, 10, "z")["range"]},
        edit_at(0, 4, 10, "z") | {"range": {"start": {"line": 0.5, "character": 4}, "end": {}}},
        {"newText": "z"},
    ],
)
def test_a_text_edit_of_a_cell_that_is_not_a_text_edit_is_refused(bad: Any) -> None:
    """As for a plain file: a null or missing newText is never written as "None" or as a
    deletion, and a range must be of integer positions."""
    for form in (
        {"changes": {CELL_B: [bad]}},
        {"changes": {NB + ".py": [bad]}},
    ):
        with pytest.raises(ValueError, match="TextEdit"):
            cells_of_edit(form, find, "utf-16")


def test_an_entry_this_module_cannot_read_stays_for_the_edits_own_checks() -> None:
    """A malformed entry of the changes map is kept in the rewritten edit, where the plan's
    checks refuse it, rather than dropped without a word."""
    edit = {"changes": {CELL_B: [edit_at(0, 4, 10, "thrice")], "file:///work/a.py": "oops"}}
    rewritten, _changes = cells_of_edit(edit, find, "utf-16")
    assert {"textDocument": {"uri": "file:///work/a.py", "version": None}, "edits": "oops"} in (
        rewritten["documentChanges"]
    )


def test_parts_of_one_cell_are_applied_in_order() -> None:
    """Two parts naming one cell (two edits put together into one plan): the second is
    applied to the cell as the first left it, as a plan applies two parts of one file; the
    cells of each part are all written."""
    edit = {
        "documentChanges": [
            {"textDocument": {"uri": CELL_B, "version": None}, "edits": [edit_at(0, 0, 1, "z")]},
            {"textDocument": {"uri": CELL_A, "version": None}, "edits": [edit_at(0, 0, 4, "FROM")]},
            {"textDocument": {"uri": CELL_B, "version": None}, "edits": [edit_at(0, 0, 1, "zz")]},
            {
                "textDocument": {"uri": NB + ".py", "version": None},
                "edits": [edit_at(3, 3, 4, "+")],
            },
        ]
    }
    rewritten, (change,) = cells_of_edit(edit, find, "utf-16")
    assert change.cells == {
        2: (
            "from calc import triple\nprint(triple(2))",
            "FROM calc import triple\nprint(triple(2))",
        ),
        3: ("y = triple(3)", "zz + triple(3)"),
    }
    assert '"source": "zz + triple(3)"' in whole_text(rewritten)
