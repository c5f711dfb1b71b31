"""Edits of notebook cells made into edits of the notebook's file (``notebooks.md``,
"Writing a notebook").

Servers edit a notebook's cells by their cell URIs (``vscode-notebook-cell:...#id``,
basedpyright's ``file:///.../nb.ipynb#K``) or, for a joined document, by its lines. An edit
plan writes files, so each notebook touched becomes one edit of its ``.ipynb`` text in which
only the edited cells' sources change (every other byte kept); a cell whose source ends as it
was is not touched, whatever no-op edits came. A URI that names a notebook's part that cannot
be found (a stale id, a cell past the last) fails the whole plan, naming it: nothing is ever
written into a notebook's JSON by guess. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..documents.notebooks import CellPosition, JoinedDocument, Notebook, parse_cell_uri
from ..documents.positions import LineIndex, check_encoding, range_tuples
from ..shapes.text_edits import apply_text_edits

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

NotebookOf = Callable[[str], "tuple[str, Notebook, JoinedDocument | None] | None"]
"""Given a URI a server named, the notebook it belongs to: ``(notebook's file URI, the
notebook, its joined document when the URI is the joined one)``, or ``None`` for a URI of no
open notebook."""


@dataclass
class NotebookChange:
    """What an edit does to one notebook: the changed cells' sources, old and new, by cell
    number; ``text`` is the notebook's whole new text."""

    uri: str
    notebook: Notebook
    cells: dict[int, tuple[str, str]] = field(default_factory=dict)
    text: str = ""


def _text_edit(edit: Any) -> tuple[tuple[tuple[int, int], tuple[int, int]], str]:
    """A ``TextEdit``'s range and new text, checked as a plain file's are.

    Raises:
        ValueError: not an object with a range of integer positions and a string
            ``newText``.
    """
    if not isinstance(edit, Mapping) or not isinstance(edit.get("newText"), str):
        raise ValueError(f"a TextEdit without a string newText: {edit!r}")
    range_ = edit.get("range")
    try:
        span = range_tuples(range_ if isinstance(range_, Mapping) else {}, "its range")
    except ValueError as error:
        raise ValueError(f"a TextEdit without a valid range: {edit!r} ({error})") from None
    return span, edit["newText"]


def _text_edits(edit: object) -> list[tuple[str, list[Any], int | None]]:
    """The text changes of a ``WorkspaceEdit`` as ``(uri, edits, index in
    documentChanges)`` (index ``None`` for the ``changes`` form)."""
    if not isinstance(edit, Mapping):
        return []
    found: list[tuple[str, list[Any], int | None]] = []
    document_changes = edit.get("documentChanges")
    if isinstance(document_changes, list):
        for index, change in enumerate(document_changes):
            if isinstance(change, Mapping) and isinstance(change.get("textDocument"), Mapping):
                uri = change["textDocument"].get("uri")
                edits = change.get("edits")
                if isinstance(uri, str) and isinstance(edits, list):
                    found.append((uri, edits, index))
        return found
    changes = edit.get("changes")
    if isinstance(changes, Mapping):
        for uri, edits in changes.items():
            if isinstance(uri, str) and isinstance(edits, list):
                found.append((uri, edits, None))
    return found


def _is_notebook_part(uri: str, notebook_of: NotebookOf) -> bool:
    return parse_cell_uri(uri) is not None or notebook_of(uri) is not None


