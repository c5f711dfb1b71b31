"""Writing notebooks through the workspace (notebooks.md, "Writing a notebook") against ruff:
a file that cannot be read is left out of format and fix and named with why, the check after
a write is not held by files no server has, and a cell's report after another cell changed
is the report on the notebook as it is now."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from adecore_lsp import Registry, Workspace
from adecore_lsp.errors import LspError
from adecore_lsp.workspace.edits.editing import make_plan
from adecore_lsp.workspace.model import FileEdit, FileStatus
from tests.integration.conftest import find_server
from tests.workspace.conftest import write
from tests.workspace.test_notebooks_real import found, notebook

pytestmark = pytest.mark.real_server

LINT = '[lint]\nselect = ["F"]\n'
UNTIDY = notebook(
    ("markdown", "# Title\n"),
    ("code", "import os\nx=1\n"),
    ("code", "y = [1,2]\n"),
    ("code", "print( x, y )\n"),
)
"""Three code cells to format, an unused import to fix."""
OF_R = json.dumps(
    {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": ["x <- 1\n"]}],
        "metadata": {"kernelspec": {"language": "R", "name": "ir"}},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
)
"""A notebook of R's kernel: no Python server's."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    find_server("ruff")
    root = write(
        tmp_path / "p",
        {
            "ruff.toml": LINT,
            "nb.ipynb": UNTIDY,
            "good.py": "import sys\nx  =  1\n",
            "broken.ipynb": "{not json",
            "old.ipynb": json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": []}),
            "r.ipynb": OF_R,
        },
    )
    (root / "latin.py").write_bytes("name = 'café'\n".encode("latin-1"))
    return root


@pytest.mark.parametrize("command", ["format", "fix"])
async def test_what_cannot_be_read_is_skipped_and_named_the_rest_written(
    project: Path, command: str
) -> None:
    untouched = {name: (project / name).read_bytes() for name in ("broken.ipynb", "old.ipynb")}
    async with Workspace(project, servers=["ruff"]) as ws:
        plan = await (ws.format(".") if command == "format" else ws.fix("."))
        assert plan.skipped == {
            "broken.ipynb": FileStatus(False, plan.skipped["broken.ipynb"].reason),
            "latin.py": FileStatus(False, "not_utf8"),
            "old.ipynb": FileStatus(
                False, "invalid notebook: nbformat 3 is not supported (only 4 is)"
            ),
        }
        assert str(plan.skipped["broken.ipynb"].reason).startswith("invalid notebook: ")
        assert not plan.complete
        assert plan.reason == plan.skipped["broken.ipynb"].reason
        assert sorted(plan.files) == ["good.py", "nb.ipynb"]
        applied = await ws.apply(plan)
    assert applied.written == ["good.py", "nb.ipynb"]
    # The notebooks no server has (not one, or of another language) do not hold the check.
    assert applied.delta.complete, applied.delta
    assert {name: (project / name).read_bytes() for name in untouched} == untouched
    written = json.loads((project / "nb.ipynb").read_text(encoding="utf-8"))
    sources = ["".join(cell["source"]) for cell in written["cells"]]
    if command == "format":
        assert sources[1:] == ["import os\n\nx = 1\n", "y = [1, 2]\n", "print(x, y)\n"]
    else:
        assert sources[1] == "x=1\n"


async def test_a_notebook_of_another_language_does_not_hold_the_check_after_a_write(
    tmp_path: Path,
) -> None:
    """An R notebook under the root is opened, and no server takes it: the check after the
    write covers the files servers have, and is final."""
    find_server("ruff")
    root = write(tmp_path / "p", {"ruff.toml": LINT, "nb.ipynb": UNTIDY, "r.ipynb": OF_R})
    async with Workspace(root, servers=["ruff"]) as ws:
        plan = await ws.fix(".")
        assert plan.complete
        assert list(plan.files) == ["nb.ipynb"]
        applied = await ws.apply(plan)
    assert applied.delta.complete, applied.delta
    assert [(d.path, d.code) for d in applied.delta.resolved] == [("nb.ipynb", "F401")]


