"""Symbols of the whole workspace: ``find`` and bare-name targets, through ``workspace/symbol``.

Servers fill a hit's ``containerName`` differently or not at all (basedpyright writes
``Class.method`` for a local of a method, typescript-language-server leaves the class out)
and point at the whole declaration rather than the name. So each hit in a file of the root
is placed in that file's document symbols: its name path is that of the innermost symbol of
its name whose range holds the hit, its place that symbol's ``selectionRange``. Every
``path#name_path`` a hit prints is then a target that resolves to that very symbol. A hit
outside the root keeps its absolute path and its server's ``containerName``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ErrorCodes, LspError, TargetNotFoundError
from ...protocol.workspace import targets as parsing
from ...session import LspSession
from ..disk.listing import is_file
from ..files.notebooks import located
from ..model import Results, Symbol
from .outlines import one, outline, prepare_whole, to_symbol

if TYPE_CHECKING:
    from .needs import QuestionNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

SYMBOL_RETRY = 0.2
"""How often an empty ``workspace/symbol`` answer is asked again within the grace."""

_NOWHERE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}


async def by_name(ws: QuestionNeeds, target: str, parsed: parsing.NameTarget) -> Symbol:
    await prepare_whole(ws)
    _session, hits = await workspace_symbols(ws, parsed.names[-1])
    files: dict[str, None] = {}
    for hit in hits:
        where = hit.get("location")
        if hit.get("name") == parsed.names[-1] and isinstance(where, Mapping):
            uri = where.get("uri")
            if isinstance(uri, str) and uri.startswith("file:"):
                files[uri] = None
    found: list[Symbol] = []
    for uri in files:
        path = ws.paths.absolute(ws.paths.display(uri))
        if not is_file(path):
            continue
        try:
            session, tree = await outline(ws, path)
        except TargetNotFoundError:
            continue
        own = ws.paths.uri(path)
        for match in parsing.find_in_outline(tree, parsed.names, anchored=False):
            found.append(
                to_symbol(ws, session, own, match.symbol, match.name_path, match.container)
            )
    if parsed.index is not None:
        found = found[parsed.index : parsed.index + 1]
    if not found:
        raise TargetNotFoundError(
            target,
            f"no symbol named {parsed.name_path} was found in the workspace "
            f"({len(hits)} workspace/symbol hit{'s' * (len(hits) != 1)} for {parsed.names[-1]!r}, "
            "none with that exact name path)",
        )
    return one(target, found)


async def workspace_symbols(ws: QuestionNeeds, query: str) -> tuple[LspSession, list[Any]]:
    """``workspace/symbol`` from the first server that answers it, and its session; an empty
    answer within a server's ``progress_grace`` after its handshake is asked again
    (indexing)."""
    handles = [h for h in ws.server_choice.used() if h.state == "running"]
    if not handles:
        raise TargetNotFoundError(query, "no language server is running for this workspace")
    try:
        handle, session, hits = await ws.ask(
            handles, "workspace/symbol", lambda s: s.workspace_symbols(query)
        )
    except LspError as error:
        if error.code == ErrorCodes.MethodNotFound:
            raise TargetNotFoundError(
                query,
                f"no server of this workspace answers workspace/symbol, so a bare name "
                f"({query}) cannot be found; give path#{query} instead",
            ) from None
        raise
    loop = asyncio.get_running_loop()
    ready_at = session.ready_at or loop.time()
    while not hits and loop.time() < ready_at + handle.spec.progress_grace:
        await asyncio.sleep(SYMBOL_RETRY)
        hits = await session.workspace_symbols(query)
    return session, list(hits)


async def find(ws: QuestionNeeds, query: str, limit: int) -> Results[Symbol]:
    whole = await prepare_whole(ws)
    complete, reason, timed_out = whole.complete, whole.reason, whole.timed_out
    session, hits = await workspace_symbols(ws, query)
    outlines: dict[Path, tuple[LspSession, list[Any]] | None] = {}
    found: list[Symbol] = []
    for hit in hits:
        hit = await _with_location(session, hit)
        symbol = await _placed(ws, session, hit, outlines)
        if symbol is not None:
            found.append(symbol)
    found.sort(key=relevance(query))
    result: Results[Symbol] = Results(
        list(dict.fromkeys(found))[:limit], complete=complete, reason=reason
    )
    if not result and timed_out:
        result.complete, result.reason = False, "not_ready"
    return result


VALUE_KINDS = frozenset(
    {"variable", "constant", "module", "namespace", "package", "key", "string", "number"}
)
"""Kinds of symbols that are often an import's name or a value (``from .utils import echo``
in a package's ``__init__.py``): after a function, class or method of the same name."""

