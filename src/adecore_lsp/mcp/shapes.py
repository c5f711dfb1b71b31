"""The JSON of the tools' results, and its making from the workspace's values.

Each shape is a typed dictionary: the SDK derives the tool's ``outputSchema`` from it and
checks every ``structured_content`` against it. Units are the workspace's: paths relative to
the root with ``/`` (absolute outside it), 1-based lines and 1-based columns counted in
Unicode code points, the end exclusive.

Every list result is ``{"items", "total", "truncated", "complete", "reason"}``: ``total``
counts every match (after filters), ``truncated`` says that ``items`` holds fewer, and
``complete: false`` with a ``reason`` says the answer may be partial.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from typing_extensions import NotRequired, TypedDict

from ..workspace.model import Diagnostic, Location, Reference, ServerStatus, Symbol

# Internal to the library: nothing here is public API.
__all__: list[str] = []

Severity = Literal["error", "warning", "information", "hint"]
Reason = Literal[
    "timeout",
    "server_crashed",
    "unsupported",
    "not_ready",
    "too_many_files",
    "other_roots",
    "left_out",
]
State = Literal["starting", "running", "crashed", "stopped"]

LINE_CAP = 400
"""A location's ``text`` keeps this many code points of its line at most (minified files)."""

HOVER_CAP = 8000
"""A hover text keeps this many code points at most (a module's whole docstring, say)."""

DIFF_LINES = 2000
"""A diff longer than this many lines is cut, saying so at its end."""

LineOf = Callable[..., "str | None"]
"""The text of a line (path as the workspace shows it, 1-based line, and the notebook cell
when there is one), ``None`` if unknown."""


