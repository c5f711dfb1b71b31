"""People's units and LSP's, both ways: 1-based lines and code-point columns, relative paths.

A server counts columns in its negotiated encoding (UTF-16 unless it chose otherwise) and
lines from 0; people and models count both from 1, columns in code points. Converting needs
the line's text, which :class:`Texts` keeps per file (the open document, else the disk).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ...paths import path_to_uri, uri_to_path
from ...protocol.documents.positions import LineIndex, PositionEncoding
from ..model import Diagnostic, Location, Severity
from .listing import leads_out

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

_SEVERITIES: dict[int, Severity] = {1: "error", 2: "warning", 3: "information", 4: "hint"}

CACHED = 50_000
"""Spellings of paths whose absolute path, URI and display path are remembered (a bound on
memory)."""


class Paths:
    """Paths as people give and read them: relative to the root with ``/``, or absolute."""

    def __init__(self, root: Path) -> None:
        self.root = root
        # Each file's absolute path and URI are asked for many times in a check (opening,
        # finality, conversions): made once per spelling. Cleared when it grows past CACHED.
        self._absolute: dict[str | os.PathLike[str], Path] = {}
        self._uris: dict[str | os.PathLike[str], str] = {}
        self._displays: dict[str, str] = {}
        text = os.fspath(root)
        self._inside = text if text.endswith(os.sep) else text + os.sep

    def absolute(self, path: str | os.PathLike[str]) -> Path:
        """The absolute path of ``path`` (relative to the root unless absolute), normalised."""
        known = self._absolute.get(path)
        if known is not None:
            return known
        if isinstance(path, Path) and path.is_absolute() and ".." not in path.parts:
            found = path  # already what normpath would make of it (a listed file)
        else:
            given = Path(path).expanduser()
            full = given if given.is_absolute() else self.root / given
            found = Path(os.path.normpath(full))
        if len(self._absolute) >= CACHED:
            self._absolute.clear()
        self._absolute[path] = found
        return found

    def relative(self, path: Path) -> str:
        """``path`` relative to the root with ``/``; a path outside the root stays absolute."""
        text = os.fspath(path)
        if text.startswith(self._inside):
            # The common case, as a string: pathlib's relative_to parses both paths again.
            rest = text[len(self._inside) :]
            return rest if os.sep == "/" else rest.replace(os.sep, "/")
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def display(self, uri: str) -> str:
        """The display path of a ``file:`` URI (the URI itself for another scheme); made once
        per URI (every diagnostic of a file asks it, thousands in an edit's check)."""
        known = self._displays.get(uri)
        if known is not None:
            return known
        try:
            shown = self.relative(uri_to_path(uri))
        except ValueError:
            shown = uri
        if len(self._displays) >= CACHED:
            self._displays.clear()
        self._displays[uri] = shown
        return shown

    def uri(self, path: str | os.PathLike[str]) -> str:
        """The ``file:`` URI of ``path`` (relative to the root unless absolute)."""
        known = self._uris.get(path)
        if known is not None:
            return known
        uri = path_to_uri(self.absolute(path))
        if len(self._uris) >= CACHED:
            self._uris.clear()
        self._uris[path] = uri
        return uri


class Texts:
    """The text of each file a conversion needs: what ``current`` says (the open document),
    else the file on disk read once as UTF-8; ``None`` for a file that cannot be read, and,
    given ``root``, for a file inside it whose real path is not (a link out of the root is
    never read: its lines never reach a location's text)."""

    def __init__(self, current: Callable[[str], str | None], root: Path | None = None) -> None:
        self._current = current
        self._root = root
        self._indexes: dict[str, tuple[str, LineIndex]] = {}

    def index(self, uri: str, path: Path | None = None) -> LineIndex | None:
        """The line index of ``uri``'s text (``path``: its file, when known already)."""
        text = self._current(uri)
        if text is None:
            cached = self._indexes.get(uri)
            if cached is not None:
                return cached[1]
            try:
                file = path if path is not None else uri_to_path(uri)
                if self._root is not None and leads_out(self._root, file):
                    return None
                text = file.read_text(encoding="utf-8", errors="replace")
            except (OSError, ValueError):
                return None
        cached = self._indexes.get(uri)
        if cached is not None and cached[0] is text:
            return cached[1]
        index = LineIndex(text, "utf-32")
        self._indexes[uri] = (text, index)
        return index

    def forget(self, uri: str) -> None:
        self._indexes.pop(uri, None)


def people_range(
    index: LineIndex | None, lsp_range: Mapping[str, Any], encoding: PositionEncoding
) -> tuple[int, int, int, int]:
    """``(line, column, end_line, end_column)``, 1-based in code points, of an LSP range.

    Columns past a line's end are clamped to it (servers with wrong columns exist); without
    the text, the server's columns are taken as code points.
    """
    start, end = lsp_range.get("start", {}), lsp_range.get("end", {})
    line, character = _pair(start)
    end_line, end_character = _pair(end)
    if index is None:
        return line + 1, character + 1, end_line + 1, end_character + 1
    return (
        *_people(index, line, character, encoding),
        *_people(index, end_line, end_character, encoding),
    )


def _pair(position: object) -> tuple[int, int]:
    if not isinstance(position, Mapping):
        return 0, 0
    line, character = position.get("line", 0), position.get("character", 0)
    line = line if type(line) is int and line >= 0 else 0
    character = character if type(character) is int and character >= 0 else 0
    return line, character


def _people(
    index: LineIndex, line: int, character: int, encoding: PositionEncoding
) -> tuple[int, int]:
    if line >= index.line_count:
        last = index.line_count - 1
        return last + 1, index.line_end(last) - index.line_start(last) + 1
    offset = index.offset_for(line, character, encoding)
    return line + 1, offset - index.line_start(line) + 1


def lsp_position(
    index: LineIndex, line: int, column: int | None, encoding: PositionEncoding, where: str
) -> dict[str, int]:
    """The LSP position of 1-based ``line`` and ``column`` (code points); no column means the
    line's first non-blank character.

    Raises:
        ValueError: a line or column outside the file, saying what the file has.
    """
    # People count the lines a file has, not the empty one after its last line break.
    lines = index.line_count - (index.line_count > 1 and index.text.endswith("\n"))
    if line < 1 or line > lines:
        raise ValueError(
            f"{where}:{line} is outside the file: {where} has {lines} line{'s' * (lines != 1)}"
        )
    start, end = index.line_start(line - 1), index.line_end(line - 1)
    text = index.text[start:end]
    if column is None:
        offset = start + len(text) - len(text.lstrip())
    else:
        if column < 1 or column > len(text) + 1:
            raise ValueError(
                f"{where}:{line}:{column} is outside the line: line {line} of {where} has "
                f"{len(text)} column{'s' * (len(text) != 1)} (columns count code points from 1)"
            )
        offset = start + column - 1
    position = index.position_for(offset, encoding)
    return {"line": position["line"], "character": position["character"]}


def location(
    paths: Paths,
    texts: Texts,
    uri: str,
    lsp_range: Mapping[str, Any],
    encoding: PositionEncoding,
    raw: Any = None,
) -> Location:
    """A :class:`Location` of an LSP ``uri`` and ``range``."""
    line, column, end_line, end_column = people_range(texts.index(uri), lsp_range, encoding)
    return Location(paths.display(uri), line, column, end_line, end_column, raw)


def diagnostics_of(
    paths: Paths,
    texts: Texts,
    uri: str,
    items: Iterable[object],
    encoding: PositionEncoding,
    server: str,
    stale: bool = False,
) -> list[Diagnostic]:
    """A :class:`Diagnostic` of each LSP diagnostic of ``uri`` (an item that is no object
    is skipped); one without a severity is an error. The file's text and display path are
    looked up once for all: a check of a large tree converts tens of thousands."""
    index = texts.index(uri)
    shown = paths.display(uri)
    found: list[Diagnostic] = []
    lines = index.line_count if index is not None else 0
    for item in items:
        if not isinstance(item, dict):
            continue
        lsp_range = item.get("range")
        # The shape servers send (plain objects, whole numbers on the text's lines), read
        # inline: a check converts tens of thousands. Any other goes to people_range.
        start = lsp_range.get("start") if type(lsp_range) is dict else None
        end = lsp_range.get("end") if type(lsp_range) is dict else None
        if (
            index is not None
            and type(start) is dict
            and type(end) is dict
            and type(line := start.get("line")) is int
            and type(character := start.get("character")) is int
            and type(end_line := end.get("line")) is int
            and type(end_character := end.get("character")) is int
            and 0 <= line < lines
            and 0 <= end_line < lines  # (offset_for reads a character below 0 as 0)
        ):
            first = index.line_start(line)
            column = index.offset_for(line, character, encoding) - first + 1
            if end_line != line:
                first = index.line_start(end_line)
            end_column = index.offset_for(end_line, end_character, encoding) - first + 1
            line, end_line = line + 1, end_line + 1
        else:
            line, column, end_line, end_column = people_range(
                index, lsp_range if isinstance(lsp_range, Mapping) else {}, encoding
            )
        code = item.get("code")
        message = item.get("message")
        source = item.get("source")
        found.append(
            made(
                shown,
                line,
                column,
                end_line,
                end_column,
                _SEVERITIES.get(item.get("severity"), "error"),  # type: ignore[arg-type]
                message if isinstance(message, str) else str(message),
                source if isinstance(source, str) else None,
                code if isinstance(code, (str, int)) and not isinstance(code, bool) else None,
                server,
                stale,
                item,
            )
        )
    return found


class Conversions:
    """The findings last made of each server's answer for each file: an answer the same as
    the last one, for the same text, is not converted again (after an edit, the files it did
    not touch mostly are). Kept by the edit loop, which keeps those answers anyway."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[
            tuple[str, str], tuple[str, str, bool, list[object], list[Diagnostic]]
        ] = {}

    def diagnostics_of(
        self,
        paths: Paths,
        texts: Texts,
        uri: str,
        items: list[object],
        encoding: PositionEncoding,
        server: str,
        stale: bool = False,
    ) -> list[Diagnostic]:
        """:func:`diagnostics_of`, the last list's findings again when nothing it was made
        of changed (an equal text, the same encoding and staleness, equal items)."""
        index = texts.index(uri)
        key = (server, uri)
        last = self._last.get(key)
        if (
            last is not None
            and index is not None
            and last[0] == index.text  # (equal str: identity first, in C)
            and last[1] == encoding
            and last[2] is stale
            and last[3] == items
        ):
            return list(last[4])
        found = diagnostics_of(paths, texts, uri, items, encoding, server, stale)
        if index is not None:
            self._last[key] = (index.text, encoding, stale, list(items), found)
        return list(found)


_new = object.__new__


def made(
    path: str,
    line: int,
    column: int,
    end_line: int,
    end_column: int,
    severity: Severity,
    message: str,
    source: str | None,
    code: str | int | None,
    server: str,
    stale: bool,
    raw: Any,
    cell: int | None = None,
) -> Diagnostic:
    """``Diagnostic(...)`` with these fields, made without the frozen dataclass's
    ``__init__``, which sets each field through ``object.__setattr__`` (eight times the
    cost; a tree's check makes tens of thousands). The same object in every respect."""
    diagnostic = _new(Diagnostic)
    # Filled key by key in the fields' order, the instance's dict shares the class's keys
    # (288 bytes, where a dict given whole takes 560 and __init__'s inline values 224).
    fields = diagnostic.__dict__
    fields["path"] = path
    fields["line"] = line
    fields["column"] = column
    fields["end_line"] = end_line
    fields["end_column"] = end_column
    fields["severity"] = severity
    fields["message"] = message
    fields["source"] = source
    fields["code"] = code
    fields["server"] = server
    fields["stale"] = stale
    fields["raw"] = raw
    fields["cell"] = cell
    return diagnostic
