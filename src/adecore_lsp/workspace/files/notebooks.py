"""Jupyter notebooks in the workspace (``notebooks.md``): each server takes a notebook the way
it can, and every answer comes back as places in cells.

A server that announces ``notebookDocumentSync`` for the notebook gets it cell by cell
(``notebookDocument/*``, one ``vscode-notebook-cell:`` URI per code cell); any other server
of the notebook's language gets one *joined* document, the code cells in order under a URI
no file has (``nb.ipynb.py``), never written to disk. Either way a finding comes back as
``(cell, line, column)`` within the cell, numbered as ruff numbers cells (from 1, among all
cells); one on an IPython-only line, or on a line of no cell, is dropped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import LspError
from ...protocol.documents.documents import DocumentStore
from ...protocol.documents.notebook_sync import JUPYTER, NotebookSync, sync_options
from ...protocol.documents.notebooks import (
    CELL_SCHEME,
    JoinedDocument,
    Notebook,
    join_code_cells,
    parse_cell_uri,
)
from ...protocol.documents.positions import LineIndex
from ...protocol.documents.uris import uri_to_path
from ...protocol.workspace.finality import Mode
from ..disk.listing import confined
from ..model import Diagnostic, Location
from ..servers.notebook_view import (
    NotebookMode,
    NotebookView,
    view_of,
)
from ..servers.registry import ServerSpec

if TYPE_CHECKING:
    from ...session import LspSession
    from ..servers.handles import ServerHandle
    from .needs import FileNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def takes_language(spec: ServerSpec, language: str) -> bool:
    """Whether a server takes notebooks of ``language`` (one of the languages it takes; a
    ``--command`` server, which names none, takes any)."""
    return not spec.languages or language in spec.languages.values()


def _announced(session: LspSession, view: NotebookView) -> dict[str, Any] | None:
    """The notebook sync options the server announced (statically or by registration) for
    this notebook, or ``None`` when none takes it."""
    return sync_options(
        session.server_capabilities.get("notebookDocumentSync"),
        session.registrations("notebookDocument/sync"),
        JUPYTER,
        view.uri,
        view.notebook.language,
    )


def mode_for(handle: ServerHandle, session: LspSession, view: NotebookView) -> NotebookMode:
    """How this server takes this notebook: by sync when it announces a selector that takes
    it (and the registry does not say ``joined``), else joined."""
    if handle.spec.notebooks == "joined":
        return "joined"
    announced = _announced(session, view)
    return "sync" if announced is not None else "joined"


def place(view: NotebookView, uri: str, item: Diagnostic, shown: str) -> Diagnostic | None:
    """A finding a server reported on a cell or the joined document, as a place in its cell
    (path ``shown``, ``cell`` set); ``None`` when it sits on an IPython-only line or on
    a line of no cell."""
    cell = view.cells_by_uri.get(uri)
    if cell is not None:
        line, end_line, end_column = item.line, item.end_line, item.end_column
    else:
        start = view.joined.to_cell(item.line - 1, item.column - 1)
        if start is None:
            return None
        cell, line = start.cell, start.line + 1
        end = view.joined.to_cell(item.end_line - 1, item.end_column - 1)
        if end is None or end.cell != cell:
            end_line, end_column = line, item.column
        else:
            end_line, end_column = end.line + 1, item.end_column
    if line - 1 in view.masked.get(cell, ()):
        return None
    return replace(item, line=line, end_line=end_line, end_column=end_column, cell=cell, path=shown)


def file_line(view: NotebookView, cell: int, line: int) -> int:
    """The 1-based line of the ``.ipynb`` file that holds line ``line`` (1-based) of a cell's
    source: where a reader of the raw file finds it."""
    return view.notebook.file_line(cell, line - 1) + 1


# -- notebooks in one server -------------------------------------------------------------------


def _sync_of(handle: ServerHandle, session: LspSession) -> NotebookSync:
    """The notebook bookkeeping of the handle's current session (a new process starts
    afresh)."""
    current = handle.notebook_sync
    if current is None or current[0] is not session:
        current = handle.notebook_sync = (session, NotebookSync(_store(session)))
    return current[1]


def _store(session: LspSession) -> DocumentStore:
    store = session.documents
    assert isinstance(store, DocumentStore)  # the session's own store, not a copy
    return store


def open_in(handle: ServerHandle, session: LspSession, view: NotebookView) -> NotebookMode:
    """Open (or bring up to date) a notebook in one server, the way it takes notebooks;
    its diagnostics are then expected afresh."""
    mode = mode_for(handle, session, view)
    known = handle.notebooks.get(view.uri)
    if known is not None and known[1] != mode:
        close_in(handle, view.uri)
    handle.notebooks[view.uri] = (view, mode)
    handle.notebook_hooks = HOOKS
    if mode == "joined":
        handle.open(session, view.joined_uri, view.notebook.language, view.joined.text)
        return mode
    sync = _sync_of(handle, session)
    cells = view.cell_texts(handle.spec.ipython)
    encoding = session.position_encoding or "utf-16"
    if view.uri in sync.notebooks:
        # Cell texts changed, and cells came or went: one didChange says both.
        before = sync.cells_of(view.uri)
        params = sync.change(view.uri, cells, encoding)
        for gone in set(before) - {cell.uri for cell in cells}:
            handle.finality.closed(gone)
        if params is None and known is not None:
            return mode
        if params is not None:
            session.notify("notebookDocument/didChange", params)
    else:
        session.notify("notebookDocument/didOpen", sync.open(view.uri, JUPYTER, cells, encoding))
    # By pull where the server's cell pulls are real, else by its pushes (the cells are
    # alike: asked once for the notebook); a server whose cell pushes are whole reports
    # (ruff) is taken at its pushes.
    pulls = bool(cells) and handle.spec.notebook_cell_pulls
    pulls = pulls and session.supports("textDocument/diagnostic", cells[0].uri)
    kind: Mode = "pull" if pulls else "push"
    if handle.spec.notebook_cell_pushes_final:
        kind = "push_final"
    now = time.monotonic()
    whole = sync.notebooks[view.uri].version if handle.spec.notebook_version_pushes else None
    for cell in cells:
        # A server whose cell reports name the notebook's version (ruff) reports every cell
        # anew at each change of any: each is expected at that version.
        version = session.documents[cell.uri].version if whole is None else whole
        handle.finality.expect(cell.uri, version, now, kind)
    return mode


def report_version(handle: ServerHandle, session: LspSession, uri: str) -> int:
    """The version a server's report on ``uri``'s current text names: the document's own,
    or for a cell of a server whose cell reports carry the notebook's version (ruff), the
    notebook's as sent to it (what :func:`open_in` expects the cell at)."""
    version = session.documents[uri].version
    current = handle.notebook_sync
    if not handle.spec.notebook_version_pushes or current is None or current[0] is not session:
        return version
    for view, _mode in handle.notebooks.values():
        opened = current[1].notebooks.get(view.uri)
        if uri in view.cells_by_uri and opened is not None:
            return opened.version
    return version


