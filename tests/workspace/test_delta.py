"""delta: the rule of ``changes.md`` on Diagnostic values, lines followed through an edit
(the rule's own cases are in tests/protocol/test_changes.py)."""

from __future__ import annotations

import time

import pytest

from adecore_lsp.workspace.checks.delta import diagnostics_delta
from adecore_lsp.workspace.model import Diagnostic, Severity


def diag(
    line: int,
    message: str = "unused import",
    column: int = 1,
    *,
    path: str = "a.py",
    code: str | int | None = "F401",
    severity: Severity = "warning",
    server: str = "ruff",
    source: str | None = "Ruff",
) -> Diagnostic:
    return Diagnostic(path, line, column, line, column + 3, severity, message, source, code, server)


def delta(
    before: list[Diagnostic],
    after: list[Diagnostic],
    old: str | None = None,
    new: str | None = None,
) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
    texts = ({"a.py": old}, {"a.py": new}) if old is not None and new is not None else ({}, {})
    return diagnostics_delta(before, after, *texts)


OLD = "import os\nimport sys\n\nx = 1\n"


@pytest.mark.parametrize(
    ("before", "after", "old", "new", "introduced", "resolved", "unchanged"),
    [
        pytest.param(
            [diag(2, "sys unused")],
            [diag(4, "sys unused")],
            OLD,
            "# one\n# two\n" + OLD,
            [],
            [],
            [diag(4, "sys unused")],
            id="lines inserted above: it moved, unchanged",
        ),
        pytest.param(
            [diag(2, "sys unused")],
            [diag(1, "sys unused")],
            OLD,
            OLD.replace("import os\n", ""),
            [],
            [],
            [diag(1, "sys unused")],
            id="a line deleted above: it moved up, unchanged",
        ),
        pytest.param(
            [diag(1, "os unused"), diag(2, "sys unused")],
            [diag(1, "sys unused")],
            OLD,
            OLD.replace("import os\n", ""),
            [],
            [diag(1, "os unused")],
            [diag(1, "sys unused")],
            id="the line deleted: its diagnostic resolved",
        ),
        pytest.param(
            [diag(2, "sys unused")],
            [diag(2, "sys unused"), diag(4, "x undefined", code="F821", severity="error")],
            OLD,
            OLD.replace("x = 1", "y = x"),
            [diag(4, "x undefined", code="F821", severity="error")],
            [],
            [diag(2, "sys unused")],
            id="a new one introduced",
        ),
        pytest.param(
            [diag(2, "sys unused")],
            [diag(3, "sys unused")],
            OLD,
            OLD,
            [diag(3, "sys unused")],
            [diag(2, "sys unused")],
            [],
            id="same text, another line: not the same diagnostic",
        ),
        pytest.param(
            [diag(2, "sys unused", code="F401")],
            [diag(2, "sys unused", code="X1")],
            OLD,
            OLD,
            [diag(2, "sys unused", code="X1")],
            [diag(2, "sys unused", code="F401")],
            [],
            id="another code",
        ),
        pytest.param(
            [diag(2, "sys unused", server="ruff")],
            [diag(2, "sys unused", server="pyrefly")],
            OLD,
            OLD,
            [diag(2, "sys unused", server="pyrefly")],
            [diag(2, "sys unused", server="ruff")],
            [],
            id="another server",
        ),
        pytest.param(
            [diag(2, "sys unused", severity="warning")],
            [diag(2, "sys unused", severity="error")],
            OLD,
            OLD,
            [diag(2, "sys unused", severity="error")],
            [diag(2, "sys unused", severity="warning")],
            [],
            id="another severity",
        ),
        pytest.param(
            [diag(2, "sys unused", source="Ruff")],
            [diag(2, "sys unused", source=None)],
            OLD,
            OLD,
            [diag(2, "sys unused", source=None)],
            [diag(2, "sys unused", source="Ruff")],
            [],
            id="another source",
        ),
        pytest.param(
            [diag(1, "dup", 1), diag(1, "dup", 1), diag(1, "dup", 1)],
            [diag(2, "dup", 1), diag(2, "dup", 1)],
            "a\n",
            "new\na\n",
            [],
            [diag(1, "dup", 1)],
            [diag(2, "dup", 1), diag(2, "dup", 1)],
            id="duplicates matched one to one",
        ),
        pytest.param(
            [diag(2, "sys unused", 8)],
            [diag(2, "sys unused", 12)],
            OLD,
            OLD.replace("import sys", "import os, sys"),
            [],
            [],
            [diag(2, "sys unused", 12)],
            id="a line edited in place keeps it, at another column",
        ),
        pytest.param(
            [diag(2, "sys unused")],
            [diag(3, "sys unused")],
            OLD,
            OLD.replace("import sys\n", "import (\n    sys)\n"),
            [diag(3, "sys unused")],
            [diag(2, "sys unused")],
            [],
            id="a line replaced by two maps nowhere",
        ),
        pytest.param(
            [diag(2, "sys unused")],
            [diag(2, "sys unused")],
            None,
            None,
            [],
            [],
            [diag(2, "sys unused")],
            id="no texts: compared as they are",
        ),
        pytest.param([], [], OLD, OLD, [], [], [], id="nothing at all"),
    ],
)
def test_delta(
    before: list[Diagnostic],
    after: list[Diagnostic],
    old: str | None,
    new: str | None,
    introduced: list[Diagnostic],
    resolved: list[Diagnostic],
    unchanged: list[Diagnostic],
) -> None:
    """Same path, server, severity, code, source and message, where its line moved to."""
    assert delta(before, after, old, new) == (introduced, resolved, unchanged)


