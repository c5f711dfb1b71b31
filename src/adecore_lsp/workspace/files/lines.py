"""The text of a line, as the workspace has it: the open document, else the disk; for a
notebook's cell, the cell's source line. The command line and the MCP server both show it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...protocol.documents.positions import LineIndex
from ..servers.notebook_view import NotebookView
from .notebooks import notebook_of

if TYPE_CHECKING:
    from .needs import FileNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

LineOf = Callable[..., "str | None"]
"""``line_of(path, number, cell=None)``: the text of a 1-based line of a file (of a notebook
cell's source with ``cell``), without its ending."""


def line_of(ws: FileNeeds) -> LineOf:
    """The text of a 1-based line of a file (a root-relative path), without its ending; with
    ``cell``, of that notebook cell's source."""

    views: dict[str, NotebookView | None] = {}  # a notebook read once per report

    def line(path: str, number: int, cell: int | None = None) -> str | None:
        if cell is None:
            index = ws.texts.index(ws.paths.uri(ws.paths.absolute(path)))
        else:
            if path not in views:
                views[path] = notebook_of(ws, path)
            view = views[path]
            if view is None:
                return None
            try:
                source = view.notebook.cell(cell).source
            except ValueError:
                return None
            # Lines as LSP counts them (\n, \r\n, \r), as the finding's line was.
            index = LineIndex(source, "utf-32")
        if index is None or not 1 <= number <= index.line_count:
            return None
        return index.text[index.line_start(number - 1) : index.line_end(number - 1)]

    return line
