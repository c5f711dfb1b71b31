"""The tools of ``adecore-lsp mcp`` that change files: renames, edits, formatting, fixes.

Each previews or writes through the workspace (one write path: inside the root, all or
nothing, refused when a file changed on disk meanwhile) and answers with the unified diff
and, when written, what the change introduced and resolved by the one rule of
``changes.md``. A write whose check afterwards did not finish in time says so:
``applied: true, complete: false``, the write standing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Annotated, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from ..errors import EditConflictError
from ..protocol.documents.notebooks import InvalidNotebookError
from ..workspace.checks import changes
from ..workspace.disk.listing import read_text
from ..workspace.edits import editing
from ..workspace.model import AppliedPlan, DiagnosticsDelta, EditPlan, Symbol
from ..workspace.servers.notebook_view import is_notebook
from ..workspace.workspace import Workspace
from . import render, shapes
from .cell_edits import replace_in_cells, replace_symbol
from .common import (
    MAX_CHARS,
    READ_ONLY,
    TARGET,
    WRITES,
    Ctx,
    MaxChars,
    Target,
    answer,
    files,
    line_of,
    lines_in,
)
from .shapes import EditShape, PlanShape
from .state import State, call, check_target, inside, target_place
from .text_edits import Offsets, Replacement, file_diff, replace_all, replace_lines

# Internal to the library: nothing here is public API.
__all__: list[str] = []

T = TypeVar("T")

ANSWER_MARGIN = 1.0
"""Seconds a write keeps, at most, of the call's bound for answering after it: a write whose
check afterwards runs out of time is answered as written, not as a call that timed out."""

WORK_MARGIN = 0.25
"""Seconds before the call's deadline at which the check after a write gives what it has
(the files it did not reach named): the answer is made within the deadline, not cut at it."""

# -- renames, formatting, fixes: plans -----------------------------------------------------------

NewName = Annotated[str, Field(min_length=1, description="The new name, e.g. `welcome`.")]
Write = Annotated[
    bool,
    Field(description="Write the files (default false: only the plan is shown, nothing written)."),
]
Paths = Annotated[
    list[str] | None,
    Field(
        description="Files or folders, relative to the workspace root (default: every file "
        "of the root that a language server takes)."
    ),
]


async def rename(
    ctx: Ctx, target: Target, new_name: NewName, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, PlanShape]:
    """Preview renaming what `target` names, everywhere it is used: the unified diff, the
    files and the number of edits per file. Nothing is written; `apply_rename` writes it."""
    given = target

    async def work(ws: Workspace) -> CallToolResult:
        plan = await ws.rename(await target_place(ws, given, whole=True), new_name)
        return _plan(ws, plan, None, tool="rename", max_chars=max_chars)

    return await call(ctx, work)


async def apply_rename(
    ctx: Ctx, target: Target, new_name: NewName, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, PlanShape]:
    """Rename what `target` names everywhere and write the files, all or nothing (refused,
    nothing written, if a file changed on disk meanwhile). Returns the diff written and the
    diagnostics the rename `introduced` (new errors it caused) and `resolved`."""
    given = target
    deadline = _deadline(ctx)

    async def work(ws: Workspace) -> CallToolResult:
        plan = await ws.rename(await target_place(ws, given, whole=True), new_name)
        applied = await _apply(ws, plan, deadline)
        return _plan(ws, plan, applied, tool="rename", max_chars=max_chars)

    return await call(ctx, work)


async def format_files(
    ctx: Ctx, paths: Paths = None, write: Write = False, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, PlanShape]:
    """Format files with the language servers' formatter (ruff's, say): the unified diff,
    the files and the number of edits per file. Nothing is written unless `write` is true;
    written, all or nothing, it also returns the diagnostics the change `introduced` and
    `resolved`. Files already formatted give an empty diff."""

    deadline = _deadline(ctx)

    async def work(ws: Workspace) -> CallToolResult:
        plan = await ws.format(files(ws, paths) or ws.root_files())
        return await _plan_or_write(ws, plan, write, "format", deadline, max_chars)

    return await call(ctx, work)


async def fix_files(
    ctx: Ctx, paths: Paths = None, write: Write = False, max_chars: MaxChars = MAX_CHARS
) -> Annotated[CallToolResult, PlanShape]:
    """Apply the language servers' automatic fixes (their fix-all code action, such as
    ruff's removal of unused imports) to files: the unified diff, the files and the number
    of edits per file. Nothing is written unless `write` is true; written, all or nothing,
    it also returns the diagnostics the change `introduced` and `resolved`. Nothing to fix
    gives an empty diff."""

    deadline = _deadline(ctx)

    async def work(ws: Workspace) -> CallToolResult:
        plan = await ws.fix(files(ws, paths) or ws.root_files())
        return await _plan_or_write(ws, plan, write, "fix", deadline, max_chars)

    return await call(ctx, work)


async def _plan_or_write(
    ws: Workspace, plan: EditPlan, write: bool, tool: str, deadline: float, max_chars: int
) -> CallToolResult:
    """The plan shown, or written when ``write`` (a plan that changes nothing is not
    applied: it answers with no changes)."""
    if not write or (not plan.files and not plan.file_ops):
        return _plan(ws, plan, None, tool=tool, max_chars=max_chars)
    return _plan(ws, plan, await _apply(ws, plan, deadline), tool=tool, max_chars=max_chars)


async def _apply(ws: Workspace, plan: EditPlan, deadline: float) -> AppliedPlan:
    """``ws.apply(plan)``; when the call's time runs out after the files were written, the
    write stands and the delta says that its check did not finish."""

    def written() -> bool:
        changed = [(path, edit.new_text) for path, edit in plan.files.items()]
        return bool(changed) and all(_holds(ws.paths.absolute(p), text) for p, text in changed)

    return await _bounded(
        editing.apply(ws, plan, deadline=deadline - WORK_MARGIN),
        deadline,
        written,
        lambda: AppliedPlan(plan.changed_files, _unfinished()),
    )


def _plan(
    ws: Workspace,
    plan: EditPlan,
    applied: AppliedPlan | None,
    *,
    tool: str,
    max_chars: int = MAX_CHARS,
) -> CallToolResult:
    diff, diff_lines = shapes.cut_diff(plan.diff)
    edits = {path: edit.edits for path, edit in plan.files.items()}
    for op in plan.file_ops:
        edits[op.path] = edits.get(op.path, 0) + 1
    delta = applied.delta if applied is not None else None
    # Incomplete when the plan may miss files, or the check after the write did not finish.
    complete = plan.complete and (delta is None or delta.complete)
    reason = plan.reason if not plan.complete else (None if delta is None else delta.reason)
    current = line_of(ws)
    before = lines_in({path: edit.old_text for path, edit in plan.files.items()}, current)
    result: PlanShape = {
        "diff": diff,
        "changed_files": list(plan.changed_files),
        "edits": edits,
        "applied": applied is not None,
        "introduced": shapes.introduced(delta.introduced, current) if delta else [],
        "resolved": shapes.introduced(delta.resolved, before) if delta else [],
        "complete": complete,
        "reason": reason,
        "checked": list(delta.checked) if delta else [],
        "not_reached": list(delta.not_reached) if delta else [],
    }
    text = render.plan(
        result,
        diff_lines,
        tool=tool,
        plan_complete=plan.complete,
        plan_reason=plan.reason,
        delta_complete=True if delta is None else delta.complete,
        delta_reason=None if delta is None else delta.reason,
        timeout=ws.timeout,
    )
    return answer(text, result, max_chars)


# -- edit: one file, by text or by symbol ---------------------------------------------------------


EDITS = (
    "Replacements applied in order, all or none: each `old` must occur exactly once in the "
    "text as the replacements before it left it (an `old` found zero or several times is an "
    "error naming the lines, and nothing is changed). In a notebook (.ipynb) each `old` is "
    "text of a cell's source, found exactly once across its cells; only that cell's source "
    "changes (outputs, metadata and the rest of the JSON stay). Give either `edits` or "
    "`target` and `new`."
)

SYMBOL = "The symbol whose lines to replace (with `new`), in the file `path`. " + TARGET.replace(
    "What to look at. ", ""
)

NEITHER = (
    "give edits ([{old, new}, ...]), or target and new (the symbol whose lines to replace, "
    "and their new text); nothing was changed"
)

NEW = (
    "With `target`: the text that replaces the whole lines of the symbol, from its first "
    "line to its last (decorators and comments outside its range stay; in a notebook, lines "
    "of the symbol's cell); a final line break is added if missing."
)


async def edit(
    ctx: Ctx,
    path: Annotated[str, Field(description="The file to change, relative to the workspace root.")],
    edits: Annotated[list[Replacement] | None, Field(description=EDITS)] = None,
    target: Annotated[str | None, Field(description=SYMBOL)] = None,
    new: Annotated[str | None, Field(description=NEW)] = None,
    write: Annotated[
        bool,
        Field(
            description="Write the file (default true); false previews: nothing is written, "
            "the answer says what the edit would introduce."
        ),
    ] = True,
    max_chars: MaxChars = MAX_CHARS,
) -> Annotated[CallToolResult, EditShape]:
    """Change one file, by exact text replacements (`edits`) or by replacing a symbol's
    lines (`target` and `new`), and say what the change broke: the unified diff and the
    diagnostics it `introduced` and `resolved`, in the file and in every other open file
    (a caller broken in another file is found once that file was looked at, e.g. with
    diagnostics). Written at once unless `write` is false (refused, nothing written, if the
    file changed on disk meanwhile). `complete: false` with `applied: true`: the file was
    written, only the check after it did not finish. A notebook (.ipynb) is edited by the
    text of its cells' sources, never its JSON; the diff shows the cells."""
    deadline = _deadline(ctx)

    async def work(ws: Workspace) -> CallToolResult:
        if edits is not None and (target is not None or new is not None):
            raise ValueError("give either edits, or target and new, not both; nothing was changed")
        if edits is not None and not edits:
            raise ValueError("edits is empty: there is nothing to change")
        if edits is None and (target is None or new is None):
            raise ValueError(NEITHER)
        full = ws.file(inside(ws, path))
        shown = ws.paths.relative(full)
        notebook = is_notebook(full)
        await ws.sync_disk()
        if ws.takes(full):
            try:
                await ws.open(full)
            except InvalidNotebookError:
                pass  # no notebook JSON: its text is edited as it is (cell_edits)
        if edits is not None:
            old_text = _text(ws, full)
            new_text, offsets, diff = _replaced(old_text, edits, shown, notebook)
        elif target is not None and new is not None:
            symbol = await ws.resolve(check_target(ws, target))
            if symbol.location.path != shown:
                raise ValueError(
                    f"{target} names {symbol.kind} {symbol.name_path} of "
                    f"{symbol.location.path}, not of {shown}: give a target in the file "
                    "edited; nothing was changed"
                )
            old_text = _text(ws, full)
            new_text, offsets, diff = _symbol_replaced(old_text, symbol, new, shown, notebook)
        else:
            raise ValueError(NEITHER)
        if new_text == old_text:
            raise ValueError(
                f"the edit changes nothing: {shown} holds that text already; nothing was written"
            )
        if write:
            delta = await _written(ws, full, old_text, new_text, offsets, deadline)
        else:
            delta = await changes.preview(
                ws, full, new_text, edits=offsets, deadline=deadline - WORK_MARGIN
            )
        return _edited(ws, shown, (old_text, new_text, diff), delta, write, max_chars)

    return await call(ctx, work)


