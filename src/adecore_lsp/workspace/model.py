"""What the workspace layer answers with: values in people's units, each with its raw LSP.

The session speaks LSP (0-based lines, columns in the negotiated encoding); these speak
people: paths relative to the workspace's root with ``/``, 1-based lines and 1-based columns
counted in Unicode code points, the end exclusive. Every value keeps the LSP value it was
made from as ``raw``. All are frozen dataclasses, so they can be compared, hashed by identity
of their fields where those are hashable, and shared between threads.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

__all__ = [
    "AppliedPlan",
    "Diagnostic",
    "DiagnosticsDelta",
    "DiagnosticsReport",
    "EditPlan",
    "FileEdit",
    "FileOperation",
    "FileStatus",
    "Location",
    "Readiness",
    "Reference",
    "Results",
    "ServerStatus",
    "Symbol",
]

T = TypeVar("T")

Severity = Literal["error", "warning", "information", "hint"]
ResultReason = Literal["not_ready", "timeout", "too_many_files", "other_roots"]
FileReason = Literal["timeout", "server_crashed", "unsupported", "not_utf8"]


def cell_prefix(cell: int | None) -> str:
    """``cell N:`` for a place in a notebook's cell N, as ruff prints it; empty else."""
    return "" if cell is None else f"cell {cell}:"


@dataclass(frozen=True)
class Location:
    """A place in a file: ``path`` relative to the root (absolute outside it), 1-based
    ``line`` and ``column`` in code points, the end exclusive."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    raw: Any = field(default=None, compare=False, repr=False)
    cell: int | None = None
    """The notebook cell (numbered from 1 among all cells) the place is in; ``line`` and
    ``column`` are then within the cell. ``None`` for plain files."""

    def __str__(self) -> str:
        return f"{self.path}:{cell_prefix(self.cell)}{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of one server, in people's units.

    ``stale`` is ``True`` for an item kept from before a timeout: the file's diagnostics for
    its current text did not finish, and this is what was known last.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    severity: Severity
    message: str
    source: str | None = None
    code: str | int | None = None
    server: str = ""
    stale: bool = False
    raw: Any = field(default=None, compare=False, repr=False)
    cell: int | None = None
    """The notebook cell (numbered from 1 among all cells) the finding is in; ``line`` and
    ``column`` are then within the cell. ``None`` for plain files."""

    def __str__(self) -> str:
        code = f" [{self.code}]" if self.code is not None else ""
        place = f"{self.path}:{cell_prefix(self.cell)}{self.line}:{self.column}"
        return f"{place}: {self.severity}: {self.message}{code}"


@dataclass(frozen=True)
class FileStatus:
    """Whether one file's diagnostics are final for its current text, and why not."""

    complete: bool
    reason: FileReason | str | None = None
    """Why not final: one of ``FileReason``, or ``"invalid notebook: <detail>"``."""


@dataclass(frozen=True)
class DiagnosticsReport:
    """The diagnostics of some files, known final or saying which are not.

    ``items`` are sorted by path, line and column; ``files`` maps each path checked to its
    :class:`FileStatus`. ``complete`` is ``True`` only when every file finished; a
    timeout never reads as clean (``reason`` says what stopped it). A file asked about that
    no server checks (every server's own configuration leaves it out) is in ``left_out``
    with why, never in ``files``; a report of nothing but such files is not complete
    (``reason`` ``"left_out"``).
    """

    items: list[Diagnostic]
    files: dict[str, FileStatus]
    complete: bool
    reason: FileReason | str | None = None
    resolved: list[Diagnostic] = field(default_factory=list)
    """For :meth:`Workspace.new_since`: the findings of the revision that are gone."""
    left_out: dict[str, str] = field(default_factory=dict)
    """The files no server checks, each with why: ``left out by ruff's configuration
    (pyproject.toml, extend-exclude)``."""


@dataclass(frozen=True)
class DiagnosticsDelta:
    """What an edit changed in the diagnostics: ``introduced``, ``resolved`` and ``unchanged``
    (as they are after the edit; one that only moved lines counts as unchanged).

    ``complete`` and ``reason`` are those of the diagnostics after the edit; ``checked``
    names the files the delta covers (the edited ones and the files that depend on them,
    as ``changes.md`` says), ``not_reached`` the files it should have covered and could not
    within the time (their findings are not in it, and it is not complete).
    """

    introduced: list[Diagnostic]
    resolved: list[Diagnostic]
    unchanged: list[Diagnostic]
    complete: bool = True
    reason: str | None = None
    checked: list[str] = field(default_factory=list)
    not_reached: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Readiness:
    """Whether a server is ready, which signal said so, and how long the wait took.

    ``state`` is ``"ready"``, ``"timed_out"`` or ``"no_signal"`` (the server shows none: it
    is never reported ready on a guess). ``source`` is ``"server_status"``, ``"progress"``,
    ``"registration"`` or ``"none"``; ``phases`` the progress titles seen, in order.
    """

    state: Literal["ready", "timed_out", "no_signal"]
    source: Literal["server_status", "progress", "registration", "none"]
    waited: float
    phases: tuple[str, ...] = ()


