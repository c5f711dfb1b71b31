"""The tools of ``adecore-lsp mcp``: few, each a thin call of the one workspace.

This module holds the tools that read (diagnostics, outlines, search, navigation, hover,
references) and ``restart``; :mod:`.edit_tools` those that change files (renames, edits,
formatting, fixes). :func:`register` adds them all.

Every tool answers with ``structured_content`` (a shape of :mod:`.shapes`, declared as its
``outputSchema``) and a short text (:mod:`.render`). Lists are capped by ``limit`` and say
their ``total``; an answer that may be partial says so, in its fields and in words.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from ..workspace.checks import checking
from ..workspace.model import Location, Results, Symbol
from ..workspace.workspace import Workspace
from . import edit_tools, render, shapes
from .common import (
    MAX_CHARS,
    READ_ONLY,
    RESTARTS,
    Ctx,
    Limit,
    MaxChars,
    Target,
    answer,
    checked_paths,
    line_of,
)
from .shapes import (
    DiagnosticList,
    FoundSymbolList,
    HoverShape,
    LocationList,
    ReferenceList,
    StatusList,
    SymbolList,
)
from .state import State, call, inside, target_place

# Internal to the library: nothing here is public API.
__all__: list[str] = []

RANK = {"error": 0, "warning": 1, "information": 2, "hint": 3}

FIND_CAP = 2000
"""``find_symbol`` counts at most this many matches for its ``total``."""

DEFINITIONS_CAP = 50
"""``definition`` lists at most this many places."""


async def diagnostics(
    ctx: Ctx,
    paths: Annotated[
        list[str] | None,
        Field(
            description="Files or folders to check, relative to the workspace root (default: "
            "every file of the root that a language server takes)."
        ),
    ] = None,
    min_severity: Annotated[
        Literal["error", "warning", "information", "hint"],
        Field(description="Leave out diagnostics less severe than this (default: hint, all)."),
    ] = "hint",
    limit: Annotated[
        Limit, Field(description="At most this many items (the most severe first).")
    ] = 50,
    max_chars: MaxChars = MAX_CHARS,
) -> Annotated[CallToolResult, DiagnosticList]:
    """The diagnostics (errors, warnings, hints) of files, known final for their current text
    on disk, every language server's merged (each item names its `server`). `total` counts
    what passed `min_severity`; when `truncated`, the most severe are kept. `complete: false`
    means some file did not finish (its `reason`); never read that as clean."""

    async def work(ws: Workspace) -> CallToolResult:
        ws.server_choice.links_out.clear()
        bounds = checking.bounds_for(ws.timeout)
        report = await checking.diagnostics(ws, checked_paths(ws, paths), ws.timeout, bounds=bounds)
        kept = [item for item in report.items if RANK[item.severity] <= RANK[min_severity]]
        total, truncated = shapes.counts(kept, limit)
        if truncated:
            worst = sorted(range(len(kept)), key=lambda i: RANK[kept[i].severity])[:limit]
            kept = [kept[i] for i in sorted(worst)]
        lines = line_of(ws)
        result: DiagnosticList = {
            "items": [shapes.diagnostic(item, lines) for item in kept],
            "total": total,
            "truncated": truncated,
            "complete": report.complete,
            "reason": shapes.reason(report.reason),
        }
        if report.left_out:
            result["left_out"] = report.left_out
        stopped = checking.why_stopped(bounds)
        text = render.diagnostics(result, report.files, min_severity, ws.timeout, stopped)
        left = sorted(ws.paths.relative(path) for path in ws.server_choice.links_out)
        if left:
            text += "\n" + render.links_out(left)
        return answer(text, result, max_chars)

    return await call(ctx, work)


async def symbols(
    ctx: Ctx,
    path: Annotated[str, Field(description="The file, relative to the workspace root.")],
    depth: Annotated[
        int | None,
        Field(ge=1, description="How many levels: 1 for the top level only (default: all)."),
    ] = None,
    limit: Annotated[
        int,
        Field(
            ge=1,
            le=20_000,
            description="At most this many symbols in the whole tree, counted depth first in "
            "source order (a class and each of its members one each); default 200.",
        ),
    ] = 200,
    max_chars: MaxChars = MAX_CHARS,
) -> Annotated[CallToolResult, SymbolList]:
    """The outline of one file: its classes, functions, methods, variables, as a tree through
    `children`. Each symbol's `name_path` makes a target: `path#name_path`. `total` counts
    every symbol of the tree; `truncated` when some were left out (ask with `depth: 1`)."""

    async def work(ws: Workspace) -> CallToolResult:
        found = await ws.symbols(inside(ws, path), depth=depth)
        items, total = shapes.symbol_tree(found, limit)
        result: SymbolList = {
            "items": items,
            "total": total,
            "truncated": total > limit,
            "complete": found.complete,
            "reason": shapes.reason(found.reason),
        }
        return answer(render.symbols(result, path, ws.timeout), result, max_chars)

    return await call(ctx, work)


async def find_symbol(
    ctx: Ctx,
    query: Annotated[
        str, Field(description="A symbol name or part of one, e.g. `greet` or `Greeter`.")
    ],
    limit: Annotated[Limit, Field(description="At most this many items.")] = 20,
    max_chars: MaxChars = MAX_CHARS,
) -> Annotated[CallToolResult, FoundSymbolList]:
    """Symbols of the whole workspace whose name matches `query` (the language server's
    workspace symbol search), each with the `target` that names it for the other tools."""

    async def work(ws: Workspace) -> CallToolResult:
        found = await ws.find(query, limit=FIND_CAP)
        total, truncated = shapes.counts(found, limit)
        result: FoundSymbolList = {
            "items": [shapes.found_symbol(item) for item in found[:limit]],
            "total": total,
            "truncated": truncated,
            "complete": found.complete,
            "reason": shapes.reason(found.reason),
        }
        return answer(render.found(result, query, ws.timeout), result, max_chars)

    return await call(ctx, work)


async def definition(
    ctx: Ctx, target: Target, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, LocationList]:
    """Where what `target` names is defined (each place with its line's `text`)."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        found = await ws.definition(await target_place(ws, given))
        return _locations(
            ws, found, found.complete, found.reason, "definition", given, max_chars=max_chars
        )

    return await call(ctx, work)


def _locations(
    ws: Workspace,
    found: list[Location],
    complete: bool,
    reason: str | None,
    what: str,
    given: str,
    *,
    limit: int = DEFINITIONS_CAP,
    max_chars: int = MAX_CHARS,
) -> CallToolResult:
    total, truncated = shapes.counts(found, limit)
    lines = line_of(ws)
    result: LocationList = {
        "items": [shapes.location(place, lines) for place in found[:limit]],
        "total": total,
        "truncated": truncated,
        "complete": complete,
        "reason": shapes.reason(reason),
    }
    return answer(render.locations(result, what, given, ws.timeout), result, max_chars)


PlacesLimit = Annotated[Limit, Field(description="At most this many items (default 50).")]


async def type_definition(
    ctx: Ctx, target: Target, limit: PlacesLimit = 50, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, LocationList]:
    """Where the type of what `target` names is defined (the class of a variable, say),
    each place with its line's `text`."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        found = await ws.type_definition(await target_place(ws, given))
        return _located(ws, found, "type definition", given, limit, max_chars)

    return await call(ctx, work)


async def implementation(
    ctx: Ctx, target: Target, limit: PlacesLimit = 50, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, LocationList]:
    """Where what `target` names is implemented (the overrides of a method, the classes
    implementing an interface or protocol), each place with its line's `text`."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        found = await ws.implementation(await target_place(ws, given))
        return _located(ws, found, "implementation", given, limit, max_chars)

    return await call(ctx, work)


async def callers(
    ctx: Ctx, target: Target, limit: PlacesLimit = 50, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, LocationList]:
    """The functions and methods that call what `target` names, across the workspace: each
    at its name (`text` is the line of its definition), so that `path:line:column` of an
    item is a target for it."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        found = await ws.callers(await target_place(ws, given, whole=True))
        return _calls(ws, found, "callers", given, limit, max_chars)

    return await call(ctx, work)


async def callees(
    ctx: Ctx, target: Target, limit: PlacesLimit = 50, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, LocationList]:
    """The functions and methods that what `target` names calls: each at its name (`text` is
    the line of its definition), so that `path:line:column` of an item is a target for it."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        found = await ws.callees(await target_place(ws, given, whole=True))
        return _calls(ws, found, "callees", given, limit, max_chars)

    return await call(ctx, work)


def _located(
    ws: Workspace,
    found: Results[Location],
    what: str,
    given: str,
    limit: int,
    max_chars: int,
) -> CallToolResult:
    return _locations(
        ws, found, found.complete, found.reason, what, given, limit=limit, max_chars=max_chars
    )


def _calls(
    ws: Workspace, found: Results[Symbol], what: str, given: str, limit: int, max_chars: int
) -> CallToolResult:
    """Callers or callees, each at its name, as the command line's ``callers`` shows them."""
    places = [symbol.location for symbol in found]
    return _locations(
        ws, places, found.complete, found.reason, what, given, limit=limit, max_chars=max_chars
    )


async def hover(
    ctx: Ctx, target: Target, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, HoverShape]:
    """What the language server says about `target`: its type, signature and documentation,
    as markdown (`null` when it has nothing to say)."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        markdown = shapes.cut_hover(await ws.hover(await target_place(ws, given)))
        result: HoverShape = {"markdown": markdown}
        return answer(render.hover(markdown, given), result, max_chars)

    return await call(ctx, work)


async def references(
    ctx: Ctx,
    target: Target,
    context: Annotated[
        int, Field(ge=0, le=20, description="Lines of code before and after each use (default 0).")
    ] = 0,
    limit: Annotated[Limit, Field(description="At most this many items.")] = 50,
    include_declaration: Annotated[
        bool, Field(description="Count the declaration itself as a use (default false).")
    ] = False,
    max_chars: MaxChars = MAX_CHARS,
) -> Annotated[CallToolResult, ReferenceList]:
    """Every use of what `target` names, across the workspace: each with its line's `text`,
    the symbol holding it (`container`, a name path) and, with `context`, the lines around it."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        place = await target_place(ws, given, whole=True)
        found = await ws.references(place, include_declaration=include_declaration, context=context)
        total, truncated = shapes.counts(found, limit)
        lines = line_of(ws)
        result: ReferenceList = {
            "items": [shapes.reference(item, lines, context) for item in found[:limit]],
            "total": total,
            "truncated": truncated,
            "complete": found.complete,
            "reason": shapes.reason(found.reason),
        }
        return answer(render.references(result, given, ws.timeout), result, max_chars)

    return await call(ctx, work)


async def restart(
    ctx: Ctx,
    server: Annotated[
        str | None,
        Field(description="The id of the server to restart, e.g. `basedpyright` (default: all)."),
    ] = None,
    max_chars: MaxChars = MAX_CHARS,
) -> Annotated[CallToolResult, StatusList]:
    """Restart a language server (or every one started), its files opened again: for a server
    that is stuck or answers from an outdated view. Returns each one's status."""

    async def work(ws: Workspace) -> CallToolResult:
        found = await ws.restart(server)
        result: StatusList = {
            "items": [shapes.status(item) for item in found],
            "total": len(found),
            "truncated": False,
            "complete": True,
            "reason": None,
        }
        return answer(render.statuses(result), result, max_chars)

    return await call(ctx, work)


def register(app: MCPServer[State]) -> None:
    """Add every tool to ``app``, with its title and annotations."""
    app.add_tool(diagnostics, title="Diagnostics", annotations=READ_ONLY)
    app.add_tool(symbols, title="Outline of a file", annotations=READ_ONLY)
    app.add_tool(find_symbol, title="Find symbols", annotations=READ_ONLY)
    app.add_tool(definition, title="Go to definition", annotations=READ_ONLY)
    app.add_tool(type_definition, title="Go to type definition", annotations=READ_ONLY)
    app.add_tool(implementation, title="Find implementations", annotations=READ_ONLY)
    app.add_tool(hover, title="Hover", annotations=READ_ONLY)
    app.add_tool(references, title="Find references", annotations=READ_ONLY)
    app.add_tool(callers, title="Callers", annotations=READ_ONLY)
    app.add_tool(callees, title="Callees", annotations=READ_ONLY)
    edit_tools.register(app)
    app.add_tool(restart, title="Restart language servers", annotations=RESTARTS)
