"""Targets and what they name: resolve, definitions, references, outlines, search, calls.

A target is ``path:LINE[:COL]``, ``path#Class/method[k]``, a bare ``Name`` (found through
``workspace/symbol``, kept to exact matches of the name path) or a :class:`Location`. It
becomes a file and a ``str`` index into its text, which each server's session turns into a
position in the encoding it negotiated. Nothing is picked silently: several matches raise
``AmbiguousTargetError`` listing them.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCodes, LspError, TargetNotFoundError
from ..protocol.documents.positions import LineIndex
from ..protocol.workspace import targets as parsing
from .checking import wait_ready
from .files import is_file
from .model import Location, Reference, Results, Symbol
from .notebooks import cell_offset, is_notebook, located, plain_index, tracked
from .outlines import one, outline, prepare_whole, to_symbol
from .search import by_name
from .servers import ServerHandle
from .units import lsp_position

if TYPE_CHECKING:
    from .workspace import Target, Workspace

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

READY_ALREADY = 0.05
"""A readiness wait shorter than this means the server was ready when it answered."""

_LOCATION_METHODS = {
    "definition": "textDocument/definition",
    "type_definition": "textDocument/typeDefinition",
    "implementation": "textDocument/implementation",
}


# -- where a target points -------------------------------------------------------------------


async def target_offset(ws: Workspace, target: Target) -> tuple[Path, int, Symbol | None]:
    """The file a target names, a ``str`` index into its text, and its symbol if it named one."""
    if isinstance(target, Location):
        path = ws.file(target.path)
        if target.cell is not None:
            at = parsing.PositionTarget(target.path, target.line, target.column, target.cell)
            return path, await _notebook_offset(ws, path, at), None
        return path, _offset(ws, path, target.line, target.column, str(target)), None
    parsed = parsing.parse_target(target)
    if isinstance(parsed, parsing.PositionTarget):
        path = ws.file(parsed.path)
        if is_notebook(path):
            return path, await _notebook_offset(ws, path, parsed), None
        if parsed.cell is not None:
            raise ValueError(f"{parsed.path} is not a notebook: it has no cell {parsed.cell}")
        return path, _offset(ws, path, parsed.line, parsed.column, parsed.path), None
    symbol = await resolve(ws, target)
    path = ws.file(symbol.location.path)
    where = symbol.location
    if where.cell is not None:
        at = parsing.PositionTarget(where.path, where.line, where.column, where.cell)
        return path, await _notebook_offset(ws, path, at), symbol
    return path, _offset(ws, path, where.line, where.column, where.path), symbol


async def _notebook_offset(ws: Workspace, path: Path, target: parsing.PositionTarget) -> int:
    """A place in a notebook's cell, as an offset into its code cells joined as they are."""
    shown = ws.paths.relative(path)
    if target.cell is None:
        raise ValueError(
            f"{target}: a place in a notebook names its cell: {shown}:cell N:LINE[:COL]"
        )
    await ws.open(path)
    view = ws.notebook(path)
    if view is None:
        raise ValueError(f"{shown} is not open in any server")
    return cell_offset(view, target.cell, target.line, target.column, shown)


def _offset(ws: Workspace, path: Path, line: int, column: int | None, where: str) -> int:
    index = _index(ws, path)
    position = lsp_position(index, line, column, "utf-32", ws.paths.relative(path) or where)
    return index.offset_for(position["line"], position["character"], "utf-32")


def _index(ws: Workspace, path: Path) -> LineIndex:
    index = ws.texts.index(ws.paths.uri(path))
    if index is None:
        raise ValueError(f"{ws.paths.relative(path)} cannot be read as UTF-8 text")
    return index


# -- outlines -------------------------------------------------------------------------------


async def symbols(
    ws: Workspace, path: str | os.PathLike[str], depth: int | None
) -> Results[Symbol]:
    full = ws.file(path)
    if is_notebook(full):
        return await _notebook_symbols(ws, full, depth)
    _handle, session, tree = await ws.first_answer(
        full, "textDocument/documentSymbol", lambda s, uri: s.document_symbols(uri)
    )
    uri = ws.paths.uri(full)
    return Results(to_symbol(ws, session, uri, raw, raw["name"], None, depth) for raw in tree)


