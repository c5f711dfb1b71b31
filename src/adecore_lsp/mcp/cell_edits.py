"""MCP ``edit`` of a Jupyter notebook, pure: ``old``/``new`` and a symbol's ``new`` lines are
text of the cells' sources, never of the notebook's JSON (an agent reads cells, not escaped
JSON strings), and only the edited cells' ``source`` values change, every other byte of the
file kept (``notebooks.md``, "Writing a notebook": :meth:`Notebook.with_sources`).

Each ``old`` must occur exactly once across the cells' sources as the replacements before it
left them (all cells, markdown and raw too, numbered from 1 as ruff numbers them); the error
of one found zero or several times names each place as ``cell N line L``. The diff shows the
cells (``--- a/nb.ipynb (cell 3)``). A ``.ipynb`` file that is not notebook JSON has no cells:
its text is edited as it is (to repair it), and a result that is still not a notebook is
refused, with nothing written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mcp.server.mcpserver.exceptions import ToolError

from ..protocol.documents.notebooks import InvalidNotebookError, Notebook, parse_notebook
from ..protocol.documents.positions import LineIndex
from ..workspace.files.notebooks import cell_diff
from ..workspace.model import Symbol
from .text_edits import (
    PLACES_SHOWN,
    Replacement,
    file_diff,
    more,
    occurrences,
    quoted,
    replace_all,
    replace_lines,
)

# Internal to the library: nothing here is public API.
__all__: list[str] = []

Places = list[tuple[int, int]]
"""Where an ``old`` text occurs: ``(cell number, offset in its source)``, in cell order."""


@dataclass(frozen=True)
class CellEdit:
    """An edit of a notebook: its whole text before and after, and the changed cells'
    sources, old and new, by cell number (none when the file had no cells to edit)."""

    old_text: str
    new_text: str
    cells: dict[int, tuple[str, str]] = field(default_factory=dict)

    def diff(self, shown: str) -> str:
        """The diff of the cells' sources (``--- a/nb.ipynb (cell 3)``), or of the text."""
        if self.cells:
            return cell_diff(shown, self.cells)
        return file_diff(shown, self.old_text, self.new_text)


def notebook_or_none(text: str) -> Notebook | None:
    """``text`` as a notebook; ``None`` when it is not notebook JSON (it has no cells)."""
    try:
        return parse_notebook(text)
    except InvalidNotebookError:
        return None


def replace_in_cells(text: str, pairs: Sequence[Replacement], shown: str) -> CellEdit:
    """The notebook ``text`` with each ``old`` of ``pairs`` replaced, in order, in the one
    cell source that holds it.

    Raises:
        ToolError: an ``old`` found in no cell or several times (saying where), or a text
            that is no notebook and would not be one after the edit.
    """
    notebook = notebook_or_none(text)
    if notebook is None:
        return _raw(text, pairs, shown)
    sources = {cell.number: cell.source for cell in notebook.cells}
    for number, pair in enumerate(pairs):
        old, new = pair["old"], pair["new"]
        places = [(cell, at) for cell, source in sources.items() for at in occurrences(source, old)]
        if len(places) != 1:
            raise ToolError(_miss(sources, old, places, number, shown))
        cell, at = places[0]
        source = sources[cell]
        sources[cell] = source[:at] + new + source[at + len(old) :]
    return _with_sources(notebook, sources, shown)


def replace_symbol(text: str, symbol: Symbol, new: str, shown: str) -> CellEdit:
    """The notebook ``text`` with the whole lines of ``symbol`` in its cell replaced by
    ``new`` (a final line break added, unless the lines replaced ended the cell's source
    without one).

    Raises:
        ToolError: a symbol in no cell of the notebook.
    """
    notebook = notebook_or_none(text)
    if notebook is None or symbol.cell is None:
        raise ToolError(
            f"{symbol.name_path} is in no cell of {shown}; nothing was changed. Give a target "
            f"in a cell ({shown}#name, {shown}:cell N:LINE), or replace text with edits"
        )
    source = notebook.cell(symbol.cell).source
    replaced, [(_start, end, put)] = replace_lines(source, symbol.range_lines, new)
    if end == len(source) and not source.endswith(("\n", "\r")) and put != new:
        replaced = replaced[: len(replaced) - (len(put) - len(new))]  # as the cell ended
    sources = {cell.number: cell.source for cell in notebook.cells}
    sources[symbol.cell] = replaced
    return _with_sources(notebook, sources, shown)


def _with_sources(notebook: Notebook, sources: dict[int, str], shown: str) -> CellEdit:
    cells = {
        cell.number: (cell.source, sources[cell.number])
        for cell in notebook.cells
        if sources[cell.number] != cell.source
    }
    new_text = notebook.with_sources({number: new for number, (_old, new) in cells.items()})
    _check_notebook(new_text, shown)
    return CellEdit(notebook.text, new_text, cells)


def _raw(text: str, pairs: Sequence[Replacement], shown: str) -> CellEdit:
    """A file named ``.ipynb`` that is no notebook, edited as the text it is (to repair it)."""
    new_text, _offsets = replace_all(text, pairs, shown)
    _check_notebook(new_text, shown)
    return CellEdit(text, new_text)


def _check_notebook(text: str, shown: str) -> None:
    """Refuse a text that is not a notebook, as the write path does (nothing written)."""
    try:
        parse_notebook(text)
    except InvalidNotebookError as error:
        raise ToolError(
            f"nothing was written: {shown} would not be a notebook: {error}. A notebook's "
            "edits are text of its cells' sources; a file that is no notebook JSON yet must "
            "become one"
        ) from None


def _miss(sources: dict[int, str], old: str, places: Places, number: int, shown: str) -> str:
    which = quoted(old, number)
    state = " (as the edits before it left them)" if number else ""
    if not places:
        escaped = (
            " It holds \\n escapes or quotes as the JSON has them: give the cell's text "
            "itself, its line breaks as line breaks."
            if "\\n" in old or old.lstrip().startswith('"')
            else ""
        )
        return (
            f"{which} does not occur in any cell of {shown}{state}; nothing was changed. Copy "
            "it exactly from one cell's source, whitespace and indentation included (the "
            f"text of the cell, not the notebook's JSON).{escaped}"
        )
    return (
        f"{which} occurs {len(places):,} times in the cells of {shown}{state} "
        f"({_where(sources, places)}); nothing was changed. Give more of the text around "
        "it, so that it occurs exactly once."
    )


def _where(sources: dict[int, str], places: Places) -> str:
    """``cell 2 line 3; cell 4 lines 1, 5``: the places named, by cell."""
    by_cell: dict[int, list[int]] = {}
    for cell, at in places[:PLACES_SHOWN]:
        index = LineIndex(sources[cell], "utf-32")
        by_cell.setdefault(cell, []).append(index.line_of(at) + 1)
    parts = [
        f"cell {cell} line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"
        for cell, lines in by_cell.items()
    ]
    return "; ".join(parts) + more(len(places))
