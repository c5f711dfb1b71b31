"""The tools of ``adecore-lsp mcp``: few, each a thin call of the one workspace.

Every tool answers with ``structured_content`` (a shape of :mod:`.shapes`, declared as its
``outputSchema``) and a short text (:mod:`.render`). Lists are capped by ``limit`` and say
their ``total``; an answer that may be partial says so, in its fields and in words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from ..workspace.model import AppliedPlan, EditPlan, Location
from ..workspace.workspace import Workspace
from . import render, shapes
from .shapes import (
    DiagnosticList,
    FoundSymbolList,
    HoverShape,
    LocationList,
    PlanShape,
    ReferenceList,
    StatusList,
    SymbolList,
)
from .state import State, call, check_target, inside

# Internal to the library: nothing here is public API.
__all__: list[str] = []

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=True)
RESTARTS = ToolAnnotations(read_only_hint=False, destructive_hint=False)

RANK = {"error": 0, "warning": 1, "information": 2, "hint": 3}

FIND_CAP = 2000
"""``find_symbol`` counts at most this many matches for its ``total``."""

DEFINITIONS_CAP = 50
"""``definition`` lists at most this many places."""

UNITS = (
    "Paths are relative to the workspace root (or absolute inside it); lines and columns are "
    "1-based, columns counted in Unicode code points (not bytes, not UTF-16 units)."
)

TARGET = (
    "What to look at. One of: `path:LINE:COL` (a position, e.g. `src/app.py:12:9`), "
    "`path:LINE` (that line's first non-blank character), `path#Name` or `path#Class/method` "
    "(a name path in the file's outline, as the symbols tool shows it, e.g. "
    "`src/app.py#Greeter/greet`; `path#Class/method[1]` picks the second of same-named "
    "overloads), or a bare `Name` or `Class/method` looked up in the whole workspace. "
    + UNITS
    + " A name is safer than a column: prefer `path#Class/method`."
)

MAX_CHARS = 20_000
"""The default budget of a tool's text, in characters (a context window's worth)."""

Ctx = Context[State, Any]
Target = Annotated[str, Field(description=TARGET)]
Limit = Annotated[int, Field(ge=1, le=1000)]
MaxChars = Annotated[
    int,
    Field(
        ge=200,
        le=1_000_000,
        description="At most this many characters of text in the answer (default 20000); "
        "a longer text is cut, saying so.",
    ),
]


def _result(text: str, structured: Any, max_chars: int = MAX_CHARS) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=render.budget(text, max_chars))],
        structured_content=structured,
    )


def _line_of(ws: Workspace) -> shapes.LineOf:
    """The text of a line of a file, as the workspace has it (the open document, else the disk)."""

    def line_of(path: str, line: int) -> str | None:
        index = ws.texts.index(ws.paths.uri(ws.paths.absolute(path)))
        if index is None or not 1 <= line <= index.line_count:
            return None
        return index.text[index.line_start(line - 1) : index.line_end(line - 1)]

    return line_of


def _files(ws: Workspace, paths: list[str] | None) -> list[Path] | None:
    """The files of ``paths`` (a folder stands for its files that a server takes)."""
    if not paths:
        return None
    files: list[Path] = []
    every: list[Path] | None = None
    for path in paths:
        full = inside(ws, path)
        if not full.is_dir():
            files.append(full)
            continue
        every = ws.root_files() if every is None else every
        under = [file for file in every if full == ws.root or full in file.parents]
        if not under:
            raise ValueError(
                f"the folder {path} holds no file that a language server of this workspace takes"
            )
        files += under
    return files


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
        report = await ws.diagnostics(_files(ws, paths), timeout=ws.timeout)
        kept = [item for item in report.items if RANK[item.severity] <= RANK[min_severity]]
        total, truncated = shapes.counts(kept, limit)
        if truncated:
            worst = sorted(range(len(kept)), key=lambda i: RANK[kept[i].severity])[:limit]
            kept = [kept[i] for i in sorted(worst)]
        line_of = _line_of(ws)
        result: DiagnosticList = {
            "items": [shapes.diagnostic(item, line_of) for item in kept],
            "total": total,
            "truncated": truncated,
            "complete": report.complete,
            "reason": shapes.reason(report.reason),
        }
        text = render.diagnostics(result, report.files, min_severity, ws.timeout)
        return _result(text, result, max_chars)

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
        return _result(render.symbols(result, path, ws.timeout), result, max_chars)

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
        return _result(render.found(result, query, ws.timeout), result, max_chars)

    return await call(ctx, work)


async def definition(
    ctx: Ctx, target: Target, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, LocationList]:
    """Where what `target` names is defined (each place with its line's `text`)."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        found = await ws.definition(check_target(ws, given))
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
    max_chars: int = MAX_CHARS,
) -> CallToolResult:
    total, truncated = shapes.counts(found, DEFINITIONS_CAP)
    line_of = _line_of(ws)
    result: LocationList = {
        "items": [shapes.location(place, line_of) for place in found[:DEFINITIONS_CAP]],
        "total": total,
        "truncated": truncated,
        "complete": complete,
        "reason": shapes.reason(reason),
    }
    return _result(render.locations(result, what, given, ws.timeout), result, max_chars)