async def _written(
    ws: Workspace,
    full: Path,
    old_text: str,
    new_text: str,
    offsets: Offsets | None,
    deadline: float,
) -> DiagnosticsDelta:
    try:
        return await _bounded(
            changes.edit(
                ws,
                full,
                new_text,
                save=True,
                edits=offsets,
                expected=old_text,
                deadline=deadline - WORK_MARGIN,
            ),
            deadline,
            lambda: _holds(full, new_text),
            _unfinished,
        )
    except EditConflictError as error:
        raise ToolError(
            f"nothing was written: {ws.paths.relative(full)} changed on disk while the edit "
            "was being made; read it again and make the edit against its current text"
        ) from error


def _replaced(
    text: str, pairs: Sequence[Replacement], shown: str, notebook: bool
) -> tuple[str, Offsets | None, str]:
    """The new text of ``edits``, the replacements as edits of ``text`` (``None`` when only
    the two texts tell the change), and the diff; a notebook's ``old`` texts are its cells'."""
    if notebook:
        cells = replace_in_cells(text, pairs, shown)
        return cells.new_text, None, cells.diff(shown)
    new_text, offsets = replace_all(text, pairs, shown)
    return new_text, offsets, file_diff(shown, text, new_text)


def _symbol_replaced(
    text: str, symbol: Symbol, new: str, shown: str, notebook: bool
) -> tuple[str, Offsets | None, str]:
    """The new text with ``symbol``'s whole lines replaced (in its cell, in a notebook), that
    edit, and the diff."""
    if notebook:
        cells = replace_symbol(text, symbol, new, shown)
        return cells.new_text, None, cells.diff(shown)
    new_text, offsets = replace_lines(text, symbol.range_lines, new)
    return new_text, offsets, file_diff(shown, text, new_text)