def cells_of_edit(
    edit: object, notebook_of: NotebookOf, encoding: str
) -> tuple[Any, list[NotebookChange]]:
    """``edit`` with its edits of notebook cells (and joined documents) replaced by one
    whole-text edit of each notebook's file, and what each notebook's cells became.

    Raises:
        ValueError: a URI names a cell that cannot be found, a joined edit spans cells, or
            the edits of a cell cannot be applied; the message names the URI.
    """
    position_encoding = check_encoding(encoding)
    parts = [item for item in _text_edits(edit) if _is_notebook_part(item[0], notebook_of)]
    if not parts:
        return edit, []
    # Each part's edits of a cell are one batch, applied to the cell as the parts before
    # left it (as a plan applies the parts of one file in order).
    by_cell: dict[str, tuple[Notebook, dict[int, list[list[Any]]]]] = {}
    for uri, edits, _index in parts:
        found = notebook_of(uri)
        if found is None:
            raise ValueError(
                f"{uri} names a part of a notebook that cannot be read here (no such file, "
                "or not an nbformat 4 notebook): nothing is written"
            )
        notebook_uri, notebook, joined = found
        cells = by_cell.setdefault(notebook_uri, (notebook, {}))[1]
        if joined is not None:
            batches: dict[int, list[Any]] = {}
            for text_edit in edits:
                ((start_line, start_char), (end_line, end_char)), new_text = _text_edit(text_edit)
                start = joined.to_cell(start_line, start_char)
                end = joined.to_cell(end_line, end_char)
                if end is None and start is not None and end_char == 0 and new_text.endswith("\n"):
                    # Up to the start of the blank line after the cell: its text and the line
                    # break joining it to that line, which the new text ends with too.
                    before = joined.to_cell(end_line - 1, 0)
                    if before is not None and before.cell == start.cell:
                        source = notebook.cell(start.cell).source
                        last = LineIndex(source, position_encoding).position_for(
                            len(source), position_encoding
                        )
                        end = CellPosition(start.cell, last["line"], last["character"])
                        new_text = new_text[:-1]
                if start is None or end is None or start.cell != end.cell:
                    raise ValueError(
                        f"an edit of {uri} at line {start_line + 1} does not stay inside one "
                        "cell of the notebook (the server has the cells joined into one "
                        "document); nothing is written: a server that takes notebooks cell "
                        "by cell (ruff, basedpyright) can make this edit"
                    )
                batches.setdefault(start.cell, []).append(
                    {
                        "range": {
                            "start": {"line": start.line, "character": start.character},
                            "end": {"line": end.line, "character": end.character},
                        },
                        "newText": new_text,
                    }
                )
            for number, batch in batches.items():
                cells.setdefault(number, []).append(batch)
            continue
        reference = parse_cell_uri(uri)
        cell = None if reference is None else notebook.cell_for(reference)
        if cell is None or not cell.is_code:
            raise ValueError(f"{uri} names no cell of {notebook_uri}: nothing can be written")
        cells.setdefault(cell.number, []).append(edits)
    changes: list[NotebookChange] = []
    replaced: dict[str, tuple[str, str]] = {}
    for notebook_uri, (notebook, cells) in by_cell.items():
        change = NotebookChange(notebook_uri, notebook)
        for number, batches_of_cell in sorted(cells.items()):
            old = new = notebook.cell(number).source
            for batch in batches_of_cell:
                spans = [_text_edit(text_edit) for text_edit in batch]
                new = apply_text_edits(new, spans, position_encoding, f"cell {number}")
            if new != old:
                change.cells[number] = (old, new)
        change.text = notebook.with_sources({n: new for n, (_old, new) in change.cells.items()})
        if change.cells:
            replaced[notebook_uri] = (notebook.text, change.text)
            changes.append(change)
    return _rewritten(edit, parts, replaced, position_encoding), changes


def _rewritten(
    edit: object,
    parts: list[tuple[str, list[Any], int | None]],
    replaced: Mapping[str, tuple[str, str]],
    encoding: Any,
) -> object:
    """``edit`` in the ``documentChanges`` form, the notebook parts dropped and one edit
    of each changed notebook's whole text added in the place of its first part."""
    assert isinstance(edit, Mapping)
    notebook_parts = {uri for uri, _edits, _index in parts}
    original = edit.get("documentChanges")
    if isinstance(original, list):
        items = list(original)
    else:
        # Every entry of the changes map, as given: one this module could not read is
        # still there for the edit's own checks to refuse.
        changes = edit.get("changes")
        items = [
            {"textDocument": {"uri": uri, "version": None}, "edits": edits}
            for uri, edits in (changes.items() if isinstance(changes, Mapping) else ())
        ]
    out: list[Any] = []
    for item in items:
        uri = item.get("textDocument", {}).get("uri") if isinstance(item, Mapping) else None
        if uri not in notebook_parts:
            out.append(item)
    for notebook_uri, (old_text, new_text) in replaced.items():
        out.append(_whole_text(notebook_uri, old_text, new_text, encoding))
    rewritten = {key: value for key, value in edit.items() if key != "changes"}
    rewritten["documentChanges"] = out
    return rewritten


def _whole_text(uri: str, old_text: str, new_text: str, encoding: Any) -> dict[str, Any]:
    """A TextDocumentEdit of ``uri`` that puts ``new_text`` in place of the whole of
    ``old_text``."""
    index = LineIndex(old_text, encoding)
    end = index.position_for(len(old_text), encoding)
    whole = {"start": {"line": 0, "character": 0}, "end": dict(end)}
    return {
        "textDocument": {"uri": uri, "version": None},
        "edits": [{"range": whole, "newText": new_text}],
    }
