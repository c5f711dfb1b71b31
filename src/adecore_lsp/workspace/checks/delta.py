"""What a change did to the diagnostics: introduced, resolved, unchanged.

The rule is :func:`adecore_lsp.protocol.workspace.changes.split_findings` (``changes.md``,
"Old or new: one rule"); this module only puts :class:`Diagnostic` values (1-based) in the
rule's terms (0-based) and the answer back into a :class:`DiagnosticsDelta`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import is_
from typing import NamedTuple

from ...protocol.documents.notebooks import InvalidNotebookError, parse_notebook
from ...protocol.workspace.changes import (
    Change,
    ChangedFiles,
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


Key = tuple[str, str]
"""A finding's path after the change and its server: the rule pairs a finding only with
one of the same path and server, so the findings split a key at a time."""


class _Parts(NamedTuple):
    """One key's split, as indices into its findings before and after."""

    introduced: list[int]
    resolved: list[int]
    unchanged: list[int]


class _Steady(dict[str, "SteadyLines | None"]):
    """The steady lines of each changed file (or cell), found when first asked."""

    def __init__(self, cells: Mapping[str, Change]) -> None:
        super().__init__()
        self.cells = cells

    def __missing__(self, key: str) -> SteadyLines | None:
        found = self[key] = steady_lines(self.cells[key])
        return found


class Splitter:
    """The rule over the findings of one change (:func:`split`), a path and server at a
    time. The edit loop gives it the findings before (:meth:`expect`) and each file's
    findings after as that file's check ends (:meth:`found`), while the servers still work
    on the other files; :meth:`split` then splits again only the keys whose findings are
    not the very ones split then (a rename's 36 files are split as their answers come in,
    not all after the last)."""

    def __init__(self, changes: Mapping[str, Change], renamed: Mapping[str, str] | None = None):
        self.moved = renamed or {}
        self.cells = _per_cell(changes)
        self.steady = _Steady(self.cells)
        self.shared = ChangedFiles(self.cells)
        self._expected: Iterable[Diagnostic] = ()
        self._before: dict[Key, list[Diagnostic]] = {}
        self._early: dict[Key, tuple[list[Diagnostic], list[Diagnostic], _Parts]] = {}
        self._read = False

    def expect(self, before: Iterable[Diagnostic]) -> None:
        """The findings before the change that :meth:`found` splits against (sorted by
        path and server at the first answer, not before the servers are asked)."""
        self._expected = before
        self._read = False

    def found(self, after: list[Diagnostic]) -> None:
        """Split now one server's findings of one file after the change (in the order of
        the report they will be part of). The first call also reads every changed file as
        the rule will (its steady lines, the words the change wrote): the first answer
        comes while the servers still work on the others, the last does not."""
        if not after:
            return
        if not self._read:
            self._read = True
            self._before = {}
            for item in self._expected:
                found = (self.moved.get(item.path, item.path), item.server)
                self._before.setdefault(found, []).append(item)
            self.shared.written()
            for name in self.cells:
                _ = self.steady[name]
        key = (after[0].path, after[0].server)
        before = self._before.get(key, [])
        early = self._early.get(key)
        if early is None or not (_same(early[0], before) and _same(early[1], after)):
            self._early[key] = (before, after, self._split(before, after))

    def split(
        self, before: Sequence[Diagnostic], after: Sequence[Diagnostic]
    ) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
        """:func:`split`, taking what :meth:`found` split of the same findings."""
        olds: dict[Key, list[int]] = {}
        for number, item in enumerate(before):
            olds.setdefault((self.moved.get(item.path, item.path), item.server), []).append(number)
        news: dict[Key, list[int]] = {}
        for number, item in enumerate(after):
            news.setdefault((item.path, item.server), []).append(number)
        introduced: list[int] = []
        resolved: list[int] = []
        unchanged: list[int] = []
        for key in {**olds, **news}:
            old_numbers, new_numbers = olds.get(key, []), news.get(key, [])
            old = [before[number] for number in old_numbers]
            new = [after[number] for number in new_numbers]
            early = self._early.get(key)
            if early is not None and _same(early[0], old) and _same(early[1], new):
                parts = early[2]
            else:
                parts = self._split(old, new)
            introduced += (new_numbers[number] for number in parts.introduced)
            resolved += (old_numbers[number] for number in parts.resolved)
            unchanged += (new_numbers[number] for number in parts.unchanged)
        return (
            [after[number] for number in sorted(introduced)],
            [before[number] for number in sorted(resolved)],
            [after[number] for number in sorted(unchanged)],
        )

    def _split(self, before: Sequence[Diagnostic], after: Sequence[Diagnostic]) -> _Parts:
        """The rule over the findings of one key."""
        moved, cells, steady = self.moved, self.cells, self.steady
        # A finding the same in every field before and after, where the change left its
        # lines as they were, is the same finding: the rule would pair them first (the same
        # message, at no distance). Paired here, the rule runs over the rest only: on a
        # large tree most of a check's findings are in files the change did not touch
        # (1,700 of basedpyright's on click took 13 ms through the rule, on every edit), and
        # most of a rename's are on lines it did not touch (4,480 in its 36 files on click).
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
        if not rest_before or not rest_after:
            # Nothing left to pair: the rest after is introduced, the rest before resolved.
            return _Parts(rest_after, rest_before, sorted(paired))
        result = split_findings(
            [finding(before[number], moved.get(before[number].path)) for number in rest_before],
            [finding(after[number]) for number in rest_after],
            cells,
            shared=self.shared,
        )
        return _Parts(
            [rest_after[number] for number in result.introduced],
            [rest_before[number] for number in result.resolved],
            sorted([*paired, *(rest_after[number] for number in result.matched)]),
        )


def _same(first: Sequence[Diagnostic], second: Sequence[Diagnostic]) -> bool:
    """Whether two lists hold the very same findings, in the same order."""
    return len(first) == len(second) and all(map(is_, first, second))


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
    return Splitter(changes, renamed).split(before, after)


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