def _text(ws: Workspace, full: Path) -> str:
    """The text of ``full`` the edit starts from: the open document's (the disk's, after
    ``sync_disk``), else the disk's."""
    if ws.takes(full):
        index = ws.texts.index(ws.paths.uri(full))
        if index is not None:
            return index.text
    return read_text(full)


def _edited(
    ws: Workspace,
    shown: str,
    texts: tuple[str, str, str],
    delta: DiagnosticsDelta,
    written: bool,
    max_chars: int,
) -> CallToolResult:
    old_text, new_text, whole_diff = texts
    diff, diff_lines = shapes.cut_diff(whole_diff)
    current = line_of(ws)
    result: EditShape = {
        "diff": diff,
        "changed_files": [shown],
        "applied": written,
        # Each finding on its line as it is: an introduced one after the edit (also when
        # only previewed), a resolved one before it.
        "introduced": shapes.introduced(delta.introduced, lines_in({shown: new_text}, current)),
        "resolved": shapes.introduced(delta.resolved, lines_in({shown: old_text}, current)),
        "complete": delta.complete,
        "reason": delta.reason,
        "checked": list(delta.checked),
        "not_reached": list(delta.not_reached),
    }
    return answer(render.edit(result, diff_lines, ws.timeout), result, max_chars)


