"""Jupyter notebooks (nbformat 4) as text: cells, IPython-only lines, the joined document, cell
URIs, and edits of cell sources that leave every other character of the file as it was.

- :func:`parse_notebook` reads a notebook's text into an immutable :class:`Notebook`: its kernel's
  language and its cells, numbered from 1 among all cells (markdown and raw included, as ruff
  prints them), each with the span of its ``source`` value in the text. A text that is not an
  nbformat 4 notebook raises :class:`InvalidNotebookError`, whose message is the detail the
  workspace reports as ``invalid notebook: <detail>``.
- :func:`mask_ipython` blanks the lines only IPython reads (magics, shell escapes, help), so that
  a Python server sees valid Python and every other line keeps its number.
- :func:`join_code_cells` builds the one document a server without notebook sync reads: the code
  cells in order, each followed by a blank line; its :class:`JoinedDocument` maps lines both ways.
  Columns pass through unchanged: a joined line is a cell line, or a blank one.
- :meth:`Notebook.cell_uri` and :func:`parse_cell_uri` name cells as servers do
  (``vscode-notebook-cell:`` URIs, and basedpyright's ``file:///.../nb.ipynb#K``).
- :meth:`Notebook.with_sources` writes new cell sources into the JSON text in place (see
  ``json_spans.py``): outputs, metadata, key order, indentation, escapes, line endings and the
  final newline stay byte for byte, and a new source keeps its cell's form (a list of lines or
  one string).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Final, NamedTuple, NoReturn
from urllib.parse import quote, unquote, urlsplit

from .json_spans import (
    array_items,
    decode_string,
    last_member,
    object_members,
    skip_whitespace,
)
from .uris import uri_to_path

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

CELL_SCHEME: Final = "vscode-notebook-cell"
"""The scheme of a cell's URI, as VS Code, ruff and basedpyright spell it."""

# Line breaks as LSP counts them (positions.py): "\r\n", "\r" and "\n", nothing else.
_BREAK: Final = re.compile(r"\r\n|\r|\n")
_BREAK_KEPT: Final = re.compile(r"(\r\n|\r|\n)")
# `files = !ls`, `a, b = %sx ls`: IPython's assignment from a shell command or a magic.
_MAGIC_ASSIGNMENT: Final = re.compile(r"[\w.]+(?:\s*,\s*[\w.]+)*\s*=\s*[!%]")
# A source written as a list of lines is cut after each "\n", as nbformat writes it.
_SOURCE_LINE: Final = re.compile(r"[^\n]*\n|[^\n]+")
# A \uXXXX escape of a non-ASCII code point, unless the backslash is itself escaped.
_NON_ASCII_ESCAPE: Final = re.compile(r"\\u(?!00[0-7])[0-9a-fA-F]{4}")
_DIGITS: Final = re.compile(r"[0-9]+")


class InvalidNotebookError(ValueError):
    """A text that is not an nbformat 4 notebook; ``str(error)`` is the short detail to report."""


@dataclass(frozen=True)
class NotebookCell:
    """One cell of a notebook: its number from 1, kind, id, source text and where the source is.

    ``source_span`` is ``(start, end)``: ``notebook.text[start:end]`` is the JSON value of the
    cell's ``source`` (a string or a list of strings), which :meth:`Notebook.with_sources`
    replaces.
    """

    number: int
    kind: str
    id: str | None
    source: str
    source_span: tuple[int, int]

    @property
    def is_code(self) -> bool:
        """Whether this is a code cell, the only kind sent to servers."""
        return self.kind == "code"


class CellPosition(NamedTuple):
    """A position within a cell: the cell's number (from 1), and a line and character in it."""

    cell: int
    line: int
    character: int


class CellReference(NamedTuple):
    """What a cell URI names: the notebook's ``file:`` URI and the cell, as its fragment says.

    With ``by_code_index``, the fragment is basedpyright's K, the K-th code cell from 0;
    otherwise it is the fragment of a ``vscode-notebook-cell:`` URI (a cell id or ``cellN``).
    """

    notebook_uri: str
    fragment: str
    by_code_index: bool