def close_in(handle: ServerHandle, uri: str) -> None:
    """Close a notebook in one server, however it had it."""
    known = handle.notebooks.pop(uri, None)
    if known is None:
        return
    view, mode = known
    if mode == "joined":
        handle.close(view.joined_uri)
        return
    for cell in view.cell_uris.values():
        handle.finality.closed(cell)
    session = handle.live
    current = handle.notebook_sync
    if (
        session is not None
        and current is not None
        and current[0] is session
        and uri in current[1].notebooks
    ):
        session.notify("notebookDocument/didClose", current[1].close(uri))


def say_saved(handle: ServerHandle, session: LspSession, view: NotebookView) -> None:
    """After the workspace wrote a notebook: ``notebookDocument/didSave`` to a server that
    has it cell by cell and asked for saves (basedpyright's ``save: true``)."""
    known = handle.notebooks.get(view.uri)
    current = handle.notebook_sync
    if known is None or known[1] != "sync" or current is None or current[0] is not session:
        return
    options = _announced(session, view)
    if options is not None and options.get("save") is True and view.uri in current[1].notebooks:
        session.notify("notebookDocument/didSave", current[1].save(view.uri))


def say_closed(handle: ServerHandle, session: LspSession) -> None:
    """Before a server stops: close its notebooks as notebooks (their cells leave the
    session's documents with them), keeping what the handle knows to open them again."""
    current = handle.notebook_sync
    if current is None or current[0] is not session:
        return
    for uri in list(current[1].notebooks):
        try:
            session.notify("notebookDocument/didClose", current[1].close(uri))
        except LspError:
            return  # the connection is gone: nothing more can be sent


