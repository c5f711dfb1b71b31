"""Jupyter notebooks in the workspace against real servers (notebooks.md): ruff, basedpyright
and pyrefly by LSP notebook sync, a server made to take the joined document, IPython lines
dropped or blanked, and a file that is no notebook reported as such."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from adecore_lsp import Registry, Workspace
from tests.integration.conftest import find_server
from tests.workspace.conftest import write

pytestmark = pytest.mark.real_server


def notebook(*cells: tuple[str, str], ids: bool = False) -> str:
    """An nbformat 4 notebook of ``(kind, source)`` cells, as Jupyter writes it."""
    made = []
    for number, (kind, source) in enumerate(cells, 1):
        cell: dict[str, object] = {"cell_type": kind, "metadata": {}}
        if ids:
            cell["id"] = f"c{number}"
        if kind == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
        cell["source"] = source.splitlines(keepends=True)
        made.append(cell)
    document = {
        "cells": made,
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5 if ids else 4,
    }
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


ANALYSIS = notebook(
    ("markdown", "# Analysis\n"),
    ("code", "import os\n%matplotlib inline\ncount: int = 'many'\n"),
    ("markdown", "More text"),
    ("code", "!ls\nprint(count)\nmissing_name\n"),
)
"""Cell 2 has an unused import and (for type checkers) a wrong assignment on its line 3;
cell 4 an undefined name on its line 3; lines 2 of cell 2 and 1 of cell 4 are IPython's."""


def found(report: object) -> list[tuple[str, int | None, int, int, str | int | None]]:
    items = getattr(report, "items")  # noqa: B009 - any report with items
    return [(d.path, d.cell, d.line, d.column, d.code) for d in items]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(
        tmp_path / "project",
        {
            "nb.ipynb": ANALYSIS,
            "plain.py": "import sys\n",
            ".ipynb_checkpoints/nb-checkpoint.ipynb": ANALYSIS,
        },
    )


async def test_ruff_takes_the_notebook_by_sync_as_its_command_line_does(project: Path) -> None:
    find_server("ruff")
    (project / "ruff.toml").write_text('[lint]\nselect = ["F"]\n', encoding="utf-8")
    async with Workspace(project, servers=["ruff"]) as ws:
        report = await ws.diagnostics()
        handle = ws.server_choice.used()[0]
        assert [mode for _view, mode in handle.notebooks.values()] == ["sync"]
    assert report.complete
    assert set(report.files) == {"nb.ipynb", "plain.py"}  # checkpoints are skipped
    # As `ruff check` prints them: nb.ipynb:cell 2:1:8 F401, nb.ipynb:cell 4:3:1 F821.
    assert found(report) == [
        ("nb.ipynb", 2, 1, 8, "F401"),
        ("nb.ipynb", 4, 3, 1, "F821"),
        ("plain.py", None, 1, 8, "F401"),
    ]
    unused = report.items[0]
    assert (unused.end_line, unused.end_column) == (1, 10)
    assert str(unused).startswith("nb.ipynb:cell 2:1:8: warning: ")


async def test_basedpyright_cells_come_by_push(project: Path) -> None:
    find_server("basedpyright-langserver")
    async with Workspace(project, servers=["basedpyright"]) as ws:
        report = await ws.diagnostics(["nb.ipynb"], timeout=60)
        handle = ws.server_choice.used()[0]
        # basedpyright answers cell pulls with nothing: with notebooks in the root, pushes.
        assert not handle.declares_pulls()
    assert report.complete, report
    places = {(d.cell, d.line, d.code) for d in report.items}
    assert (2, 3, "reportAssignmentType") in places
    assert (4, 3, "reportUndefinedVariable") in places
    assert all(d.cell in (2, 4) for d in report.items)
    # Nothing on IPython's lines (basedpyright reads them; nothing is reported there).
    assert not {(d.cell, d.line) for d in report.items} & {(2, 2), (4, 1)}


async def test_a_server_of_joined_documents_is_mapped_back_to_cells(project: Path) -> None:
    find_server("ruff")
    (project / "ruff.toml").write_text('[lint]\nselect = ["F"]\n', encoding="utf-8")
    joined = replace(Registry.default().get("ruff"), notebooks="joined")
    async with Workspace(project, servers=[joined]) as ws:
        report = await ws.diagnostics(["nb.ipynb"])
        handle = ws.server_choice.used()[0]
        assert [mode for _view, mode in handle.notebooks.values()] == ["joined"]
        view = ws.notebook("nb.ipynb")
        assert view is not None
        assert view.joined_uri in handle.documents  # one document, never written to disk
        assert not Path(view.path.as_posix() + ".py").exists()
    assert report.complete
    assert found(report) == [("nb.ipynb", 2, 1, 8, "F401"), ("nb.ipynb", 4, 3, 1, "F821")]


