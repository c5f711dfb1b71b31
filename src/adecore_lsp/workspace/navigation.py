"""Targets and what they name: resolve, definitions, references, outlines, search, calls.

A target is ``path:LINE[:COL]``, ``path#Class/method[k]``, a bare ``Name`` (found through
``workspace/symbol``, kept to exact matches of the name path) or a :class:`Location`. It
becomes a file and a ``str`` index into its text, which each server's session turns into a
position in the encoding it negotiated. Nothing is picked silently: several matches raise
``AmbiguousTargetError`` listing them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import LspError, TargetNotFoundError
from ..protocol.documents.positions import LineIndex
from ..protocol.workspace import targets as parsing
from .checking import wait_ready
from .files import is_file
from .model import Location, Reference, Results, Symbol
from .outlines import one, outline, prepare_whole, to_symbol
from .search import by_name
from .servers import ServerHandle
from .units import location, lsp_position

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
        return path, _offset(ws, path, target.line, target.column, str(target)), None
    parsed = parsing.parse_target(target)
    if isinstance(parsed, parsing.PositionTarget):
        path = ws.file(parsed.path)
        return path, _offset(ws, path, parsed.line, parsed.column, parsed.path), None
    symbol = await resolve(ws, target)
    path = ws.file(symbol.location.path)
    where = symbol.location
    return path, _offset(ws, path, where.line, where.column, where.path), symbol


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
    _handle, session, tree = await ws.first_answer(
        full, "textDocument/documentSymbol", lambda s, uri: s.document_symbols(uri)
    )
    uri = ws.paths.uri(full)
    return Results(to_symbol(ws, session, uri, raw, raw["name"], None, depth) for raw in tree)


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
        offset = _offset(ws, path, parsed.line, parsed.column, parsed.path)
        return await _symbol_at(ws, path, offset, str(parsed))
    if isinstance(parsed, parsing.SymbolTarget):
        path = ws.file(parsed.path)
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
        path, method, lambda s, uri: getattr(s, kind)(uri, offset), non_empty=True
    )
    timed_out = False
    if not found:
        timed_out, was_busy = await _empty_because_not_ready(ws, handle)
        if was_busy and not timed_out:
            handle, session, found = await ws.first_answer(
                path, method, lambda s, uri: getattr(s, kind)(uri, offset), non_empty=True
            )
    encoding: Any = session.position_encoding or "utf-16"
    result = Results(
        sorted(
            dict.fromkeys(
                location(ws.paths, ws.texts, item["uri"], item["range"], encoding, item)
                for item in found
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
        lambda s, uri: s.references(uri, offset, include_declaration=True),
    )
    encoding: Any = session.position_encoding or "utf-16"
    declarations: set[tuple[str, int, int]] = set()
    if not include_declaration:
        if symbol is not None:
            declarations.add((symbol.location.path, symbol.location.line, symbol.location.column))
        else:
            try:
                for place in await locations(ws, _at(ws, path, offset), "definition"):
                    declarations.add((place.path, place.line, place.column))
            except LspError:
                pass
    outlines: dict[str, list[Any] | None] = {}
    result: Results[Reference] = Results(complete=complete, reason=reason)
    for item in found:
        place = location(ws.paths, ws.texts, item["uri"], item["range"], encoding, item)
        if (place.path, place.line, place.column) in declarations:
            continue
        container = await _container(ws, outlines, item, place)
        result.append(Reference(place, container, _context(ws, item["uri"], place.line, context)))
    result.sort(key=lambda reference: place_order(reference.location))
    if not result and timed_out:
        result.complete, result.reason = False, "not_ready"
    return result


def place_order(place: Location) -> tuple[str, int, int, int, int]:
    """Places in path, line, column order, whatever order the server answered in."""
    return place.path, place.line, place.column, place.end_line, place.end_column


def _at(ws: Workspace, path: Path, offset: int) -> Location:
    index = _index(ws, path)
    line = index.line_of(offset)
    column = offset - index.line_start(line) + 1
    return Location(ws.paths.relative(path), line + 1, column, line + 1, column)


async def _container(
    ws: Workspace, outlines: dict[str, list[Any] | None], item: Mapping[str, Any], place: Location
) -> str | None:
    uri = item["uri"]
    if uri not in outlines:
        path = ws.paths.absolute(place.path)
        try:
            _session, tree = await outline(ws, path) if is_file(path) else (None, None)
        except (LspError, ValueError):
            tree = None
        outlines[uri] = tree
    tree = outlines[uri]
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
        lambda s, uri: s.prepare_call_hierarchy(uri, offset),
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
                location=location(
                    ws.paths,
                    ws.texts,
                    item["uri"],
                    item.get("selectionRange", whole),
                    encoding,
                    item,
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
        path, "textDocument/hover", lambda s, uri: s.hover(uri, offset), non_empty=True
    )
    if not answer:
        return None
    value = answer["contents"]["value"]
    return value if isinstance(value, str) and value.strip() else None
