"""A notebook's text as its servers are given it (``notebooks.md``): its code cells, their
URIs, and its joined document; a value the server handles keep and the files floor makes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from ...protocol.documents.notebook_sync import CellText
from ...protocol.documents.notebooks import (
    JoinedDocument,
    Notebook,
    join_code_cells,
    mask_ipython,
    parse_notebook,
)
from .server_spec import NOTEBOOK_SUFFIX

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

NotebookMode = Literal["sync", "joined"]
JOINED_SUFFIX = ".py"
"""Added to a notebook's URI for its joined document (``nb.ipynb.py``)."""


def is_notebook(path: Path | str) -> bool:
    """Whether ``path`` names a Jupyter notebook (by its name: ``.ipynb``)."""
    name = path.name if isinstance(path, Path) else path
    return name.endswith(NOTEBOOK_SUFFIX) and len(name) > len(NOTEBOOK_SUFFIX)


@dataclass(frozen=True)
class NotebookView:
    """One notebook's text as the servers are given it: its cells, their URIs, and its
    joined document (IPython-only lines blank there)."""

    path: Path
    uri: str
    notebook: Notebook

    @cached_property
    def joined(self) -> JoinedDocument:
        return join_code_cells(self.notebook)

    @property
    def joined_uri(self) -> str:
        return self.uri + JOINED_SUFFIX

    @cached_property
    def cell_uris(self) -> dict[int, str]:
        """The URI of each code cell, by cell number, in order."""
        return {
            cell.number: self.notebook.cell_uri(self.uri, cell.number)
            for cell in self.notebook.code_cells
        }

    @cached_property
    def cells_by_uri(self) -> dict[str, int]:
        return {uri: number for number, uri in self.cell_uris.items()}

    @cached_property
    def masked(self) -> dict[int, frozenset[int]]:
        """The IPython-only lines of each code cell (0-based), where the kernel is Python."""
        if self.notebook.language != "python":
            return {}
        return {cell.number: mask_ipython(cell.source)[1] for cell in self.notebook.code_cells}

    def cell_texts(self, ipython: bool) -> list[CellText]:
        """The code cells as sent to a server; IPython-only lines blank for a server that
        does not read them."""
        texts = []
        for cell in self.notebook.code_cells:
            source = cell.source
            if not ipython and self.masked.get(cell.number):
                source = mask_ipython(source)[0]
            texts.append(CellText(self.cell_uris[cell.number], self.notebook.language, source))
        return texts

    def texts(self) -> dict[str, str]:
        """Every URI a server may name for this notebook, and its text (for positions)."""
        found = {uri: self.notebook.cell(number).source for number, uri in self.cell_uris.items()}
        found[self.joined_uri] = self.joined.text
        return found


def view_of(path: Path, uri: str, text: str) -> NotebookView:
    """The view of a notebook's text.

    Raises:
        InvalidNotebookError: the text is not an nbformat 4 notebook (its detail says why).
    """
    return NotebookView(path, uri, parse_notebook(text))
