"""Targets as people write them, and the search of a file's outline for a name path.

Sans-IO. :func:`parse_target` reads the three forms of a target string:

- ``path:LINE`` or ``path:LINE:COL`` (1-based; the column counted in code points), read
  from the right, so a path may hold ``:`` (``C:\\x\\a.py:3:5``);
- ``path#Name``, ``path#Class/method``, ``path#Class/method[1]``: a name path from the top
  of the file's document symbols, the path up to the first ``#``; ``[k]`` picks the k-th
  (0-based) of the symbols with that name path, overloads for instance;
- a bare ``Name`` or ``Class/method`` (with ``[k]`` too), for ``workspace/symbol``.

A name is matched exactly as the server spells it in its ``DocumentSymbol`` (jedi, pylsp,
pyright, clangd and the TypeScript servers give plain names and put signatures in
``detail``; gopls spells a method ``(*T).Method``): nothing is stripped, so no two
spellings can meet by accident, and a miss lists the closest names the outline has. A name
that holds ``/`` cannot be written in a name path. ``[k]`` is read at the end of the whole
name path only; a last name that itself ends in ``]`` (other than ``[]``, as in
``operator[]``) is written with an index after it: ``lib.rs#impl Foo for [T][0]``. A bare
target holds neither ``#`` nor ``:``, and one that looks like a file (``a/b.py``) is
refused: a target names a position or a symbol.

The outline functions take ``DocumentSymbol`` trees as
:func:`adecore_lsp.protocol.shapes.symbols.document_symbols` checks and returns them; positions are
LSP ones (0-based, in the encoding of the ranges).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any, Final

from ...types import JSONObject

# Internal to the library: the workspace turns these into its public Symbol and Location.
__all__: list[str] = []

FORMS: Final = (
    "path:LINE, path:LINE:COL (1-based), nb.ipynb:cell N:LINE[:COL] (in a notebook's cell), "
    "path#Name, path#Class/method, "
    "path#Class/method[k] (k-th of that name, 0-based), or a bare Name or Class/method"
)
"""The accepted forms, as error messages list them."""

_INDEX: Final = re.compile(r"(.*)\[([^\[\]]*)\]", re.DOTALL)
_NUMBER: Final = re.compile(r"[+-]?[0-9]+")
_DIGITS: Final = re.compile(r"[0-9]+")
_CELL: Final = re.compile(r"(.+):cell ([0-9]+)", re.DOTALL)

# Endings of files a bare target may not end with: it names a file, not a symbol.
_FILE_NAME: Final = re.compile(
    r".*\.(py|pyi|pyx|ipynb|c|h|cc|cpp|cxx|hh|hpp|hxx|m|mm|ts|tsx|mts|cts|js|jsx|mjs|cjs|go|"
    r"rs|sh|bash|zsh|ya?ml|jsonc?|css|scss|less|html?|f90|f95|f03|f08|toml|cmake|rst|md|txt|"
    r"java|kt|rb|php|cs|swift|lua|vue|svelte)(\[[^\[\]]*\])?",
    re.IGNORECASE | re.DOTALL,
)

# LSP SymbolKind 1 to 26, in order.
_KINDS: Final = (
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enum_member",
    "struct",
    "event",
    "operator",
    "type_parameter",
)


@dataclass(frozen=True)
class PositionTarget:
    """``path:LINE[:COL]``: 1-based ``line``; ``column`` in code points, or ``None`` for
    the line's first non-blank character. In a notebook, ``path:cell N:LINE[:COL]``: the
    line and column within cell ``N`` (numbered from 1 among all cells)."""

    path: str
    line: int
    column: int | None = None
    cell: int | None = None

    def __str__(self) -> str:
        column = "" if self.column is None else f":{self.column}"
        cell = "" if self.cell is None else f":cell {self.cell}"
        return f"{self.path}{cell}:{self.line}{column}"


@dataclass(frozen=True)
class SymbolTarget:
    """``path#Class/method[k]``: ``names`` from the top of the file's outline, ``index``
    the k-th of the symbols with that name path (``None``: all of them)."""

    path: str
    names: tuple[str, ...]
    index: int | None = None

    @property
    def name_path(self) -> str:
        """The names joined with ``/``, as ``Symbol.name_path`` spells them."""
        return "/".join(self.names)

    def __str__(self) -> str:
        return f"{self.path}#{self.name_path}{_index_suffix(self.index)}"


@dataclass(frozen=True)
class NameTarget:
    """A bare ``Class/method[k]``, to be found through ``workspace/symbol``."""

    names: tuple[str, ...]
    index: int | None = None

    @property
    def name_path(self) -> str:
        """The names joined with ``/``."""
        return "/".join(self.names)

    def __str__(self) -> str:
        return f"{self.name_path}{_index_suffix(self.index)}"


Target = PositionTarget | SymbolTarget | NameTarget


def _index_suffix(index: int | None) -> str:
    return "" if index is None else f"[{index}]"


def _bad(text: str, why: str) -> ValueError:
    return ValueError(f"bad target {text!r}: {why}; a target is {FORMS}")


def parse_target(text: str) -> Target:
    """Read a target string into a :class:`PositionTarget`, :class:`SymbolTarget` or
    :class:`NameTarget`; nothing is looked up.

    Raises:
        ValueError: for anything else (an empty target, a line or column that is not a
            positive integer, an empty name, a bad ``[k]``, a bare path), showing the target
            and the accepted forms.
    """
    if not isinstance(text, str):
        raise TypeError(f"a target is a str, not {type(text).__name__}")
    if not text.strip():
        raise _bad(text, "it is empty")
    path, hash_sign, name_part = text.partition("#")
    if hash_sign:
        if not path.strip():
            raise _bad(text, "no path before '#'")
        if not name_part:
            raise _bad(text, "no name after '#'")
        names, index = _name_path(text, name_part)
        return SymbolTarget(path, names, index)
    position = _position(text)
    if position is not None:
        return position
    if "\\" in text or _FILE_NAME.fullmatch(text.rsplit("/", 1)[-1]):
        bracketed = _INDEX.fullmatch(text)
        file = text if bracketed is None else bracketed.group(1)
        raise _bad(
            text, f"it names a file, not a position or a symbol: use {file}:LINE or {file}#Name"
        )
    if ":" in text:
        if "::" in text:
            raise _bad(text, "a name path puts '/' between names")
        raise _bad(text, "after ':' comes a line, a positive integer")
    names, index = _name_path(text, text)
    return NameTarget(names, index)


def _position(text: str) -> PositionTarget | None:
    """``path:LINE[:COL]`` read from the right, or ``None`` if the text does not end so."""
    head, colon, last = text.rpartition(":")
    if not colon or not _NUMBER.fullmatch(last):
        return None
    before, _, previous = head.rpartition(":")
    if before and _NUMBER.fullmatch(previous):
        path, line, column = before, previous, last
    else:
        path, line, column = head, last, None
    if not path.strip():
        raise _bad(text, "no path before ':LINE'")
    if path.endswith(":"):
        raise _bad(text, "an empty field before the line")
    if ":" in path and _NUMBER.fullmatch(path.rpartition(":")[2]):
        raise _bad(text, "more numbers than a line and a column")
    for what, value in (("line", line), ("column", column)):
        if value is not None and (not _DIGITS.fullmatch(value) or int(value) == 0):
            raise _bad(text, f"the {what} must be a positive integer (1-based), got {value}")
    cell = None
    in_cell = _CELL.fullmatch(path)
    if in_cell is not None:
        path, cell = in_cell.group(1), int(in_cell.group(2))
        if cell == 0:
            raise _bad(text, "cells are numbered from 1")
    return PositionTarget(path, int(line), None if column is None else int(column), cell)


def _name_path(text: str, part: str) -> tuple[tuple[str, ...], int | None]:
    """The names and the ``[k]`` of a name path."""
    index: int | None = None
    found = _INDEX.fullmatch(part)
    if found is not None and found.group(2) != "":
        number = found.group(2)
        if not _DIGITS.fullmatch(number):
            raise _bad(text, f"[{number}] must be [k] with k a whole number from 0")
        part, index = found.group(1), int(number)
    names = tuple(part.split("/"))
    if not all(name.strip() for name in names):
        raise _bad(text, "a name path needs a name between every two '/' and at its ends")
    return names, index


# -- outlines --------------------------------------------------------------------------


@dataclass(frozen=True)
class OutlineMatch:
    """A symbol of an outline with its place: ``names`` from the top of the file."""

    symbol: JSONObject
    names: tuple[str, ...]

    @property
    def name_path(self) -> str:
        """``Class/method``: the names joined with ``/``."""
        return "/".join(self.names)

    @property
    def container(self) -> str | None:
        """The name path of the symbol around it, ``None`` at the top of the file."""
        return "/".join(self.names[:-1]) or None


def _children(symbol: JSONObject) -> list[JSONObject]:
    children = symbol.get("children")
    return children if isinstance(children, list) else []


def _walk(symbols: Sequence[JSONObject]) -> Iterator[tuple[tuple[str, ...], JSONObject]]:
    """Depth first, in the server's order, without recursion (outlines can be deep)."""
    pending: list[tuple[tuple[str, ...], JSONObject]] = [((s["name"],), s) for s in symbols]
    pending.reverse()
    while pending:
        names, symbol = pending.pop()
        yield names, symbol
        children = _children(symbol)
        pending.extend(((*names, child["name"]), child) for child in reversed(children))