def test_unchanged_holds_the_diagnostics_after_the_edit() -> None:
    """The after-version with its new place and its raw, in the order of after."""
    before = [diag(1, "b"), diag(2, "a")]
    moved_a = Diagnostic("a.py", 3, 1, 3, 4, "warning", "a", "Ruff", "F401", "ruff", raw={"n": 1})
    moved_b = diag(2, "b")
    introduced, resolved, unchanged = delta(before, [moved_a, moved_b], "x\ny\n", "\nx\ny\n")
    assert (introduced, resolved) == ([], [])
    assert unchanged == [moved_a, moved_b]
    assert unchanged[0].raw == {"n": 1}


def test_files_are_followed_each_by_its_own_text() -> None:
    """A file without texts stays as it is while another's lines move; \\r\\n counts once."""
    before = [diag(1, "m", path="a.py"), diag(1, "m", path="b.py"), diag(1, "m", path="c.py")]
    after = [diag(3, "m", path="a.py"), diag(1, "m", path="b.py"), diag(1, "m", path="c.py")]
    old_texts = {"a.py": "x\r\ny\r\n", "c.py": "same\n"}
    new_texts = {"a.py": "\r\n\r\nx\r\ny\r\n", "b.py": "only after\n", "c.py": "same\n"}
    assert diagnostics_delta(before, after, old_texts, new_texts) == ([], [], after)


def test_thousands_of_diagnostics_take_little_time() -> None:
    """Indexed by key and place: no scan of everything for each diagnostic."""
    lines = [f"line {n} = {n}\n" for n in range(5000)]
    old = "".join(lines)
    new = "# header\n" + "".join(lines[:2500]) + "# middle\n" + "".join(lines[2500:])
    before = [diag(n, "same message", 1) for n in range(1, 5001)] * 2
    after = [diag(n + 1 + (n > 2500), "same message", 1) for n in range(1, 5001)] * 2
    start = time.perf_counter()
    introduced, resolved, unchanged = delta(before, after, old, new)
    elapsed = time.perf_counter() - start
    assert (introduced, resolved, len(unchanged)) == ([], [], 10000)
    assert elapsed < 2.0


def _notebook(*sources: str) -> str:
    import json

    cells: list[dict[str, object]] = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": s}
        for s in sources
    ]
    document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    return json.dumps(document, indent=1)


def test_notebooks_are_compared_cell_by_cell() -> None:
    from dataclasses import replace

    old = _notebook("import os\n", "x = 1\n")
    new = _notebook("import os\n", "import sys\nx = 1\n")

    def in_cell(item: Diagnostic, cell: int) -> Diagnostic:
        return replace(item, path="nb.ipynb", cell=cell)

    before = [in_cell(diag(1, "`os` unused", 8), 1)]
    # The same finding in the same cell stays old; one of the same message, line and
    # column in another cell is new: a finding never matches one of another cell.
    after = [in_cell(diag(1, "`os` unused", 8), 1), in_cell(diag(1, "`os` unused", 8), 2)]
    introduced, resolved, unchanged = diagnostics_delta(
        before, after, {"nb.ipynb": old}, {"nb.ipynb": new}
    )
    assert [(d.cell, d.line) for d in introduced] == [(2, 1)]
    assert resolved == []
    assert [(d.cell, d.line) for d in unchanged] == [(1, 1)]
    # Lines inserted in a cell carry its findings down within the cell.
    moved = [in_cell(diag(2, "x", 1, code="E1"), 2)]
    was = [in_cell(diag(1, "x", 1, code="E1"), 2)]
    introduced, resolved, _unchanged = diagnostics_delta(
        was, moved, {"nb.ipynb": old}, {"nb.ipynb": new}
    )
    assert (introduced, resolved) == ([], [])
    # A notebook that does not parse is compared in place.
    introduced, _resolved, _unchanged = diagnostics_delta(
        before, before, {"nb.ipynb": "{"}, {"nb.ipynb": new}
    )
    assert introduced == []