class LocationShape(TypedDict):
    """A place in a file: ``path`` relative to the root (absolute outside it), 1-based
    ``line`` and ``column`` in Unicode code points, the end exclusive; ``text`` is that line
    of the file (``null`` when it cannot be read)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str | None
    cell: int | None
    """The notebook cell (from 1, among all cells) the place is in, its line and column then
    within the cell; ``null`` for plain files."""


class DiagnosticShape(LocationShape):
    """A diagnostic: its place, and what ``server`` said about it."""

    severity: Severity
    message: str
    source: str | None
    code: str | int | None
    server: str


class ReferenceShape(LocationShape):
    """A use of a symbol: its place, the symbol holding it (``container``, a name path such
    as ``Class/method``), and with ``context`` the lines around it."""

    container: str | None
    context: NotRequired[list[str]]


class SymbolShape(TypedDict):
    """A named thing in a file's outline; ``name_path`` is its place in the outline
    (``Class/method``), the position is its name's (within ``cell`` in a notebook), and
    ``target`` names it for the other tools (``path#Class/method``, with ``[k]`` when the
    file has several of that name path: the k-th by place, from 0)."""

    name: str
    name_path: str
    kind: str
    path: str
    line: int
    column: int
    cell: int | None
    """The notebook cell (from 1, among all cells) the symbol is in; ``null`` for plain
    files."""
    target: str
    children: list[SymbolShape]


class FoundSymbolShape(SymbolShape):
    """A symbol found in the workspace, with the ``target`` that names it
    (``path#Class/method``)."""


class StatusShape(TypedDict):
    """One language server of the workspace."""

    id: str
    pid: int | None
    state: State
    restarts: int
    rss_bytes: int | None


class DiagnosticList(TypedDict):
    """Diagnostics, known final for the files' current text unless ``complete`` is false."""

    items: list[DiagnosticShape]
    total: int
    truncated: bool
    complete: bool
    reason: Reason | None
    left_out: NotRequired[dict[str, str]]
    """Files asked about that no server checks (each server's own configuration leaves them
    out), each with why; with nothing else, ``complete`` is false (``left_out``)."""


class LocationList(TypedDict):
    """Places in files."""

    items: list[LocationShape]
    total: int
    truncated: bool
    complete: bool
    reason: Reason | None


class ReferenceList(TypedDict):
    """The uses of a symbol."""

    items: list[ReferenceShape]
    total: int
    truncated: bool
    complete: bool
    reason: Reason | None


class SymbolList(TypedDict):
    """A file's outline: ``total`` counts its top-level symbols."""

    items: list[SymbolShape]
    total: int
    truncated: bool
    complete: bool
    reason: Reason | None


class FoundSymbolList(TypedDict):
    """Symbols of the whole workspace matching a query."""

    items: list[FoundSymbolShape]
    total: int
    truncated: bool
    complete: bool
    reason: Reason | None


class StatusList(TypedDict):
    """The language servers restarted."""

    items: list[StatusShape]
    total: int
    truncated: bool
    complete: bool
    reason: Reason | None


class HoverShape(TypedDict):
    """What the server says about a target, as markdown (``null``: nothing)."""

    markdown: str | None


class PlanShape(TypedDict):
    """An edit plan (a rename, a formatting, fixes): its unified ``diff`` (``a/`` and ``b/``
    paths), the paths it changes, the number of edits per path, whether it was written, and
    the diagnostics it ``introduced`` and ``resolved`` (empty when not written), in the files
    ``checked`` (the changed files and the files that depend on them). ``complete: false``
    when the plan may miss files or the check after the write did not finish (``reason``;
    ``not_reached`` names the files it could not check in time)."""

    diff: str
    changed_files: list[str]
    edits: dict[str, int]
    applied: bool
    introduced: list[DiagnosticShape]
    resolved: list[DiagnosticShape]
    complete: bool
    reason: str | None
    checked: list[str]
    not_reached: list[str]


class EditShape(TypedDict):
    """An edit of one file: its unified ``diff`` (``a/`` and ``b/`` paths), the path it
    changes, whether it was written (``false`` for a preview), the diagnostics it introduced
    (or would introduce) and resolved, in the files ``checked``: the edited file and the
    files that depend on it, opened for the question if need be. ``complete: false`` when
    the check after the edit did not finish (``reason``; ``not_reached`` names the files it
    could not check in time): with ``applied: true`` the file was written all the same."""

    diff: str
    changed_files: list[str]
    applied: bool
    introduced: list[DiagnosticShape]
    resolved: list[DiagnosticShape]
    complete: bool
    reason: str | None
    checked: list[str]
    not_reached: list[str]


def cut_hover(markdown: str | None, cap: int = HOVER_CAP) -> str | None:
    """A hover text cut to ``cap`` code points, its last line saying so."""
    if markdown is None or len(markdown) <= cap:
        return markdown
    return f"{markdown[:cap]}\n\n… (hover text cut: {cap:,} of {len(markdown):,} characters shown)"


def clip(text: str | None, cap: int = LINE_CAP) -> str | None:
    """``text`` cut to ``cap`` code points, an ellipsis saying where."""
    if text is None or len(text) <= cap:
        return text
    return text[:cap] + "…"


def location(place: Location, line_of: LineOf) -> LocationShape:
    return {
        "path": place.path,
        "line": place.line,
        "column": place.column,
        "end_line": place.end_line,
        "end_column": place.end_column,
        "text": clip(line_of(place.path, place.line, place.cell)),
        "cell": place.cell,
    }


def diagnostic(item: Diagnostic, line_of: LineOf) -> DiagnosticShape:
    place = Location(
        item.path, item.line, item.column, item.end_line, item.end_column, cell=item.cell
    )
    code = item.code if isinstance(item.code, (str, int)) else None
    return {
        **location(place, line_of),
        "severity": item.severity,
        "message": item.message,
        "source": item.source,
        "code": code,
        "server": item.server,
    }


def reference(item: Reference, line_of: LineOf, context: int) -> ReferenceShape:
    place = location(item.location, line_of)
    shape: ReferenceShape = {
        "path": place["path"],
        "line": place["line"],
        "column": place["column"],
        "end_line": place["end_line"],
        "end_column": place["end_column"],
        "text": place["text"],
        "cell": place["cell"],
        "container": item.container,
    }
    if context:
        shape["context"] = [clip(line) or "" for line in item.context]
    return shape


def symbol(item: Symbol, target: str | None = None) -> SymbolShape:
    """The shape of ``item`` (its children without targets of their own: :func:`symbol_tree`
    gives a whole outline's)."""
    return {
        "name": item.name,
        "name_path": item.name_path,
        "kind": item.kind,
        "path": item.location.path,
        "line": item.location.line,
        "column": item.location.column,
        "cell": item.cell,
        "target": target or f"{item.location.path}#{item.name_path}",
        "children": [symbol(child) for child in item.children],
    }


def outline_targets(items: Sequence[Symbol]) -> dict[int, str]:
    """The target of each symbol of one file's outline, by ``id``: ``path#name_path``, with
    ``[k]`` (the k-th by cell, line and column, from 0, as targets count them) when the file
    has several symbols of that name path (a name defined in two cells of a notebook, or an
    overload)."""
    every: dict[str, list[Symbol]] = {}
    pending = list(items)
    while pending:
        item = pending.pop()
        every.setdefault(item.name_path, []).append(item)
        pending.extend(item.children)
    targets: dict[int, str] = {}
    for name_path, same in every.items():
        same.sort(key=lambda s: (s.location.cell or 0, s.location.line, s.location.column))
        for index, item in enumerate(same):
            suffix = f"[{index}]" if len(same) > 1 else ""
            targets[id(item)] = f"{item.location.path}#{name_path}{suffix}"
    return targets


def symbol_tree(items: Sequence[Symbol], limit: int) -> tuple[list[SymbolShape], int]:
    """At most ``limit`` symbols of the tree in all, counted depth first in source order (a
    class and each of its members one each), each with its target, and how many the whole
    tree has."""
    total = 0
    kept = 0
    targets = outline_targets(items)

    def count(item: Symbol) -> None:
        nonlocal total
        total += 1
        for child in item.children:
            count(child)

    def take(item: Symbol) -> SymbolShape | None:
        nonlocal kept
        if kept >= limit:
            return None
        kept += 1
        shape = symbol(item, targets[id(item)])
        shape["children"] = [
            child for child in (take(grand) for grand in item.children) if child is not None
        ]
        return shape

    for item in items:
        count(item)
    shapes = [shape for shape in (take(item) for item in items) if shape is not None]
    return shapes, total


def found_symbol(item: Symbol) -> FoundSymbolShape:
    shape = symbol(item)
    return {
        "name": shape["name"],
        "name_path": shape["name_path"],
        "kind": shape["kind"],
        "path": shape["path"],
        "line": shape["line"],
        "column": shape["column"],
        "cell": shape["cell"],
        "target": shape["target"],
        "children": shape["children"],
    }


def status(item: ServerStatus) -> StatusShape:
    return {
        "id": item.id,
        "pid": item.pid,
        "state": item.state,
        "restarts": item.restarts,
        "rss_bytes": item.rss_bytes,
    }


def reason(value: str | None) -> Reason | None:
    """A workspace reason as the shapes spell it (an unknown one reads as a timeout: it is
    never dropped, so an incomplete answer never looks complete)."""
    known: tuple[Reason, ...] = (
        "timeout",
        "server_crashed",
        "unsupported",
        "not_ready",
        "too_many_files",
        "other_roots",
        "left_out",
    )
    if value is None:
        return None
    for name in known:
        if value == name:
            return name
    return "timeout"


def counts(items: Sequence[object], limit: int | None) -> tuple[int, bool]:
    """The ``total`` and ``truncated`` of a list cut to ``limit``."""
    total = len(items)
    return total, limit is not None and total > limit


def cut_diff(diff: str, lines: int = DIFF_LINES) -> tuple[str, int]:
    """``diff`` cut to ``lines`` lines, with a last line saying so; and its whole length."""
    kept = diff.splitlines(keepends=True)
    if len(kept) <= lines:
        return diff, len(kept)
    note = (
        f"... diff cut here: {lines:,} of {len(kept):,} lines shown "
        "(the plan itself is whole; the edit counts per file are exact)\n"
    )
    return "".join(kept[:lines]) + note, len(kept)


def introduced(items: Iterable[Diagnostic], line_of: LineOf) -> list[DiagnosticShape]:
    """Diagnostics of a delta (introduced or resolved), each with its line's text."""
    return [diagnostic(item, line_of) for item in items]