class Results(list[T], Generic[T]):
    """A list of results that says whether it is the whole answer.

    ``complete`` is ``False`` and ``reason`` says why when it may not be: ``"not_ready"``
    (the server was still indexing and answered nothing), ``"timeout"``,
    ``"too_many_files"`` (more files than ``max_open_files`` would have had to be open) or
    ``"other_roots"`` (a server that runs per package could not be asked in one of them:
    it failed, timed out or is not installed, so uses there may be missing).
    """

    complete: bool
    reason: ResultReason | None

    def __init__(
        self, items: Iterable[T] = (), *, complete: bool = True, reason: ResultReason | None = None
    ) -> None:
        super().__init__(items)
        self.complete = complete
        self.reason = reason

    def __repr__(self) -> str:
        tail = "" if self.complete else f", complete=False, reason={self.reason!r}"
        return f"Results({list.__repr__(self)}{tail})"


@dataclass(frozen=True)
class Symbol:
    """A named thing in the code: ``name_path`` is its place in the file's outline
    (``Class/method``), ``kind`` a lower-case word (``"function"``), ``location`` its name's
    place, ``range_lines`` the first and last line of its whole range (1-based)."""

    name: str
    name_path: str
    kind: str
    location: Location
    range_lines: tuple[int, int]
    container: str | None = None
    children: list[Symbol] = field(default_factory=list, compare=False)
    raw: Any = field(default=None, compare=False, repr=False)
    cell: int | None = None
    """The notebook cell the symbol is defined in (``location.cell``); ``None`` for plain
    files."""


@dataclass(frozen=True)
class Reference:
    """One use of a symbol: where, in which symbol (``container``, a name path), and the
    ``context`` lines around it (the line itself when no context was asked for)."""

    location: Location
    container: str | None = None
    context: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileEdit:
    """What an edit plan does to one file: the text before and after, the unified diff, and
    how many LSP edits made it."""

    old_text: str
    new_text: str
    diff: str
    edits: int


@dataclass(frozen=True)
class FileOperation:
    """A create, rename or delete of an edit plan; ``options`` are the LSP options as sent."""

    kind: Literal["create", "rename", "delete"]
    path: str
    new_path: str | None = None
    options: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class EditPlan:
    """A workspace edit as a preview: nothing is written until ``Workspace.apply(plan)``.

    ``files`` maps each changed path to its :class:`FileEdit` (in path order), ``file_ops``
    lists creates, renames and deletes, ``diff`` is one unified diff of every file (``a/``
    and ``b/`` paths, in path order), ``raw`` the ``WorkspaceEdit``. ``complete`` is
    ``False`` when the plan may miss files: ``reason`` ``"too_many_files"`` when the server
    was asked with only ``max_open_files`` of the root's files open, ``"other_roots"`` when
    a rename could not ask every package's server (its uses there are not renamed), or the
    reason of a file ``format`` or ``fix`` left as it is. ``skipped`` maps each such file
    to why, as a check reports it (``FileStatus(False, "not_utf8")``,
    ``"invalid notebook: <detail>"``).
    """

    files: dict[str, FileEdit]
    file_ops: list[FileOperation]
    diff: str
    raw: Any = field(default=None, compare=False, repr=False)
    # The text of each file the plan was made from (None: it did not exist), which the
    # files must still hold when the plan is applied.
    snapshot: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)
    complete: bool = True
    reason: ResultReason | FileReason | str | None = None
    skipped: dict[str, FileStatus] = field(default_factory=dict)
    names: tuple[str, ...] = field(default=(), compare=False)
    """A rename's names, the old then the new (empty for other plans): a file that depends
    on a changed one and names neither cannot be broken by the rename, and is not checked."""
    text_edits: dict[str, tuple[tuple[int, int, str], ...]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """For a path of ``files``, the text edits that make its ``new_text`` of its
    ``old_text`` (``(start, end, new text)``, code points, in order), where they are known:
    the delta carries findings through them instead of diffing the two texts."""

    @property
    def changed_files(self) -> list[str]:
        """The paths the plan writes, creates, renames or deletes, in order, once each."""
        paths = list(self.files)
        for op in self.file_ops:
            for path in (op.path, op.new_path):
                if path is not None and path not in paths:
                    paths.append(path)
        return paths


@dataclass(frozen=True)
class AppliedPlan:
    """What ``apply`` did: the paths ``written`` and the diagnostics ``delta`` it caused."""

    written: list[str]
    delta: DiagnosticsDelta


@dataclass(frozen=True)
class ServerStatus:
    """One running (or crashed) server of a workspace."""

    id: str
    pid: int | None
    state: Literal["starting", "running", "crashed", "stopped"]
    restarts: int
    rss_bytes: int | None
    uptime: float
    root: str = ""


Target = str | Location
"""A target: ``path:LINE[:COL]``, ``path#Name/path[k]``, a bare name, or a Location."""