async def test_a_cells_report_after_another_cell_changed_is_the_current_one(
    tmp_path: Path,
) -> None:
    """ruff names the notebook's version in every cell's report: after a change of cell 1,
    cell 2's report (now with an undefined name) is for the notebook as it is, not the one
    from before the change."""
    find_server("ruff")
    root = write(
        tmp_path / "p",
        {"ruff.toml": LINT, "nb.ipynb": notebook(("code", "x = 1\n"), ("code", "print(x)\n"))},
    )
    async with Workspace(root, servers=["ruff"]) as ws:
        before = await ws.diagnostics(["nb.ipynb"])
        assert before.complete
        assert found(before) == []
        changed = notebook(("code", "y = 1\n"), ("code", "print(x)\n"))
        (root / "nb.ipynb").write_text(changed, encoding="utf-8")
        after = await ws.diagnostics(["nb.ipynb"])
        assert after.complete
        assert found(after) == [("nb.ipynb", 2, 1, 7, "F821")]
        # And a change of that cell alone after it: each cell still current.
        again = notebook(("code", "y = 1\n"), ("code", "print(y)\n"))
        (root / "nb.ipynb").write_text(again, encoding="utf-8")
        last = await ws.diagnostics(["nb.ipynb"])
    assert last.complete
    assert found(last) == []


async def test_a_silent_cell_is_pulled_at_the_notebooks_version(tmp_path: Path) -> None:
    """A cell whose pushes do not come (a proxy drops them) is pulled after the settle
    window; the answer counts for the notebook's version that ruff's reports name."""
    ruff = find_server("ruff")
    proxy = Path(__file__).with_name("drop_cell_pushes.py")
    dropping = replace(
        Registry.default().get("ruff"),
        id="ruff-silent-on-cell-2",
        command=[sys.executable, str(proxy), "#cell2", ruff, "server"],
    )
    root = write(
        tmp_path / "p",
        {"ruff.toml": LINT, "nb.ipynb": notebook(("code", "x = 1\n"), ("code", "print(x)\n"))},
    )
    async with Workspace(root, servers=[dropping], timeout=20) as ws:
        assert found(await ws.diagnostics(["nb.ipynb"])) == []
        changed = notebook(("code", "y = 1\n"), ("code", "print(x)\n"))
        (root / "nb.ipynb").write_text(changed, encoding="utf-8")
        after = await ws.diagnostics(["nb.ipynb"])
    assert after.complete, after
    assert found(after) == [("nb.ipynb", 2, 1, 7, "F821")]


async def test_a_write_that_would_not_be_a_notebook_is_refused_naming_it(project: Path) -> None:
    """Nothing is written, and the error names the notebook (the write path parses every
    notebook's new text first)."""
    before = (project / "nb.ipynb").read_bytes()
    async with Workspace(project, servers=["ruff"]) as ws:
        plan = await ws.format(["nb.ipynb", "good.py"])
        edit = plan.files["nb.ipynb"]
        plan.files["nb.ipynb"] = FileEdit(edit.old_text, edit.new_text[:-20], edit.diff, 1)
        with pytest.raises(LspError, match=r"nb\.ipynb"):
            await ws.apply(plan)
    assert (project / "nb.ipynb").read_bytes() == before
    assert (project / "good.py").read_text(encoding="utf-8") == "import sys\nx  =  1\n"


async def test_one_file_edited_in_two_position_encodings_is_refused(tmp_path: Path) -> None:
    """Edits of one file from servers of two encodings cannot be put together: the plan
    fails naming the file, rather than keeping one server's edits and dropping the
    other's."""
    root = write(tmp_path / "p", {"a.py": "a = 1\nb = 2\n"})
    uri = (root / "a.py").as_uri()

    def edit(line: int, new: str) -> dict[str, object]:
        span = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}
        return {"changes": {uri: [{"range": span, "newText": new}]}}

    async with Workspace(root) as ws:
        together = make_plan(ws, [(edit(0, "e"), "utf-8"), (edit(1, "c"), "utf-8")])
        assert together.files["a.py"].new_text == "e = 1\nc = 2\n"
        assert together.diff.count("--- a/a.py") == 1
        with pytest.raises(ValueError, match=r"a\.py is edited in two position encodings"):
            make_plan(ws, [(edit(0, "e"), "utf-8"), (edit(1, "c"), "utf-16")])


@pytest.mark.parametrize("how", ["edit", "preview_edit"])
async def test_an_edit_is_not_held_by_open_files_no_server_has(tmp_path: Path, how: str) -> None:
    """An R notebook and a broken one were opened by a check of the root: an edit of a
    file after that covers the files servers have, and its delta is final."""
    find_server("ruff")
    root = write(
        tmp_path / "p",
        {"ruff.toml": LINT, "a.py": "x = 1\n", "r.ipynb": OF_R, "broken.ipynb": "{not json"},
    )
    async with Workspace(root, servers=["ruff"]) as ws:
        await ws.diagnostics(".")
        change = ws.edit if how == "edit" else ws.preview_edit
        delta = await change("a.py", "import os\nx = 1\n")
    assert delta.complete, delta
    assert [(d.path, d.code) for d in delta.introduced] == [("a.py", "F401")]