Rank = tuple[int, bool, int, bool, str, int, int, int, str]


def relevance(query: str) -> Callable[[Symbol], Rank]:
    """The order of ``find``'s symbols, whatever order the server answered in: the name
    (the end of the name path, for a query that names a path) equal to the query, then equal
    but for case, then starting with it, then starting with it but for case, then the rest;
    among equals a symbol of the root before one outside it, a shallower one (``echo``
    before ``Printer/echo``) first, a definition before a variable or module (an import),
    then by path, cell, line and column."""
    folded = query.casefold()
    segments = query.count("/") + 1

    def key(symbol: Symbol) -> Rank:
        name = symbol.name if segments == 1 else "/".join(symbol.name_path.split("/")[-segments:])
        low = name.casefold()
        if name == query:
            tier = 0
        elif low == folded:
            tier = 1
        elif name.startswith(query):
            tier = 2
        elif low.startswith(folded):
            tier = 3
        else:
            tier = 4
        place = symbol.location
        return (
            tier,
            Path(place.path).is_absolute(),  # outside the root: a library's
            symbol.name_path.count("/"),
            symbol.kind in VALUE_KINDS,
            place.path,
            place.cell or 0,
            place.line,
            place.column,
            symbol.name_path,
        )

    return key


async def _with_location(session: LspSession, hit: Mapping[str, Any]) -> Mapping[str, Any]:
    """``hit`` with a range: resolved with ``workspaceSymbol/resolve`` when the server sent
    only its file (``{uri}``) and resolves symbols."""
    where = hit.get("location")
    if isinstance(where, Mapping) and "range" in where:
        return hit
    if session.supports("workspaceSymbol/resolve"):
        try:
            return await session.resolve_workspace_symbol(dict(hit))  # type: ignore[arg-type]
        except LspError:
            pass
    return hit


async def _placed(
    ws: QuestionNeeds,
    session: LspSession,
    hit: Mapping[str, Any],
    outlines: dict[Path, tuple[LspSession, list[Any]] | None],
) -> Symbol | None:
    """The hit as a symbol of its file's outline (see the module's docstring)."""
    where = hit.get("location") or {}
    uri = where.get("uri") if isinstance(where, Mapping) else None
    if not isinstance(uri, str) or not isinstance(hit.get("name"), str):
        return None
    whole = where.get("range") or _NOWHERE
    try:
        path = ws.paths.absolute(ws.paths.display(uri))
    except ValueError:
        path = None
    if path is not None and (path == ws.root or ws.root in path.parents) and is_file(path):
        if path not in outlines:
            try:
                outlines[path] = await outline(ws, path)
            except (LspError, ValueError):
                outlines[path] = None
        known = outlines[path]
        if known is not None:
            own_session, tree = known
            start = whole["start"]
            match = parsing.named_at(tree, hit["name"], start["line"], start["character"])
            if match is not None:
                own_uri = ws.paths.uri(path)
                return to_symbol(
                    ws,
                    own_session,
                    own_uri,
                    match.symbol,
                    parsing.target_name_path(tree, match),
                    match.container,
                    depth=1,
                )
    container = hit.get("containerName") or None
    encoding: Any = session.position_encoding or "utf-16"
    place = located(ws, uri, whole, encoding, hit)
    return Symbol(
        name=hit["name"],
        name_path=f"{container}/{hit['name']}" if container else hit["name"],
        kind=parsing.symbol_kind_name(hit.get("kind", 0)),
        location=place,
        cell=place.cell,
        range_lines=(whole["start"]["line"] + 1, whole["end"]["line"] + 1),
        container=container,
        raw=hit,
    )