def reopen(handle: ServerHandle, session: LspSession) -> None:
    """After a restart: open again the notebooks the server had."""
    for view, _mode in list(handle.notebooks.values()):
        handle.notebooks.pop(view.uri)
        open_in(handle, session, view)


def tracked(handle: ServerHandle, uri: str) -> list[str]:
    """The URIs whose diagnostics stand for file ``uri`` in this server: the file's own, or a
    notebook's cells (by sync) or joined document."""
    known = handle.notebooks.get(uri)
    if known is None:
        return [uri]
    view, mode = known
    return [view.joined_uri] if mode == "joined" else list(view.cell_uris.values())


def is_cell(uri: str) -> bool:
    """Whether ``uri`` names a notebook's cell (as the workspace names them)."""
    return uri.startswith(CELL_SCHEME + ":")


def pulled_by_workspace(handle: ServerHandle, uri: str) -> bool:
    """Whether the workspace pulls this URI's diagnostics from this server: a cell of a
    server whose cell pulls are empty, or whose cell pushes are final, is left to its
    pushes."""
    spec = handle.spec
    return not is_cell(uri) or (spec.notebook_cell_pulls and not spec.notebook_cell_pushes_final)


def pulled_when_silent(handle: ServerHandle, uri: str) -> bool:
    """Whether a cell taken at the server's final pushes is pulled after all when the
    server stays silent about it for its settle window (never read as clean)."""
    spec = handle.spec
    return is_cell(uri) and spec.notebook_cell_pushes_final and spec.notebook_cell_pulls


def notebook_of(ws: FileNeeds, path: str) -> NotebookView | None:
    """The notebook at ``path`` as the workspace has it open, else as it is on disk."""
    view = ws.notebook(path)
    if view is not None:
        return view
    full = ws.paths.absolute(path)
    try:
        text = confined(ws.root, full).read_text(encoding="utf-8")
        return view_of(full, ws.paths.uri(full), text)
    except (OSError, ValueError):
        return None


# -- edits ---------------------------------------------------------------------------------


def notebook_of_uri(
    ws: FileNeeds,
) -> Callable[[str], tuple[str, Notebook, JoinedDocument | None] | None]:
    """For :func:`cells_of_edit`: the notebook a cell URI, basedpyright's ``nb.ipynb#K`` or
    a joined document's URI belongs to (open in the workspace, else read from disk)."""

    def find(uri: str) -> tuple[str, Notebook, JoinedDocument | None] | None:
        view = ws.notebook(uri)
        if view is not None and uri == view.joined_uri:
            return view.uri, view.notebook, view.joined
        reference = parse_cell_uri(uri)
        if reference is None:
            return None
        try:
            path = uri_to_path(reference.notebook_uri)
        except ValueError:
            return None
        if path is None:
            return None
        found = notebook_of(ws, ws.paths.relative(Path(path)))
        return None if found is None else (found.uri, found.notebook, None)

    return find


def cell_diff(path: str, cells: Mapping[int, tuple[str, str]]) -> str:
    """The diff of a notebook's edited cells: each cell's source, both headers naming the
    cell (``--- a/nb.ipynb (cell 3)``), so that a person reads code, not JSON."""
    from ...protocol.workspace.unified_diff import hunks

    blocks = [f"diff --git a/{path} b/{path}\n"]
    for number, (old, new) in sorted(cells.items()):
        blocks.append(hunks(old, new, f"a/{path} (cell {number})", f"b/{path} (cell {number})"))
    return "".join(blocks)


# -- navigation ------------------------------------------------------------------------------