async def test_ipython_lines_are_blank_for_a_server_that_cannot_read_them(tmp_path: Path) -> None:
    find_server("jedi-language-server")
    root = write(tmp_path / "p", {"nb.ipynb": ANALYSIS})
    plain = Registry.default().get("jedi-language-server")
    assert plain.ipython is False
    async with Workspace(root, servers=[plain]) as ws:
        report = await ws.diagnostics(timeout=60)
    assert report.complete
    # jedi reads `%matplotlib inline` as a syntax error; blanked, nothing is said of it.
    assert report.items == []
    reads_it = replace(plain, ipython=True)
    async with Workspace(root, servers=[reads_it]) as ws:
        report = await ws.diagnostics(timeout=60)
    # Even when the server reports the line, a finding on an IPython line is dropped.
    assert all(not (d.cell == 2 and d.line == 2) for d in report.items)


async def test_a_file_that_is_no_notebook_is_said_and_the_others_are_checked(
    project: Path,
) -> None:
    find_server("ruff")
    (project / "broken.ipynb").write_text('{"cells": [}', encoding="utf-8")
    (project / "old.ipynb").write_text('{"nbformat": 3, "worksheets": []}', encoding="utf-8")
    async with Workspace(project, servers=["ruff"]) as ws:
        report = await ws.diagnostics()
    assert not report.complete
    assert str(report.files["broken.ipynb"].reason).startswith("invalid notebook: ")
    assert report.files["old.ipynb"].reason == (
        "invalid notebook: nbformat 3 is not supported (only 4 is)"
    )
    assert report.reason is not None
    assert report.reason.startswith("invalid notebook: ")
    assert report.files["nb.ipynb"].complete
    assert ("nb.ipynb", 4, 3, 1, "F821") in found(report)


async def test_a_notebook_changed_on_disk_is_seen_cell_by_cell(project: Path) -> None:
    find_server("ruff")
    async with Workspace(project, servers=["ruff"]) as ws:
        first = await ws.diagnostics(["nb.ipynb"])
        assert ("nb.ipynb", 4, 3, 1, "F821") in found(first)
        fixed = notebook(
            ("markdown", "# Analysis\n"),
            ("code", "import os\n%matplotlib inline\ncount: int = 'many'\nprint(os.sep)\n"),
            ("markdown", "More text"),
            ("code", "!ls\nprint(count)\n"),
            ("code", "undefined_here\n"),
        )
        (project / "nb.ipynb").write_text(fixed, encoding="utf-8")
        second = await ws.diagnostics(["nb.ipynb"])
    assert second.complete
    codes = [(d.cell, d.line, d.code) for d in second.items]
    assert (5, 1, "F821") in codes  # a cell that came
    assert (4, 3, "F821") not in codes  # the line that went
    assert (2, 1, "F401") not in codes  # os is used now


async def test_cell_magics_and_shell_lines_never_give_findings(tmp_path: Path) -> None:
    find_server("ruff")
    root = write(
        tmp_path / "magic",
        {
            "ruff.toml": '[lint]\nselect = ["F"]\n',
            "nb.ipynb": notebook(
                ("markdown", "# counts in the numbering\n"),
                ("code", "%%bash\nundefined_in_bash\n"),
                ("code", "files = !ls\n!pip install nothing\nx = missing_one\n"),
            ),
        },
    )
    async with Workspace(root, servers=["ruff"]) as ws:
        report = await ws.diagnostics()
    # The %% cell is skipped whole; the shell lines are no Python; cell 3's line 3 is.
    assert found(report) == [("nb.ipynb", 3, 3, 5, "F821")]


async def test_a_server_that_does_not_announce_sync_gets_the_joined_document(
    project: Path,
) -> None:
    """ruff behind a proxy that hides its notebookDocumentSync: the registry leaves the mode
    to the server (notebooks unset), so the notebook goes as one joined document."""
    import sys

    ruff = find_server("ruff")
    (project / "ruff.toml").write_text('[lint]\nselect = ["F"]\n', encoding="utf-8")
    proxy = Path(__file__).with_name("hide_notebook_sync.py")
    hidden = replace(
        Registry.default().get("ruff"),
        id="ruff-without-notebooks",
        command=[sys.executable, str(proxy), ruff, "server"],
        notebooks=None,
    )
    async with Workspace(project, servers=[hidden]) as ws:
        report = await ws.diagnostics(["nb.ipynb"])
        assert [mode for _view, mode in ws.server_choice.used()[0].notebooks.values()] == ["joined"]
    assert report.complete
    assert found(report) == [("nb.ipynb", 2, 1, 8, "F401"), ("nb.ipynb", 4, 3, 1, "F821")]