async def _notebook_symbols(ws: Workspace, full: Path, depth: int | None) -> Results[Symbol]:
    """The outline of a notebook: each code cell's, in order (or the joined document's),
    from the first server that answers, each symbol with its cell."""
    handles = await ws.open(full)
    view = ws.notebook(full)
    found: Results[Symbol] = Results()
    for handle in handles:
        if view is None:
            break
        try:
            for uri in tracked(handle, view.uri):
                _handle, session, tree = await ws.ask(
                    [handle],
                    "textDocument/documentSymbol",
                    lambda s, u=uri: s.document_symbols(u),
                    uri,
                )
                found.extend(
                    to_symbol(ws, session, uri, raw, raw["name"], None, depth) for raw in tree
                )
        except LspError as error:
            if error.code != ErrorCodes.MethodNotFound:
                raise
            continue
        return found
    raise LspError(
        ErrorCodes.MethodNotFound,
        f"no server of {ws.paths.relative(full)} gives outlines (textDocument/documentSymbol)",
    )


# -- resolve ---------------------------------------------------------------------------------


async def resolve(ws: Workspace, target: Target) -> Symbol:
    if isinstance(target, Location):
        path = ws.file(target.path)
        return await _symbol_at(
            ws, path, _offset(ws, path, target.line, target.column, str(target)), str(target)
        )
    parsed = parsing.parse_target(target)
    if isinstance(parsed, parsing.PositionTarget):
        path = ws.file(parsed.path)
        if is_notebook(path):
            return await _notebook_symbol(ws, path, parsed, target)
        offset = _offset(ws, path, parsed.line, parsed.column, parsed.path)
        return await _symbol_at(ws, path, offset, str(parsed))
    if isinstance(parsed, parsing.SymbolTarget):
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
    return await by_name(ws, target, parsed)


def _flat(symbols: list[Symbol]) -> list[Symbol]:
    found: list[Symbol] = []
    for symbol in symbols:
        found.append(symbol)
        found.extend(_flat(symbol.children))
    return found


async def _notebook_symbol(
    ws: Workspace,
    path: Path,
    parsed: parsing.PositionTarget | parsing.SymbolTarget,
    target: str,
) -> Symbol:
    """The symbol a target names in a notebook: by name path among its cells' outlines
    (``nb.ipynb#Name``, defined in any cell), or the innermost one around a place in a cell."""
    every = _flat(list(await _notebook_symbols(ws, path, None)))
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


async def _symbol_at(ws: Workspace, path: Path, offset: int, shown: str) -> Symbol:
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


async def _empty_because_not_ready(ws: Workspace, handle: ServerHandle) -> tuple[bool, bool]:
    """After an empty answer: wait for the server's readiness. Returns whether it timed out
    (the answer says ``not_ready``) and whether it was still getting ready when asked (so
    asking again may give more)."""
    readiness = await wait_ready(handle, time.monotonic(), ws.timeout)
    return readiness.state == "timed_out", readiness.waited > READY_ALREADY


# -- locations --------------------------------------------------------------------------------


async def locations(ws: Workspace, target: Target, kind: str) -> Results[Location]:
    path, offset, _symbol = await target_offset(ws, target)
    method = _LOCATION_METHODS[kind]
    handle, session, found = await ws.first_answer(
        path, method, lambda s, uri, at: getattr(s, kind)(uri, at), non_empty=True, offset=offset
    )
    timed_out = False
    if not found:
        timed_out, was_busy = await _empty_because_not_ready(ws, handle)
        if was_busy and not timed_out:
            handle, session, found = await ws.first_answer(
                path,
                method,
                lambda s, uri, at: getattr(s, kind)(uri, at),
                non_empty=True,
                offset=offset,
            )
    encoding: Any = session.position_encoding or "utf-16"
    result = Results(
        sorted(
            dict.fromkeys(
                located(ws, item["uri"], item["range"], encoding, item) for item in found
            ),
            key=place_order,
        )
    )
    if not result and timed_out:
        result.complete, result.reason = False, "not_ready"
    return result


async def references(
    ws: Workspace, target: Target, include_declaration: bool, context: int
) -> Results[Reference]:
    complete, reason, timed_out = await prepare_whole(ws)
    path, offset, symbol = await target_offset(ws, target)
    _handle, session, found = await ws.first_answer(
        path,
        "textDocument/references",
        lambda s, uri, at: s.references(uri, at, include_declaration=True),
        offset=offset,
    )
    encoding: Any = session.position_encoding or "utf-16"
    declarations: set[tuple[str, int | None, int, int]] = set()
    if not include_declaration:
        if symbol is not None:
            where = symbol.location
            declarations.add((where.path, where.cell, where.line, where.column))
        else:
            try:
                for place in await locations(ws, _at(ws, path, offset), "definition"):
                    declarations.add((place.path, place.cell, place.line, place.column))
            except LspError:
                pass
    result: Results[Reference] = Results(complete=complete, reason=reason)
    seen: set[tuple[str, int, int, int, int, int]] = set()
    kept: list[tuple[Mapping[str, Any], Location]] = []
    for item in found:
        place = located(ws, item["uri"], item["range"], encoding, item)
        declared = (place.path, place.cell, place.line, place.column) in declarations
        if declared or place_order(place) in seen:
            continue  # one place named twice (a notebook cell by two of its URIs) is one
        seen.add(place_order(place))
        kept.append((item, place))
    # The outlines that name each use's container, asked of the files together.
    files = list(dict.fromkeys(place.path for _item, place in kept))
    trees = await asyncio.gather(*(_outline_of(ws, path) for path in files))
    outlines = dict(zip(files, trees, strict=True))
    for item, place in kept:
        container = _container(outlines[place.path], item)
        result.append(Reference(place, container, _context(ws, item["uri"], place.line, context)))
    result.sort(key=lambda reference: place_order(reference.location))
    if not result and timed_out:
        result.complete, result.reason = False, "not_ready"
    return result