def plain_index(view: NotebookView) -> LineIndex:
    """The index of the notebook's code cells joined as they are (no line blanked): the
    text a notebook's positions (targets) are offsets into."""
    return LineIndex(join_code_cells(view.notebook, mask=False).text, "utf-32")


def cell_offset(view: NotebookView, cell: int, line: int, column: int | None, where: str) -> int:
    """The offset of 1-based ``line`` and ``column`` (code points; ``None``: the line's first
    non-blank character) of code cell ``cell``, in :func:`plain_index`'s text.

    Raises:
        ValueError: no such code cell, or a line or column outside it, saying what it has.
    """
    from ..disk.units import lsp_position

    try:
        found = view.notebook.cell(cell)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    if not found.is_code:
        raise ValueError(f"{where}: cell {cell} is a {found.kind} cell, not a code cell")
    position = lsp_position(
        LineIndex(found.source, "utf-32"), line, column, "utf-32", f"{where} cell {cell}"
    )
    joined_line = view.joined.from_cell(cell, position["line"], 0)
    assert joined_line is not None  # the line is inside the cell: lsp_position checked it
    return plain_index(view).line_start(joined_line[0]) + position["character"]


def place_for(view: NotebookView, handle: ServerHandle, offset: int) -> tuple[str, int]:
    """Where a notebook position (an offset into :func:`plain_index`'s text) is for one
    server: the cell's URI and the offset in its text (sync), or the joined document's URI
    and the offset in its text (joined)."""
    index = plain_index(view)
    line = index.position_at(offset)
    row, character = line["line"], line["character"]
    mode = handle.notebooks.get(view.uri, (view, "joined"))[1]
    if mode == "joined":
        joined = LineIndex(view.joined.text, "utf-32")
        start, end = joined.line_start(row), joined.line_end(row)
        return view.joined_uri, min(start + character, end)
    place = view.joined.to_cell(row, character)
    if place is None:
        raise ValueError(f"{view.path.name}: that place is in no code cell")
    source = view.notebook.cell(place.cell).source
    cell_index = LineIndex(source, "utf-32")
    return view.cell_uris[place.cell], cell_index.line_start(place.line) + character


def located(
    ws: FileNeeds, uri: str, lsp_range: Mapping[str, Any], encoding: Any, raw: Any = None
) -> Location:
    """A :class:`Location` of an LSP place; one in a notebook's cell (its cell URI,
    basedpyright's ``nb.ipynb#K``, or the joined document) as a place in that cell."""
    from ..disk.units import Texts, location

    found = location(ws.paths, ws.texts, uri, lsp_range, encoding, raw)
    if not ws.open_files.has_notebooks:
        return found  # no notebook open: a plain place (a references list's usual case)
    view = ws.notebook(uri)
    if view is None:
        reference = parse_cell_uri(uri)
        if reference is None:
            return found
        view = ws.notebook(reference.notebook_uri)
        if view is None:
            return found
        cell_of = view.notebook.cell_for(reference)
        if cell_of is None:
            return found
        text = cell_of.source
        again = location(ws.paths, Texts(lambda _uri: text), "cell", lsp_range, encoding, raw)
        return replace(again, path=ws.paths.display(view.uri), cell=cell_of.number)
    if uri == view.uri:
        return found  # the notebook's file itself
    shown = ws.paths.display(view.uri)
    cell = view.cells_by_uri.get(uri)
    if cell is not None:
        return replace(found, path=shown, cell=cell)
    start = view.joined.to_cell(found.line - 1, found.column - 1)
    if start is None:
        return replace(found, path=shown)
    end = view.joined.to_cell(found.end_line - 1, found.end_column - 1)
    end_line, end_column = (
        (end.line + 1, found.end_column)
        if end is not None and end.cell == start.cell
        else (start.line + 1, found.column)
    )
    return replace(
        found,
        path=shown,
        line=start.line + 1,
        end_line=end_line,
        end_column=end_column,
        cell=start.cell,
    )


class _Hooks:
    """:class:`..servers.handles.NotebookHooks` of this module's notebooks."""

    reopen = staticmethod(reopen)
    say_closed = staticmethod(say_closed)


HOOKS = _Hooks()
"""What a server's handle calls to keep its notebooks across restarts."""