@dataclass(frozen=True)
class Notebook:
    """A parsed notebook: its text, its kernel's language and all its cells, in file order."""

    text: str
    language: str
    cells: tuple[NotebookCell, ...]

    @cached_property
    def code_cells(self) -> tuple[NotebookCell, ...]:
        """The code cells in order: what servers are sent."""
        return tuple(cell for cell in self.cells if cell.is_code)

    @cached_property
    def has_cell_ids(self) -> bool:
        """Whether every cell has an id, none twice, so that cell URIs can name cells by id."""
        ids = [cell.id for cell in self.cells]
        return None not in ids and len(set(ids)) == len(ids)

    def cell(self, number: int) -> NotebookCell:
        """The cell numbered ``number`` (from 1); raises ValueError for a number out of range."""
        if not 1 <= number <= len(self.cells):
            raise ValueError(f"no cell {number}: the notebook has {len(self.cells)} cells")
        return self.cells[number - 1]

    def _fragment(self, cell: NotebookCell, by_id: bool) -> str:
        """The fragment of ``cell``'s URI: its id, or ``cellN`` when the cells are not all ids."""
        return cell.id if by_id and cell.id is not None else f"cell{cell.number}"

    def cell_uri(self, notebook_uri: str, number: int) -> str:
        """The ``vscode-notebook-cell:`` URI of cell ``number`` of the notebook at ``notebook_uri``.

        It is ``vscode-notebook-cell:`` + the percent-encoded path of the notebook's ``file:``
        URI (its authority kept) + ``#`` + the cell's id, or ``#cellN`` when the file does not
        give every cell an id of its own. Raises ValueError for a URI that is not ``file:``.
        """
        if uri_to_path(notebook_uri) is None:
            raise ValueError(f"a notebook URI must be a file: URI, not {notebook_uri!r}")
        parts = urlsplit(notebook_uri)
        authority = f"//{parts.netloc}" if parts.netloc else ""
        fragment = self._fragment(self.cell(number), self.has_cell_ids)
        return f"{CELL_SCHEME}:{authority}{parts.path}#{quote(fragment, safe='')}"

    def cell_for(self, reference: CellReference) -> NotebookCell | None:
        """The cell a cell URI of this notebook names (see :func:`parse_cell_uri`), or ``None``.

        ``None`` means the URI names no cell of this notebook (a stale id, a K past the last
        code cell): the caller reports it as unmappable rather than guessing.
        """
        if reference.by_code_index:
            code_cells = self.code_cells
            if _DIGITS.fullmatch(reference.fragment) and int(reference.fragment) < len(code_cells):
                return code_cells[int(reference.fragment)]
            return None
        by_id = self.has_cell_ids
        for cell in self.cells:
            if self._fragment(cell, by_id) == reference.fragment:
                return cell
        return None

    def file_line(self, number: int, line: int) -> int:
        """The 0-based line of the notebook's own text that holds 0-based ``line`` of cell
        ``number``'s source (its string in a list of lines, or the one string), so that a
        reader of the raw file lands on it; a line past the source's end gives its last."""
        start = self.cell(number).source_span[0]
        if self.text[start] != "[":
            return self.text.count("\n", 0, start)
        at, seen = start, 0
        for item_start, item_end in array_items(self.text, start):
            at = item_start
            seen += len(_BREAK.findall(decode_string(self.text, item_start, item_end)))
            if seen > line:
                break
        return self.text.count("\n", 0, at)

    def with_sources(self, sources: Mapping[int, str]) -> str:
        """The notebook's text with the cells numbered in ``sources`` given those new sources.

        Only those cells' ``source`` values change; every other character stays as it was.
        A cell whose new source equals its old one is not touched, so no edits give back
        :attr:`text` itself. A source written as a list of lines stays a list of lines (cut
        after each ``"\\n"``, at the layout of the file's other source lists; an empty source
        is ``[]``) and a string stays a string. Non-ASCII characters are written raw, unless
        the file is all ASCII and escapes non-ASCII characters (``\\u00e9``). Raises
        ValueError for a cell number out of range.
        """
        edits = [(self.cell(number), new) for number, new in sorted(sources.items())]
        edits = [(cell, new) for cell, new in edits if new != cell.source]
        if not edits:
            return self.text
        text = self.text
        ascii_only = text.isascii() and _escapes_non_ascii(text)
        pieces: list[str] = []
        done = 0
        for cell, new in edits:
            start, end = cell.source_span
            pieces.append(text[done:start])
            if text[start] == "[":
                pieces.append(self._source_list(cell, new, ascii_only))
            else:
                pieces.append(json.dumps(new, ensure_ascii=ascii_only))
            done = end
        pieces.append(text[done:])
        return "".join(pieces)

    def _source_list(self, cell: NotebookCell, source: str, ascii_only: bool) -> str:
        """``source`` as a JSON list of its lines, laid out as the file lays out source lists."""
        lines = _SOURCE_LINE.findall(source)
        if not lines:
            return "[]"
        opening, separator, closing = self._list_layout(cell)
        items = separator.join(json.dumps(line, ensure_ascii=ascii_only) for line in lines)
        return f"[{opening}{items}{closing}]"

    def _list_layout(self, cell: NotebookCell) -> tuple[str, str, str]:
        """The text after ``[``, between two items and before ``]`` of ``cell``'s source list.

        Taken from the cell's own list if it has items, else from another cell's non-empty
        source list (cells sit at one depth, so their lists share a layout), else built from
        the file: one item a line, at the line's indentation plus the file's indent unit, with
        the file's line ending; a file on one line (minified) keeps the list on one line.
        """
        text = self.text
        start = cell.source_span[0]
        colon = text.rindex(":", 0, start)
        after_colon = text[colon + 1 : start]  # "" when minified, " " as json.dumps writes
        for other in (cell, *self.cells):
            other_start, other_end = other.source_span
            items = array_items(text, other_start) if text[other_start] == "[" else []
            if items:
                opening = text[other_start + 1 : items[0][0]]
                closing = text[items[-1][1] : other_end - 1]
                if len(items) > 1:
                    separator = text[items[0][1] : items[1][0]]
                elif _BREAK.search(opening):
                    separator = "," + opening
                else:
                    separator = "," + after_colon
                return opening, separator, closing
        if not _BREAK.search(text.strip(" \t\r\n")):  # one line, or one and a final newline
            return "", "," + after_colon, ""
        newline = "\r\n" if "\r\n" in text else "\n"
        line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
        line = text[line_start:start]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        root = skip_whitespace(text, 0)
        first_gap = text[root + 1 : skip_whitespace(text, root + 1)]
        unit = _BREAK.split(first_gap)[-1] or " "
        return newline + indent + unit, "," + newline + indent + unit, newline + indent


