"""What a change did to the diagnostics: introduced, resolved, unchanged.

The rule is :func:`adecore_lsp.protocol.workspace.changes.split_findings` (``changes.md``,
"Old or new: one rule"); this module only puts :class:`Diagnostic` values (1-based) in the
rule's terms (0-based) and the answer back into a :class:`DiagnosticsDelta`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...protocol.documents.notebooks import InvalidNotebookError, parse_notebook
from ...protocol.workspace.changes import (
    Change,
    Finding,
    SteadyLines,
    split_findings,
    steady_lines,
)
from ..model import Diagnostic, DiagnosticsDelta, DiagnosticsReport
from ..servers.notebook_view import is_notebook

# Internal to the library: Workspace.edit and apply return the delta as DiagnosticsDelta.
__all__: list[str] = []

SEVERITY_RANK = {"error": 4, "warning": 3, "information": 2, "hint": 1}
"""Higher for worse: a finding before is no lower a severity when its rank is not lower."""


def _cell_key(path: str, cell: int | None) -> str:
    """The rule's path of a place: a notebook's cells are files of their own to it, so a
    finding never matches one of another cell."""
    return path if cell is None else f"{path}#cell {cell}"


def _per_cell(changes: Mapping[str, Change]) -> dict[str, Change]:
    """``changes`` with each notebook's change given cell by cell (the cells' sources, by
    number); a notebook that does not parse on both sides is compared in place."""
    found: dict[str, Change] = {}
    for path, change in changes.items():
        if not is_notebook(path):
            found[path] = change
            continue
        try:
            old, new = parse_notebook(change.old), parse_notebook(change.new)
        except InvalidNotebookError:
            continue
        old_cells = {cell.number: cell.source for cell in old.cells}
        for cell in new.cells:
            if cell.number in old_cells:
                found[_cell_key(path, cell.number)] = Change(old_cells[cell.number], cell.source)
    return found


def finding(diagnostic: Diagnostic, path: str | None = None) -> Finding:
    """``diagnostic`` as the rule sees it, under ``path`` (its path after a rename)."""
    line, column = diagnostic.line, diagnostic.column
    end_line, end_column = diagnostic.end_line, diagnostic.end_column
    cell = diagnostic.cell
    path = diagnostic.path if path is None else path
    return Finding(
        path if cell is None else _cell_key(path, cell),
        diagnostic.server,
        diagnostic.source,
        diagnostic.code,
        SEVERITY_RANK.get(diagnostic.severity, 4),
        line - 1 if line > 0 else 0,
        column - 1 if column > 0 else 0,
        end_line - 1 if end_line > 0 else 0,
        end_column - 1 if end_column > 0 else 0,
        diagnostic.message,
    )


def _identity(item: Diagnostic, path: str) -> tuple[object, ...]:
    """Every field of a finding that the rule reads, under ``path``."""
    return (
        path,
        item.cell,
        item.line,
        item.column,
        item.end_line,
        item.end_column,
        item.severity,
        item.message,
        item.source,
        item.code,
        item.server,
    )


def split(
    before: Sequence[Diagnostic],
    after: Sequence[Diagnostic],
    changes: Mapping[str, Change],
    renamed: Mapping[str, str] | None = None,
) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
    """``(introduced, resolved, unchanged)``: introduced and unchanged (the findings as they
    are after the change) in the order of ``after``, resolved in that of ``before``.
    ``changes`` holds the files whose text changed (by their path after the change);
    ``renamed`` maps a path before to the path after for files renamed."""
    moved = renamed or {}
    cells = _per_cell(changes)
    steady = {key: steady_lines(change) for key, change in cells.items()}

    # A finding the same in every field before and after, where the change left its lines
    # as they were, is the same finding: the rule would pair them first (the same message,
    # at no distance). Paired here, the rule runs over the rest only: on a large tree most of
    # a check's findings are in files the change did not touch (1,700 of basedpyright's on
    # click took 13 ms through the rule, on every edit), and most of a rename's are on lines
    # it did not touch (4,480 in its 36 files on click).
    waiting: dict[tuple[object, ...], list[int]] = {}
    placed = _in_place(after, {}, cells, steady)
    for number in reversed(range(len(after))):
        if placed[number]:
            item = after[number]
            waiting.setdefault(_identity(item, item.path), []).append(number)
    paired: list[int] = []
    rest_before: list[int] = []
    placed = _in_place(before, moved, cells, steady)
    for number, item in enumerate(before):
        same = (
            waiting.get(_identity(item, moved.get(item.path, item.path)))
            if placed[number]
            else None
        )
        if same:
            paired.append(same.pop())
        else:
            rest_before.append(number)
    taken = set(paired)
    rest_after = [number for number in range(len(after)) if number not in taken]
    result = split_findings(
        [finding(before[number], moved.get(before[number].path)) for number in rest_before],
        [finding(after[number]) for number in rest_after],
        cells,
    )
    introduced = [after[rest_after[number]] for number in result.introduced]
    resolved = [before[rest_before[number]] for number in result.resolved]
    matched = sorted([*paired, *(rest_after[number] for number in result.matched)])
    unchanged = [after[number] for number in matched]
    return introduced, resolved, unchanged


def _in_place(
    items: Sequence[Diagnostic],
    moved: Mapping[str, str],
    cells: Mapping[str, Change],
    steady: Mapping[str, SteadyLines | None],
) -> list[bool]:
    """For each of ``items`` (under its path after ``moved``), whether it lies where the
    change left the text as it was: in a file it did not change, or at places of a changed
    file it did not touch (one loop for all: it runs for every finding of a check)."""
    found: list[bool] = []
    for item in items:
        line, column, end_line, end_column = item.line, item.column, item.end_line, item.end_column
        if line < 1 or column < 1 or end_line < 1 or end_column < 1:
            found.append(False)  # clamped to 0 in the rule's terms, where another place may be
            continue
        path = moved.get(item.path, item.path) if moved else item.path
        key = path if item.cell is None else _cell_key(path, item.cell)
        if key not in cells:
            found.append(True)
            continue
        lines = steady[key]
        found.append(
            lines is not None and lines.hold(line - 1, column - 1, end_line - 1, end_column - 1)
        )
    return found


def diagnostics_delta(
    before: Sequence[Diagnostic],
    after: Sequence[Diagnostic],
    old_texts: Mapping[str, str] | None = None,
    new_texts: Mapping[str, str] | None = None,
) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
    """:func:`split` with the changed files given as their texts before and after (by path);
    a file missing from either is taken as unchanged."""
    old, new = old_texts or {}, new_texts or {}
    changes = {path: Change(old[path], new[path]) for path in old.keys() & new.keys()}
    return split(before, after, changes)


def delta_of(
    before: Sequence[Diagnostic],
    after: DiagnosticsReport,
    changes: Mapping[str, Change],
    renamed: Mapping[str, str] | None = None,
) -> DiagnosticsDelta:
    """The delta between ``before`` and the report ``after``, complete as that report is."""
    introduced, resolved, unchanged = split(before, after.items, changes, renamed)
    return DiagnosticsDelta(introduced, resolved, unchanged, after.complete, after.reason)