async def hover(
    ctx: Ctx, target: Target, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, HoverShape]:
    """What the language server says about `target`: its type, signature and documentation,
    as markdown (`null` when it has nothing to say)."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        markdown = shapes.cut_hover(await ws.hover(check_target(ws, given)))
        result: HoverShape = {"markdown": markdown}
        return _result(render.hover(markdown, given), result, max_chars)

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
        found = await ws.references(
            check_target(ws, given), include_declaration=include_declaration, context=context
        )
        total, truncated = shapes.counts(found, limit)
        line_of = _line_of(ws)
        result: ReferenceList = {
            "items": [shapes.reference(item, line_of, context) for item in found[:limit]],
            "total": total,
            "truncated": truncated,
            "complete": found.complete,
            "reason": shapes.reason(found.reason),
        }
        return _result(render.references(result, given, ws.timeout), result, max_chars)

    return await call(ctx, work)


NewName = Annotated[str, Field(min_length=1, description="The new name, e.g. `welcome`.")]


async def rename(
    ctx: Ctx, target: Target, new_name: NewName, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, PlanShape]:
    """Preview renaming what `target` names, everywhere it is used: the unified diff, the
    files and the number of edits per file. Nothing is written; `apply_rename` writes it."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        plan = await ws.rename(check_target(ws, given), new_name)
        return _plan(ws, plan, applied=None, max_chars=max_chars)

    return await call(ctx, work)


async def apply_rename(
    ctx: Ctx, target: Target, new_name: NewName, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, PlanShape]:
    """Rename what `target` names everywhere and write the files, all or nothing (refused,
    nothing written, if a file changed on disk meanwhile). Returns the diff written and the
    diagnostics the rename `introduced` (new errors it caused)."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        plan = await ws.rename(check_target(ws, given), new_name)
        return _plan(ws, plan, applied=await ws.apply(plan), max_chars=max_chars)

    return await call(ctx, work)


def _plan(
    ws: Workspace, plan: EditPlan, applied: AppliedPlan | None, *, max_chars: int = MAX_CHARS
) -> CallToolResult:
    diff, diff_lines = shapes.cut_diff(plan.diff)
    edits = {path: edit.edits for path, edit in plan.files.items()}
    for op in plan.file_ops:
        edits[op.path] = edits.get(op.path, 0) + 1
    delta = applied.delta if applied is not None else None
    # Incomplete when the plan may miss files, or the check after the write did not finish.
    complete = plan.complete and (delta is None or delta.complete)
    reason = plan.reason if not plan.complete else (None if delta is None else delta.reason)
    result: PlanShape = {
        "diff": diff,
        "changed_files": list(plan.changed_files),
        "edits": edits,
        "applied": applied is not None,
        "introduced": shapes.introduced(delta.introduced, _line_of(ws)) if delta else [],
        "complete": complete,
        "reason": reason,
    }
    text = render.plan(result, diff_lines, complete, reason, ws.timeout)
    return _result(text, result, max_chars)


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
        return _result(render.statuses(result), result, max_chars)

    return await call(ctx, work)


def register(app: MCPServer[State]) -> None:
    """Add every tool to ``app``, with its title and annotations."""
    app.add_tool(diagnostics, title="Diagnostics", annotations=READ_ONLY)
    app.add_tool(symbols, title="Outline of a file", annotations=READ_ONLY)
    app.add_tool(find_symbol, title="Find symbols", annotations=READ_ONLY)
    app.add_tool(definition, title="Go to definition", annotations=READ_ONLY)
    app.add_tool(hover, title="Hover", annotations=READ_ONLY)
    app.add_tool(references, title="Find references", annotations=READ_ONLY)
    app.add_tool(rename, title="Preview a rename", annotations=READ_ONLY)
    app.add_tool(apply_rename, title="Rename and write", annotations=WRITES)
    app.add_tool(restart, title="Restart language servers", annotations=RESTARTS)