def _escapes_non_ascii(text: str) -> bool:
    """Whether ``text`` writes a non-ASCII character as an escape (``\\u00e9``) anywhere.

    The pattern starts with a literal, which the regex engine finds at memory speed; only
    its rare matches have their preceding backslashes counted (``\\\\u00e9`` is no escape).
    """
    for match in _NON_ASCII_ESCAPE.finditer(text):
        start = match.start()
        before = start - 1
        while before >= 0 and text[before] == "\\":
            before -= 1
        if (start - before) % 2:  # the match's backslash is not itself escaped
            return True
    return False


def parse_notebook(text: str) -> Notebook:
    """Read a notebook's JSON text; raises InvalidNotebookError unless it is nbformat 4.

    The checks are those that reading the cells needs: a JSON object with ``nbformat`` 4 and
    a ``cells`` list, each cell an object with a string ``cell_type`` and a ``source`` that is
    a string or a list of strings (joined), and an ``id``, if any, that is a string. The
    language is ``metadata.kernelspec.language``, else ``metadata.language_info.name``, else
    ``"python"``, in lower case as LSP language ids are.
    """
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise InvalidNotebookError(
            f"not JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        raise InvalidNotebookError("not JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise InvalidNotebookError("not a JSON object")
    version = data.get("nbformat")
    if version is None:
        raise InvalidNotebookError("no nbformat version")
    if type(version) is not int or version != 4:
        raise InvalidNotebookError(f"nbformat {json.dumps(version)} is not supported (only 4 is)")
    cells_data = data.get("cells")
    if not isinstance(cells_data, list):
        raise InvalidNotebookError("no cells list" if cells_data is None else "cells is not a list")
    root = object_members(text, skip_whitespace(text, 0))
    spans = array_items(text, last_member(root, "cells").value_start)
    cells = tuple(
        _cell(number, cell_data, text, span)
        for number, (cell_data, span) in enumerate(zip(cells_data, spans, strict=True), start=1)
    )
    return Notebook(text, _language(data), cells)


def _refuse_constant(name: str) -> NoReturn:
    """Refuse NaN and Infinity, which Python's parser takes but JSON does not have."""
    raise InvalidNotebookError(f"not JSON: {name} is not a JSON value")


def _cell(number: int, data: object, text: str, span: tuple[int, int]) -> NotebookCell:
    """Cell ``number`` from its parsed JSON and its span in ``text``; raises if malformed."""
    if not isinstance(data, dict):
        raise InvalidNotebookError(f"cell {number} is not an object")
    kind = data.get("cell_type")
    if not isinstance(kind, str):
        raise InvalidNotebookError(f"cell {number} has no cell_type string")
    source = data.get("source")
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        source = "".join(source)
    if not isinstance(source, str):
        raise InvalidNotebookError(
            f"cell {number}: source is missing or not a string or a list of strings"
        )
    cell_id = data.get("id")
    if cell_id is not None and not isinstance(cell_id, str):
        raise InvalidNotebookError(f"cell {number}: id is not a string")
    member = last_member(object_members(text, span[0]), "source")
    return NotebookCell(number, kind, cell_id, source, (member.value_start, member.value_end))


def _language(data: dict[str, Any]) -> str:
    """The kernel's language from the notebook's metadata, in lower case; ``python`` if none."""
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        for section, key in (("kernelspec", "language"), ("language_info", "name")):
            value = metadata.get(section)
            name = value.get(key) if isinstance(value, dict) else None
            if isinstance(name, str) and name:
                return name.lower()
    return "python"


def write_cell_sources(text: str, sources: Mapping[int, str]) -> str:
    """``text`` with new sources for the cells numbered in ``sources`` (see Notebook.with_sources).

    Raises InvalidNotebookError for a text that is not a notebook, ValueError for a cell
    number out of range.
    """
    return parse_notebook(text).with_sources(sources)


def _is_ipython_line(line: str) -> bool:
    """Whether one line (not of a ``%%`` cell) is IPython-only: a magic, shell escape or help.

    A line ending in ``?`` counts when it holds no ``#``, ``'`` or ``"``: a comment or a
    string ending in a question mark is Python, and blanking it could break the code.
    """
    stripped = line.strip()
    if not stripped:
        return False
    if stripped[0] in "%!?":
        return True
    if stripped.endswith("?") and not any(mark in stripped for mark in "#'\""):
        return True
    return _MAGIC_ASSIGNMENT.match(stripped) is not None


def mask_ipython(source: str) -> tuple[str, frozenset[int]]:
    """``source`` with its IPython-only lines made empty, and the numbers (from 0) of those lines.

    IPython-only lines are those whose first non-blank character is ``%``, ``!`` or ``?``,
    those ending in ``?`` (help), assignments from ``!`` or ``%`` (``files = !ls``), and every
    line of a cell whose first non-blank line starts with ``%%`` (a cell magic). Line breaks
    are kept, so every line keeps its number; a source without such lines comes back as is.
    """
    parts = _BREAK_KEPT.split(source)
    lines = parts[0::2]
    first = next((line.lstrip() for line in lines if line.strip()), "")
    if first.startswith("%%"):
        masked = frozenset(range(len(lines)))
    else:
        masked = frozenset(index for index, line in enumerate(lines) if _is_ipython_line(line))
    if not masked:
        return source, masked
    for index in masked:
        parts[2 * index] = ""
    return "".join(parts), masked


@dataclass(frozen=True)
class JoinedDocument:
    """The code cells of a notebook as one text, and the map between its lines and the cells'.

    ``line_cells[i]`` is ``(cell number, line in the cell)`` for joined line ``i``, or
    ``None`` for the blank line after each cell; ``cell_lines`` maps a cell's number to its
    first joined line and its number of lines; ``masked_lines`` are the joined lines blanked
    as IPython-only. Build it with :func:`join_code_cells`.
    """

    text: str
    line_cells: tuple[tuple[int, int] | None, ...]
    cell_lines: Mapping[int, tuple[int, int]] = field(compare=False)  # follows from line_cells
    masked_lines: frozenset[int]

    def to_cell(self, line: int, character: int) -> CellPosition | None:
        """The cell position of a joined position; ``None`` on a separator or past the end."""
        place = self.line_cells[line] if 0 <= line < len(self.line_cells) else None
        if place is None:
            return None
        return CellPosition(place[0], place[1], character)

    def from_cell(self, cell: int, line: int, character: int) -> tuple[int, int] | None:
        """The joined ``(line, character)`` of a cell position; ``None`` outside a code cell."""
        first_and_count = self.cell_lines.get(cell)
        if first_and_count is None or not 0 <= line < first_and_count[1]:
            return None
        return first_and_count[0] + line, character

    def cell_of_line(self, line: int) -> int | None:
        """The number of the cell a joined line belongs to; ``None`` for a line of no cell."""
        position = self.to_cell(line, 0)
        return None if position is None else position.cell

    def is_masked(self, line: int) -> bool:
        """Whether a joined line was blanked as IPython-only: findings on it are dropped."""
        return line in self.masked_lines


def join_code_cells(notebook: Notebook, *, mask: bool | None = None) -> JoinedDocument:
    """The joined document of ``notebook``: its code cells in order, each followed by a blank line.

    With ``mask`` (by default, when the kernel's language is Python), IPython-only lines are
    blank (:func:`mask_ipython`). Lines are joined with ``"\\n"`` whatever breaks the cells
    use; the text ends with the newline before the last cell's blank line (``""`` for a
    notebook without code cells).
    """
    if mask is None:
        mask = notebook.language == "python"
    lines: list[str] = []
    line_cells: list[tuple[int, int] | None] = []
    cell_lines: dict[int, tuple[int, int]] = {}
    masked_lines: set[int] = set()
    for cell in notebook.code_cells:
        source, masked = cell.source, frozenset[int]()
        if mask:
            source, masked = mask_ipython(source)
        cell_text_lines = _BREAK.split(source)
        first = len(lines)
        cell_lines[cell.number] = (first, len(cell_text_lines))
        masked_lines.update(first + index for index in masked)
        line_cells.extend((cell.number, index) for index in range(len(cell_text_lines)))
        lines.extend(cell_text_lines)
        lines.append("")
        line_cells.append(None)
    return JoinedDocument(
        "\n".join(lines), tuple(line_cells), MappingProxyType(cell_lines), frozenset(masked_lines)
    )


def parse_cell_uri(uri: str) -> CellReference | None:
    """What a cell URI names, or ``None`` for a URI that names no cell.

    A ``vscode-notebook-cell:`` URI with a fragment names the cell of that fragment (an id or
    ``cellN``) in the notebook whose ``file:`` URI has the same authority and path. A
    ``file:`` URI with a fragment is basedpyright's form, ``file:///.../nb.ipynb#K``: the K-th
    code cell from 0. Resolve the reference with :meth:`Notebook.cell_for`.
    """
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if not parts.fragment or scheme not in (CELL_SCHEME, "file"):
        return None
    notebook_uri = f"file://{parts.netloc}{parts.path}"
    return CellReference(notebook_uri, unquote(parts.fragment), scheme == "file")
