"""Where a target points, resolved once: a :class:`Place` that every question there takes.

A target is ``path:LINE[:COL]``, ``nb.ipynb:cell N:LINE[:COL]``, ``path#Class/method[k]``, a
bare ``Name`` (found through ``workspace/symbol``, kept to exact matches of the name path)
or a :class:`Location`. :func:`place` turns it into a :class:`Place` at the edge where it
came in (a ``Workspace`` method, the command line, the MCP server): the file, its URI, a
``str`` index into its text (which each server's session turns into a position in the
encoding it negotiated), the symbol it named, the servers that take the file. The calls
that ask there (definition, references, hover, rename, callers ...) take that value and
derive none of it again. :func:`resolve` finds the one symbol a target names; nothing is
picked silently: several matches raise ``AmbiguousTargetError`` listing them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import TargetNotFoundError
from ...protocol.documents.positions import LineIndex
from ...protocol.workspace import targets as parsing
from ..disk.units import lsp_position
from ..files.notebooks import cell_offset
from ..model import Location, Symbol
from ..servers.notebook_view import is_notebook
from .outlines import Whole, notebook_symbols, one, outline, prepare_whole, to_symbol
from .search import by_name

if TYPE_CHECKING:
    from ..model import Target
    from ..servers.handles import ServerHandle
    from .needs import QuestionNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

WHOLE_ROOT = frozenset({"references", "callers", "callees", "rename"})
"""The questions about every file: their place is made with ``whole`` (the root's files
opened and the servers ready first, as before any answer about the whole root)."""


@dataclass(frozen=True)
class Place:
    """A target resolved once: the file it names, a place in it, and who is asked there.

    ``offset`` is a ``str`` index into the file's text (a notebook's: its code cells joined,
    as :func:`.notebooks.plain_index` has them), which each server's session turns into a
    position of its own (a notebook's into its cell's or joined document's).
    """

    target: str
    """The target as given (a :class:`Location` as ``str`` shows it), for messages."""
    path: Path
    """The file's absolute path."""
    uri: str
    """The file's URI."""
    shown: str
    """The file's path as the workspace shows it (relative to the root)."""
    offset: int
    symbol: Symbol | None = None
    """The symbol the target named by name (``path#Name``, a bare name), else ``None``."""
    handles: tuple[ServerHandle, ...] = ()
    """The servers that take the file (made, not started), in order."""
    whole: Whole | None = None
    """For a question about every file: how the root's files were opened for it."""


async def place(
    ws: QuestionNeeds,
    target: Target | Place,
    *,
    base: Path | None = None,
    check: Callable[[str], object] | None = None,
    whole: bool = False,
) -> Place:
    """``target`` resolved into a :class:`Place` (a Place is returned as it is).

    ``base`` is the folder a relative path in a target string is taken from (the root by
    default: the command line gives its current folder); ``check`` is called with the path a
    target string names before anything is read (the MCP server refuses one outside the
    root). ``whole``: the root's files are opened and the servers' readiness waited for
    before the target is looked up, as a question about every file needs.

    Raises:
        ValueError: a target that does not parse, a file that is not one, a line or column
            outside it (naming what it has).
        TargetNotFoundError, AmbiguousTargetError: a name that matches nothing, or several.
    """
    if isinstance(target, Place):
        if whole and target.whole is None:
            return replace(target, whole=await prepare_whole(ws, servers_of(target.handles)))
        return target
    text, parsed = _parsed(target, base)
    if check is not None and isinstance(parsed, (parsing.PositionTarget, parsing.SymbolTarget)):
        check(parsed.path)
    prepared = await prepare_whole(ws, _servers_at(ws, parsed)) if whole else None
    path, uri, shown, offset, symbol = await _locate(ws, text, parsed)
    handles = tuple(ws.server_choice.handles_for(path))
    return Place(text, path, uri, shown, offset, symbol, handles, prepared)


def servers_of(handles: Sequence[ServerHandle]) -> frozenset[str]:
    """The ids of a place's servers: a question about every file opens theirs alone."""
    return frozenset(handle.spec.id for handle in handles)


def _servers_at(
    ws: QuestionNeeds,
    parsed: Location | parsing.PositionTarget | parsing.SymbolTarget | parsing.NameTarget,
) -> frozenset[str] | None:
    """The ids of the servers of the file a target names (``None`` for a bare name, which
    any server may know): only their files are opened for a question about every file."""
    if isinstance(parsed, parsing.NameTarget):
        return None
    return frozenset(spec.id for spec in ws.server_choice.specs_for(ws.file(parsed.path)))


def _parsed(
    target: Target, base: Path | None
) -> tuple[str, Location | parsing.PositionTarget | parsing.SymbolTarget | parsing.NameTarget]:
    """The target's text and its parsed form, a path in it taken from ``base``."""
    if isinstance(target, Location):
        return str(target), target
    parsed = parsing.parse_target(target)
    if base is None or not isinstance(parsed, (parsing.PositionTarget, parsing.SymbolTarget)):
        return target, parsed
    parsed = replace(parsed, path=str(base / parsed.path))
    return str(parsed), parsed


async def _locate(
    ws: QuestionNeeds,
    text: str,
    parsed: Location | parsing.PositionTarget | parsing.SymbolTarget | parsing.NameTarget,
) -> tuple[Path, str, str, int, Symbol | None]:
    """The file a parsed target names, its URI and shown path, the offset, and its symbol
    if it named one."""
    symbol = None
    if isinstance(parsed, Location):
        at = parsing.PositionTarget(parsed.path, parsed.line, parsed.column, parsed.cell)
        where = text
    elif isinstance(parsed, parsing.PositionTarget):
        at, where = parsed, parsed.path
    else:
        symbol = await _named(ws, text, parsed)
        named = symbol.location
        at = parsing.PositionTarget(named.path, named.line, named.column, named.cell)
        where = named.path
    full = ws.open_files.file(at.path)
    uri, shown = ws.paths.uri(full), ws.paths.relative(full)
    # A Location or a symbol is in a notebook's cell when it has one; a string target is
    # when its file is a notebook (and must then name a cell).
    in_notebook = at.cell is not None if at is not parsed else is_notebook(full)
    if in_notebook:
        return full, uri, shown, await _notebook_offset(ws, full, shown, at), symbol
    if at.cell is not None:
        raise ValueError(f"{at.path} is not a notebook: it has no cell {at.cell}")
    return full, uri, shown, _offset(ws, full, uri, at.line, at.column, shown or where), symbol


async def _notebook_offset(
    ws: QuestionNeeds, path: Path, shown: str, target: parsing.PositionTarget
) -> int:
    """A place in a notebook's cell, as an offset into its code cells joined as they are."""
    if target.cell is None:
        raise ValueError(
            f"{target}: a place in a notebook names its cell: {shown}:cell N:LINE[:COL]"
        )
    await ws.open(path)
    view = ws.notebook(path)
    if view is None:
        raise ValueError(f"{shown} is not open in any server")
    return cell_offset(view, target.cell, target.line, target.column, shown)


def _offset(
    ws: QuestionNeeds, path: Path, uri: str, line: int, column: int | None, where: str
) -> int:
    """The offset of 1-based ``line`` and ``column`` in the file (``where`` names it in an
    error: its shown path)."""
    index = _index(ws, path, uri)
    position = lsp_position(index, line, column, "utf-32", where)
    return index.offset_for(position["line"], position["character"], "utf-32")


def _index(ws: QuestionNeeds, path: Path, uri: str) -> LineIndex:
    index = ws.texts.index(uri, path)
    if index is None:
        raise ValueError(f"{ws.paths.relative(path)} cannot be read as UTF-8 text")
    return index


# -- the symbol a target names -----------------------------------------------------------------


async def resolve(ws: QuestionNeeds, target: Target) -> Symbol:
    """``Workspace.resolve``: the one symbol ``target`` names."""
    if isinstance(target, Location):
        path = ws.file(target.path)
        where = ws.paths.relative(path) or str(target)
        offset = _offset(ws, path, ws.paths.uri(path), target.line, target.column, where)
        return await _symbol_at(ws, path, offset, str(target))
    parsed = parsing.parse_target(target)
    if isinstance(parsed, parsing.PositionTarget):
        path = ws.file(parsed.path)
        if is_notebook(path):
            return await _notebook_symbol(ws, path, parsed, target)
        where = ws.paths.relative(path) or parsed.path
        offset = _offset(ws, path, ws.paths.uri(path), parsed.line, parsed.column, where)
        return await _symbol_at(ws, path, offset, str(parsed))
    return await _named(ws, target, parsed)


async def _named(
    ws: QuestionNeeds, target: str, parsed: parsing.SymbolTarget | parsing.NameTarget
) -> Symbol:
    """The one symbol a ``path#Name`` or a bare name names."""
    if isinstance(parsed, parsing.NameTarget):
        return await by_name(ws, target, parsed)
    path = ws.file(parsed.path)
    if is_notebook(path):
        return await _notebook_symbol(ws, path, parsed, target)
    session, tree = await outline(ws, path)
    matches = parsing.find_in_outline(tree, parsed.names, parsed.index)
    uri = ws.paths.uri(path)
    found = [to_symbol(ws, session, uri, m.symbol, m.name_path, m.container) for m in matches]
    if not found:
        where = ws.paths.relative(path)
        raise TargetNotFoundError(
            target,
            parsing.describe_miss(tree, parsed.names, parsed.index, where)
            + _top_level(tree, where),
        )
    return one(target, found)


def _flat(symbols: list[Symbol]) -> list[Symbol]:
    found: list[Symbol] = []
    for symbol in symbols:
        found.append(symbol)
        found.extend(_flat(symbol.children))
    return found


async def _notebook_symbol(
    ws: QuestionNeeds,
    path: Path,
    parsed: parsing.PositionTarget | parsing.SymbolTarget,
    target: str,
) -> Symbol:
    """The symbol a target names in a notebook: by name path among its cells' outlines
    (``nb.ipynb#Name``, defined in any cell), or the innermost one around a place in a cell."""
    every = _flat(list(await notebook_symbols(ws, path, None)))
    where = ws.paths.relative(path)
    if isinstance(parsed, parsing.SymbolTarget):
        found = [symbol for symbol in every if symbol.name_path == parsed.name_path]
        # ``[k]`` counts by place, as in a file's outline: by cell, line and column.
        found.sort(key=lambda s: (s.location.cell or 0, s.location.line, s.location.column))
        if parsed.index is not None:
            found = found[parsed.index : parsed.index + 1]
        if not found:
            names = ", ".join(f"{where}#{s.name_path}" for s in every if "/" not in s.name_path)
            raise TargetNotFoundError(
                target,
                f"{where} has no symbol {parsed.name_path}"
                + (f"; its top-level symbols: {names}" if names else ""),
            )
        return one(target, found)
    around = [
        symbol
        for symbol in every
        if symbol.cell == parsed.cell
        and symbol.range_lines[0] <= parsed.line <= symbol.range_lines[1]
    ]
    if not around:
        raise TargetNotFoundError(target, f"no symbol of {where} is at {parsed}")
    return min(around, key=lambda symbol: symbol.range_lines[1] - symbol.range_lines[0])


async def _symbol_at(ws: QuestionNeeds, path: Path, offset: int, shown: str) -> Symbol:
    session, tree = await outline(ws, path)
    uri = ws.paths.uri(path)
    position = session.documents[uri].position_at(offset)
    match = parsing.innermost_at(tree, position["line"], position["character"])
    if match is None:
        raise TargetNotFoundError(shown, f"no symbol of {ws.paths.relative(path)} holds {shown}")
    return to_symbol(ws, session, uri, match.symbol, match.name_path, match.container)


def _top_level(tree: list[Any], where: str) -> str:
    """The file's top-level names, for a message about a name it lacks."""
    names = [f"{where}#{symbol['name']}" for symbol in tree[:12] if isinstance(symbol, Mapping)]
    if not names:
        return ""
    more = ", ..." if len(tree) > len(names) else ""
    return f"; its top-level symbols: {', '.join(names)}{more}"
