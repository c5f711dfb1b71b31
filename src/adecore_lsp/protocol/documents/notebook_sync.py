"""Notebooks as a server sees them (LSP 3.17 ``notebookDocument/*``): which servers take a
notebook, and the notifications that open, change, save and close one.

A server that announces ``notebookDocumentSync`` (statically or by registering
``notebookDocument/sync``) names the notebooks it takes with a ``notebookSelector``: each
entry a ``notebook`` (a notebook type as a string, ``*`` for any, or a filter of
``notebookType``, ``scheme`` and ``pattern`` matched like a document filter) and/or the
``cells`` languages it wants. The cells themselves are text documents of the document
store, opened and changed through the notebook's notifications rather than their own.
Sans-IO: the session sends what these functions return.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..capabilities.selectors import fields_match
from .documents import DocumentStore, TextDocument

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

JUPYTER = "jupyter-notebook"
"""The notebook type of a Jupyter ``.ipynb`` file, as editors and servers name it."""

CODE_CELL = 2
"""``NotebookCellKind.Code``."""


@dataclass(frozen=True)
class CellText:
    """One code cell as it is sent: its URI, language and text."""

    uri: str
    language_id: str
    text: str


@dataclass
class OpenNotebook:
    """A notebook open in one session: its version and its cells' URIs, in order."""

    uri: str
    notebook_type: str
    version: int
    cells: list[str] = field(default_factory=list)


def _notebook_filter_matches(notebook: object, notebook_type: str, uri: str) -> bool:
    if isinstance(notebook, str):
        return notebook in ("*", notebook_type)
    if not isinstance(notebook, Mapping):
        return False
    return fields_match(notebook, "notebookType", notebook_type, uri)


def notebook_selector_matches(
    selector: object, notebook_type: str, uri: str, cell_language: str
) -> bool:
    """Whether a ``notebookSelector`` takes a notebook of this type and URI whose code cells
    are of ``cell_language``: an entry whose ``notebook`` (when given) matches and whose
    ``cells`` (when given) name that language or ``*``."""
    if not isinstance(selector, list):
        return False
    for entry in selector:
        if not isinstance(entry, Mapping):
            continue
        notebook = entry.get("notebook")
        cells = entry.get("cells")
        if notebook is None and cells is None:
            continue
        if notebook is not None and not _notebook_filter_matches(notebook, notebook_type, uri):
            continue
        if cells is not None and not (
            isinstance(cells, list)
            and any(
                isinstance(cell, Mapping) and cell.get("language") in ("*", cell_language)
                for cell in cells
            )
        ):
            continue
        return True
    return False


def sync_options(
    static: object,
    registered: Sequence[Mapping[str, Any]],
    notebook_type: str,
    uri: str,
    cell_language: str,
) -> dict[str, Any] | None:
    """The ``notebookDocumentSync`` options that take this notebook: a registration's
    (newest first), else the static capability's; ``None`` when no selector takes it."""
    for options in (*registered, static):
        if isinstance(options, Mapping) and notebook_selector_matches(
            options.get("notebookSelector"), notebook_type, uri, cell_language
        ):
            return dict(options)
    return None