def place_order(place: Location) -> tuple[str, int, int, int, int, int]:
    """Places in path, (cell,) line, column order, whatever order the server answered in."""
    return place.path, place.cell or 0, place.line, place.column, place.end_line, place.end_column


def _at(ws: Workspace, path: Path, offset: int) -> Location:
    view = ws.notebook(path) if is_notebook(path) else None
    if view is not None:
        index = plain_index(view)
        line = index.line_of(offset)
        column = offset - index.line_start(line) + 1
        place = view.joined.to_cell(line, 0)
        if place is not None:
            shown = ws.paths.relative(path)
            return Location(shown, place.line + 1, column, place.line + 1, column, cell=place.cell)
    index = _index(ws, path)
    line = index.line_of(offset)
    column = offset - index.line_start(line) + 1
    return Location(ws.paths.relative(path), line + 1, column, line + 1, column)


async def _outline_of(ws: Workspace, shown: str) -> list[Any] | None:
    """The outline of a file of uses (``None`` when it has none, or is no file)."""
    path = ws.paths.absolute(shown)
    if not is_file(path):
        return None
    try:
        _session, tree = await outline(ws, path)
    except (LspError, ValueError):
        return None
    return tree


def _container(tree: list[Any] | None, item: Mapping[str, Any]) -> str | None:
    """The name path of the innermost symbol of ``tree`` around a use."""
    if not tree:
        return None
    start = item["range"]["start"]
    match = parsing.innermost_at(tree, start["line"], start["character"])
    return None if match is None else match.name_path


def _context(ws: Workspace, uri: str, line: int, context: int) -> tuple[str, ...]:
    index = ws.texts.index(uri)
    if index is None:
        return ()
    first, last = max(1, line - context), min(index.line_count, line + context)
    return tuple(
        index.text[index.line_start(n - 1) : index.line_end(n - 1)] for n in range(first, last + 1)
    )


# -- search, calls, hover ----------------------------------------------------------------------


async def calls(ws: Workspace, target: Target, *, incoming: bool) -> Results[Symbol]:
    complete, reason, timed_out = await prepare_whole(ws)
    path, offset, _symbol = await target_offset(ws, target)
    handle, session, items = await ws.first_answer(
        path,
        "textDocument/prepareCallHierarchy",
        lambda s, uri, at: s.prepare_call_hierarchy(uri, at),
        offset=offset,
    )
    result: Results[Symbol] = Results(complete=complete, reason=reason)
    if not items:
        if timed_out:
            result.complete, result.reason = False, "not_ready"
        return result
    try:
        if incoming:
            found: list[Any] = [c["from"] for c in await session.incoming_calls(items[0])]
        else:
            found = [c["to"] for c in await session.outgoing_calls(items[0])]
    except LspError as error:
        raise await handle.translate(error) from error
    encoding: Any = session.position_encoding or "utf-16"
    for item in found:
        whole = item["range"]
        result.append(
            Symbol(
                name=item["name"],
                name_path=item["name"],
                kind=parsing.symbol_kind_name(item.get("kind", 0)),
                location=located(
                    ws, item["uri"], item.get("selectionRange", whole), encoding, item
                ),
                range_lines=(whole["start"]["line"] + 1, whole["end"]["line"] + 1),
                container=item.get("detail") or None,
                raw=item,
            )
        )
    result.sort(key=lambda symbol: place_order(symbol.location))
    return result


async def hover(ws: Workspace, target: Target) -> str | None:
    path, offset, _symbol = await target_offset(ws, target)
    _handle, _session, answer = await ws.first_answer(
        path,
        "textDocument/hover",
        lambda s, uri, at: s.hover(uri, at),
        non_empty=True,
        offset=offset,
    )
    if not answer:
        return None
    value = answer["contents"]["value"]
    return value if isinstance(value, str) and value.strip() else None