def walk_outline(
    symbols: Sequence[JSONObject],
) -> Iterator[tuple[str, str | None, JSONObject]]:
    """Every symbol of an outline as ``(name_path, container, symbol)``, depth first, each
    before its children, in the server's order; ``container`` is ``None`` at the top."""
    for names, symbol in _walk(symbols):
        yield "/".join(names), "/".join(names[:-1]) or None, symbol


def _start(symbol: JSONObject) -> tuple[int, int]:
    start = symbol["selectionRange"]["start"]
    return start["line"], start["character"]


def find_in_outline(
    symbols: Sequence[JSONObject],
    name_path: Sequence[str],
    index: int | None = None,
    *,
    anchored: bool = True,
) -> list[OutlineMatch]:
    """The symbols whose name path is ``name_path``, sorted by where their names start.

    Names are compared exactly. ``anchored`` (the default) matches name paths from the top
    of the file (``path#Class/method``); otherwise a name path matches the end of a longer
    one (``method`` matches ``Class/method``, as a bare target does among a hit's file's
    symbols). With ``index``, only the ``index``-th match (0-based) is returned, or ``[]``
    when there are not that many: :func:`describe_miss` says so.
    """
    wanted = tuple(name_path)
    size = len(wanted)
    if size == 0:
        return []
    matches = [
        OutlineMatch(symbol, names)
        for names, symbol in _walk(symbols)
        if names[-size:] == wanted and (len(names) == size or not anchored)
    ]
    matches.sort(key=lambda match: _start(match.symbol))
    if index is None:
        return matches
    return [matches[index]] if 0 <= index < len(matches) else []