# -- the call's time ------------------------------------------------------------------------------


def _deadline(ctx: Ctx) -> float:
    """When the call's bound ends, on the event loop's clock, less the time to answer."""
    state: State = ctx.request_context.lifespan_context
    bound = state.options.bound
    return asyncio.get_running_loop().time() + bound - min(ANSWER_MARGIN, bound / 10)


async def _bounded(
    work: Awaitable[T], deadline: float, written: Callable[[], bool], unfinished: Callable[[], T]
) -> T:
    """``work`` (a write and the check after it) until ``deadline``; when the time runs out
    after the write, ``unfinished()`` (the write stands, its check did not finish), else
    the timeout as it is (nothing was written)."""
    left = deadline - asyncio.get_running_loop().time()
    try:
        return await asyncio.wait_for(work, max(left, 0.0))
    except asyncio.TimeoutError:
        if written():
            return unfinished()
        raise


def _unfinished() -> DiagnosticsDelta:
    return DiagnosticsDelta([], [], [], complete=False, reason="timeout")


def _holds(full: Path, text: str) -> bool:
    try:
        return read_text(full) == text
    except (OSError, ValueError):
        return False


def register(app: MCPServer[State]) -> None:
    """Add the tools that change files to ``app``, with their titles and annotations."""
    app.add_tool(rename, title="Preview a rename", annotations=READ_ONLY)
    app.add_tool(apply_rename, title="Rename and write", annotations=WRITES)
    app.add_tool(edit, title="Edit a file and check it", annotations=WRITES)
    app.add_tool(format_files, name="format", title="Format files", annotations=WRITES)
    app.add_tool(fix_files, name="fix", title="Fix files", annotations=WRITES)