class NotebookSync:
    """The notebooks open in one session, their cells kept in the session's document store
    (so positions, versions and stale answers work for cells as for files)."""

    __slots__ = ("notebooks", "store")

    def __init__(self, store: DocumentStore) -> None:
        self.store = store
        self.notebooks: dict[str, OpenNotebook] = {}

    def open(
        self,
        uri: str,
        notebook_type: str,
        cells: Sequence[CellText],
        encoding: str,
        metadata: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Open a notebook and its code cells; the ``notebookDocument/didOpen`` params.

        Raises:
            ValueError: the notebook, or one of its cells, is open already.
        """
        if uri in self.notebooks:
            raise ValueError(f"the notebook {uri} is already open; close it first")
        for cell in cells:
            if cell.uri in self.store:
                raise ValueError(f"the cell {cell.uri} is already open")
        documents = [self.store.open(c.uri, c.language_id, c.text, encoding) for c in cells]
        opened = OpenNotebook(uri, notebook_type, 1, [cell.uri for cell in cells])
        self.notebooks[uri] = opened
        notebook: dict[str, Any] = {
            "uri": uri,
            "notebookType": notebook_type,
            "version": opened.version,
            "cells": [{"kind": CODE_CELL, "document": cell.uri} for cell in cells],
        }
        if metadata is not None:
            notebook["metadata"] = dict(metadata)
        return {
            "notebookDocument": notebook,
            "cellTextDocuments": [_item(document) for document in documents],
        }

    def change(
        self, uri: str, cells: Sequence[CellText], encoding: str = "utf-16"
    ) -> dict[str, Any] | None:
        """Bring the notebook to ``cells``; the ``notebookDocument/didChange`` params, or
        ``None`` when nothing changed. Cells kept (by URI) that changed are text changes;
        when cells came, went or moved, the change also carries the new cell array (the
        whole of it replaced), the new cells' documents opened and the gone ones closed.

        Raises:
            ValueError: the notebook is not open, or a new cell's URI is open already
                elsewhere.
        """
        opened = self._open(uri)
        new_uris = [cell.uri for cell in cells]
        kept = set(opened.cells) & set(new_uris)
        for cell in cells:
            if cell.uri not in kept and cell.uri in self.store:
                raise ValueError(f"the cell {cell.uri} is already open")
        changed = []
        for cell in cells:
            if cell.uri not in kept:
                continue
            document, sent = self.store.change(cell.uri, cell.text, sync_kind=1)
            if sent:
                changed.append(
                    {
                        "document": {"uri": document.uri, "version": document.version},
                        "changes": [{"text": cell.text}],
                    }
                )
        change: dict[str, Any] = {}
        if new_uris != opened.cells:
            gone = [old for old in opened.cells if old not in kept]
            for old in gone:
                self.store.close(old)
            came = [
                self.store.open(new.uri, new.language_id, new.text, encoding)
                for new in cells
                if new.uri not in kept
            ]
            change["structure"] = {
                "array": {
                    "start": 0,
                    "deleteCount": len(opened.cells),
                    "cells": [{"kind": CODE_CELL, "document": new} for new in new_uris],
                },
                "didOpen": [_item(document) for document in came],
                "didClose": [{"uri": old} for old in gone],
            }
            opened.cells = new_uris
        if changed:
            change["textContent"] = changed
        if not change:
            return None
        opened.version += 1
        return {
            "notebookDocument": {"uri": uri, "version": opened.version},
            "change": {"cells": change},
        }

    def save(self, uri: str) -> dict[str, Any]:
        """The ``notebookDocument/didSave`` params."""
        self._open(uri)
        return {"notebookDocument": {"uri": uri}}

    def close(self, uri: str) -> dict[str, Any]:
        """Close a notebook and its cells; the ``notebookDocument/didClose`` params."""
        opened = self._open(uri)
        del self.notebooks[uri]
        for cell in opened.cells:
            if cell in self.store:
                self.store.close(cell)
        return {
            "notebookDocument": {"uri": uri},
            "cellTextDocuments": [{"uri": cell} for cell in opened.cells],
        }

    def cells_of(self, uri: str) -> list[str]:
        """The URIs of an open notebook's code cells, in order."""
        return list(self._open(uri).cells)

    def _open(self, uri: str) -> OpenNotebook:
        opened = self.notebooks.get(uri)
        if opened is None:
            raise ValueError(f"the notebook {uri} is not open")
        return opened


def _item(document: TextDocument) -> dict[str, Any]:
    return {
        "uri": document.uri,
        "languageId": document.language_id,
        "version": document.version,
        "text": document.text,
    }