def describe_miss(
    symbols: Sequence[JSONObject],
    name_path: Sequence[str],
    index: int | None,
    where: str,
    *,
    anchored: bool = True,
) -> str:
    """Why :func:`find_in_outline` found nothing in ``where`` (a file's path): how many
    symbols have that name path when the index is past them, else the closest names."""
    wanted = "/".join(name_path)
    count = len(find_in_outline(symbols, name_path, anchored=anchored))
    if count:
        last = f"[0] to [{count - 1}]" if count > 1 else "[0]"
        return (
            f"{where} has {count} symbol{'s' if count > 1 else ''} {wanted}, "
            f"so [{index}] is out of range: use {last}"
        )
    paths = list(dict.fromkeys(path for path, _container, _symbol in walk_outline(symbols)))
    if not paths:
        return f"{where} has no symbol {wanted} (it has no symbols at all)"
    close = get_close_matches(wanted, paths, n=3, cutoff=0.6)
    hint = f"; the closest: {', '.join(close)}" if close else ""
    return f"{where} has no symbol {wanted}{hint}"


def _contains(range_: Any, line: int, character: int) -> bool:
    start, end = range_["start"], range_["end"]
    return (
        (start["line"], start["character"])
        <= (line, character)
        < (
            end["line"],
            end["character"],
        )
    )


def innermost_at(symbols: Sequence[JSONObject], line: int, character: int) -> OutlineMatch | None:
    """The deepest symbol whose ``range`` holds the LSP position (end excluded), or ``None``.

    Among siblings that both hold it (servers rarely nest them otherwise) the one that
    starts last, then ends first, wins: it is the inner one.
    """
    found: OutlineMatch | None = None
    level: Sequence[JSONObject] = symbols
    names: tuple[str, ...] = ()
    while True:
        holding = [symbol for symbol in level if _contains(symbol["range"], line, character)]
        if not holding:
            return found
        best = max(holding, key=_inner_key)
        names = (*names, best["name"])
        found = OutlineMatch(best, names)
        level = _children(best)


def named_at(
    symbols: Sequence[JSONObject], name: str, line: int, character: int
) -> OutlineMatch | None:
    """The innermost symbol called ``name`` whose ``range`` holds the LSP position, or
    ``None``: what a ``workspace/symbol`` hit at that position is in its file's outline
    (servers fill ``containerName`` differently, or not at all)."""
    found: OutlineMatch | None = None
    for names, symbol in _walk(symbols):
        if names[-1] != name or not _contains(symbol["range"], line, character):
            continue
        if (
            found is None
            or len(names) > len(found.names)
            or (len(names) == len(found.names) and _inner_key(symbol) > _inner_key(found.symbol))
        ):
            found = OutlineMatch(symbol, names)
    return found


def target_name_path(symbols: Sequence[JSONObject], match: OutlineMatch) -> str:
    """``match``'s name path as a target picks it: with ``[k]`` when other symbols share it
    (overloads), ``k`` its place among them by where their names start."""
    same = find_in_outline(symbols, match.names)
    if len(same) < 2:
        return match.name_path
    index = next(k for k, other in enumerate(same) if other.symbol is match.symbol)
    return f"{match.name_path}[{index}]"


def _inner_key(symbol: JSONObject) -> tuple[int, int, int, int]:
    start, end = symbol["range"]["start"], symbol["range"]["end"]
    return start["line"], start["character"], -end["line"], -end["character"]


def symbol_kind_name(kind: int) -> str:
    """The lower-case word of an LSP ``SymbolKind`` (``12`` is ``"function"``, ``22``
    ``"enum_member"``); ``"unknown"`` for a number the protocol does not define."""
    if type(kind) is int and 1 <= kind <= len(_KINDS):
        return _KINDS[kind - 1]
    return "unknown"
