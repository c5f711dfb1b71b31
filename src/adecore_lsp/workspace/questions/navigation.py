"""What is asked at a place: definitions, references, calls, hover, and a file's outline.

Each call takes the :class:`.places.Place` its target was resolved into once (the file, its
URI, the offset, the servers that take it) and asks the servers there; places come back in
path, line, column order.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import LspError
from ...protocol.workspace import targets as parsing
from ..checks.checking import wait_ready
from ..disk.listing import is_file
from ..files.notebooks import located
from ..model import Location, Reference, Results, Symbol
from ..servers.handles import ServerHandle
from ..servers.notebook_view import is_notebook
from .across_roots import RootAnswers, every_root, tree_files
from .asking import ask_at
from .outlines import notebook_symbols, outline, prepare_whole, to_symbol
from .places import servers_of

if TYPE_CHECKING:
    from .needs import QuestionNeeds
    from .places import Place

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

READY_ALREADY = 0.05
"""A readiness wait shorter than this means the server was ready when it answered."""

ACROSS_ROOTS = frozenset({"implementation"})
"""The places of these kinds may be in any package: every root of the server is asked."""

_LOCATION_METHODS = {
    "definition": "textDocument/definition",
    "type_definition": "textDocument/typeDefinition",
    "implementation": "textDocument/implementation",
}


# -- outlines -------------------------------------------------------------------------------


async def symbols(
    ws: QuestionNeeds, path: str | os.PathLike[str], depth: int | None
) -> Results[Symbol]:
    full = ws.file(path)
    if is_notebook(full):
        return await notebook_symbols(ws, full, depth)
    _handle, session, tree = await ws.first_answer(
        full, "textDocument/documentSymbol", lambda s, uri: s.document_symbols(uri)
    )
    uri = ws.paths.uri(full)
    return Results(to_symbol(ws, session, uri, raw, raw["name"], None, depth) for raw in tree)


async def _empty_because_not_ready(ws: QuestionNeeds, handle: ServerHandle) -> tuple[bool, bool]:
    """After an empty answer: wait for the server's readiness. Returns whether it timed out
    (the answer says ``not_ready``) and whether it was still getting ready when asked (so
    asking again may give more)."""
    readiness = await wait_ready(handle, time.monotonic(), ws.timeout)
    return readiness.state == "timed_out", readiness.waited > READY_ALREADY


# -- locations --------------------------------------------------------------------------------


async def locations(ws: QuestionNeeds, place: Place, kind: str) -> Results[Location]:
    method = _LOCATION_METHODS[kind]

    def call(session: Any, uri: str, at: int) -> Any:
        return getattr(session, kind)(uri, at)

    if kind in ACROSS_ROOTS:
        # Implementations may be in any package: every root of the server is asked.
        asked = await every_root(ws, place, method, call, non_empty=True)
        handle, session, found = asked.answers[0]
    else:
        handle, session, found = await ask_at(ws, place, method, call, non_empty=True)
        asked = RootAnswers([(handle, session, found)])
    timed_out = False
    if not found and len(asked.answers) == 1:
        timed_out, was_busy = await _empty_because_not_ready(ws, handle)
        if was_busy and not timed_out:
            handle, session, found = await ask_at(ws, place, method, call, non_empty=True)
            asked = RootAnswers([(handle, session, found)], asked.missed)
    result = Results(
        sorted(
            dict.fromkeys(
                located(ws, item["uri"], item["range"], _encoding(session), item)
                for session, answer in asked.sessions
                for item in answer or []
            ),
            key=place_order,
        )
    )
    if not result and timed_out:
        result.complete, result.reason = False, "not_ready"
    return _whole_or_said(result, asked)


def _encoding(session: Any) -> Any:
    return session.position_encoding or "utf-16"


def _whole_or_said(result: Results[Any], asked: RootAnswers) -> Results[Any]:
    """``result``, said not whole (``other_roots``) when a root of the server could not be
    asked."""
    if not asked.complete and result.complete:
        result.complete, result.reason = False, "other_roots"
    return result


async def references(
    ws: QuestionNeeds, place: Place, include_declaration: bool, context: int
) -> Results[Reference]:
    opened = place.whole or await prepare_whole(ws, servers_of(place.handles))
    complete, reason, timed_out = opened.complete, opened.reason, opened.timed_out
    asked = await every_root(
        ws,
        place,
        "textDocument/references",
        lambda s, uri, at: s.references(uri, at, include_declaration=True),
        files=tree_files(ws, opened),
    )
    declarations: set[tuple[str, int | None, int, int]] = set()
    if not include_declaration:
        if place.symbol is not None:
            where = place.symbol.location
            declarations.add((where.path, where.cell, where.line, where.column))
        else:
            try:
                # Asked at the very place: nothing is resolved again.
                for where in await locations(ws, place, "definition"):
                    declarations.add((where.path, where.cell, where.line, where.column))
            except LspError:
                pass
    result: Results[Reference] = Results(complete=complete, reason=reason)
    seen: set[tuple[str, int, int, int, int, int]] = set()
    kept: list[tuple[Mapping[str, Any], Location]] = []
    for session, found in asked.sessions:
        for item in found or []:
            at = located(ws, item["uri"], item["range"], _encoding(session), item)
            declared = (at.path, at.cell, at.line, at.column) in declarations
            if declared or place_order(at) in seen:
                continue  # one place named twice (a notebook cell by two of its URIs) is one
            seen.add(place_order(at))
            kept.append((item, at))
    # The outlines that name each use's container, asked of the files together.
    files = list(dict.fromkeys(at.path for _item, at in kept))
    trees = await asyncio.gather(*(_outline_of(ws, path) for path in files))
    outlines = dict(zip(files, trees, strict=True))
    for item, at in kept:
        container = _container(outlines[at.path], item)
        result.append(Reference(at, container, _context(ws, item["uri"], at.line, context)))
    result.sort(key=lambda reference: place_order(reference.location))
    if not result and timed_out:
        result.complete, result.reason = False, "not_ready"
    return _whole_or_said(result, asked)


def place_order(place: Location) -> tuple[str, int, int, int, int, int]:
    """Places in path, (cell,) line, column order, whatever order the server answered in."""
    return place.path, place.cell or 0, place.line, place.column, place.end_line, place.end_column


async def _outline_of(ws: QuestionNeeds, shown: str) -> list[Any] | None:
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


def _context(ws: QuestionNeeds, uri: str, line: int, context: int) -> tuple[str, ...]:
    index = ws.texts.index(uri)
    if index is None:
        return ()
    first, last = max(1, line - context), min(index.line_count, line + context)
    return tuple(
        index.text[index.line_start(n - 1) : index.line_end(n - 1)] for n in range(first, last + 1)
    )


# -- search, calls, hover ----------------------------------------------------------------------


async def calls(ws: QuestionNeeds, place: Place, *, incoming: bool) -> Results[Symbol]:
    opened = place.whole or await prepare_whole(ws, servers_of(place.handles))
    complete, reason, timed_out = opened.complete, opened.reason, opened.timed_out

    async def call(session: Any, uri: str, at: int) -> list[Any]:
        items = await session.prepare_call_hierarchy(uri, at)
        if not items:
            return []
        if incoming:
            return [c["from"] for c in await session.incoming_calls(items[0])]
        return [c["to"] for c in await session.outgoing_calls(items[0])]

    # Callers may be in any package: every root of the server is asked.
    asked = await every_root(
        ws, place, "textDocument/prepareCallHierarchy", call, files=tree_files(ws, opened)
    )
    result: Results[Symbol] = Results(complete=complete, reason=reason)
    seen: set[tuple[str, int, int, int, int, int]] = set()
    for session, found in asked.sessions:
        for item in found:
            whole = item["range"]
            symbol = Symbol(
                name=item["name"],
                name_path=item["name"],
                kind=parsing.symbol_kind_name(item.get("kind", 0)),
                location=located(
                    ws, item["uri"], item.get("selectionRange", whole), _encoding(session), item
                ),
                range_lines=(whole["start"]["line"] + 1, whole["end"]["line"] + 1),
                container=item.get("detail") or None,
                raw=item,
            )
            if place_order(symbol.location) not in seen:
                seen.add(place_order(symbol.location))
                result.append(symbol)
    result.sort(key=lambda symbol: place_order(symbol.location))
    if not result and timed_out:
        result.complete, result.reason = False, "not_ready"
    return _whole_or_said(result, asked)


async def hover(ws: QuestionNeeds, place: Place) -> str | None:
    _handle, _session, answer = await ask_at(
        ws, place, "textDocument/hover", lambda s, uri, at: s.hover(uri, at), non_empty=True
    )
    if not answer:
        return None
    value = answer["contents"]["value"]
    return value if isinstance(value, str) and value.strip() else None
