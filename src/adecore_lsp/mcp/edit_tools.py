"""The tools of ``adecore-lsp mcp`` that change files: renames, edits, formatting, fixes.

Each previews or writes through the workspace (one write path: inside the root, all or
nothing, refused when a file changed on disk meanwhile) and answers with the unified diff
and, when written, what the change introduced and resolved by the one rule of
``changes.md``. A write whose check afterwards did not finish in time says so:
``applied: true, complete: false``, the write standing.
"""

from __future__ import annotations

import asyncio
import difflib
import re
from bisect import insort
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Annotated, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field
from typing_extensions import TypedDict

from ..errors import EditConflictError
from ..protocol.documents.positions import LineIndex
from ..workspace import changes
from ..workspace.files import read_text
from ..workspace.model import AppliedPlan, DiagnosticsDelta, EditPlan
from ..workspace.workspace import Workspace
from . import render, shapes
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
from .state import State, call, check_target, inside

# Internal to the library: nothing here is public API.
__all__: list[str] = []

T = TypeVar("T")

Offsets = list[tuple[int, int, str]]
"""Text edits of one file: ``(start, end, new text)``, code point offsets of the old text."""

ANSWER_MARGIN = 1.0
"""Seconds a write keeps, at most, of the call's bound for answering after it: a write whose
check afterwards runs out of time is answered as written, not as a call that timed out."""

PLACES_SHOWN = 20
"""An ``old`` text found several times names this many of its lines, then says how many more."""

_GIT_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_NO_NEWLINE = "\n\\ No newline at end of file\n"


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
        plan = await ws.rename(check_target(ws, given), new_name)
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
        plan = await ws.rename(check_target(ws, given), new_name)
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
        ws.apply(plan),
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


class Replacement(TypedDict):
    """One replacement of an edit: ``old``, found exactly once, becomes ``new``."""

    old: Annotated[
        str,
        Field(
            min_length=1,
            description="Text of the file to replace, exactly as it is (whitespace and "
            "indentation included), found exactly once; take enough lines around the change "
            "to make it unique.",
        ),
    ]
    new: Annotated[str, Field(description="The text that replaces `old`.")]


EDITS = (
    "Replacements applied in order, all or none: each `old` must occur exactly once in the "
    "text as the replacements before it left it (an `old` found zero or several times is an "
    "error naming the lines, and nothing is changed). Give either `edits` or `target` and "
    "`new`."
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
    "line to its last (decorators and comments outside its range stay); a final line break "
    "is added if missing."
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
    written, only the check after it did not finish."""
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
        await ws.sync_disk()
        if ws.takes(full):
            await ws.open(full)
        if edits is not None:
            old_text = _text(ws, full)
            new_text, offsets = replace_all(old_text, edits, shown)
        elif target is not None and new is not None:
            symbol = await ws.resolve(check_target(ws, target))
            if symbol.location.path != shown:
                raise ValueError(
                    f"{target} names {symbol.kind} {symbol.name_path} of "
                    f"{symbol.location.path}, not of {shown}: give a target in the file "
                    "edited; nothing was changed"
                )
            old_text = _text(ws, full)
            new_text, offsets = replace_lines(old_text, symbol.range_lines, new)
        else:
            raise ValueError(NEITHER)
        if new_text == old_text:
            raise ValueError(
                f"the edit changes nothing: {shown} holds that text already; nothing was written"
            )
        if write:
            delta = await _written(ws, full, old_text, new_text, offsets, deadline)
        else:
            delta = await changes.preview(ws, full, new_text, edits=offsets)
        return _edited(ws, shown, old_text, new_text, delta, write, max_chars)

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
            changes.edit(ws, full, new_text, save=True, edits=offsets, expected=old_text),
            deadline,
            lambda: _holds(full, new_text),
            _unfinished,
        )
    except EditConflictError as error:
        raise ToolError(
            f"nothing was written: {ws.paths.relative(full)} changed on disk while the edit "
            "was being made; read it again and make the edit against its current text"
        ) from error


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
    old_text: str,
    new_text: str,
    delta: DiagnosticsDelta,
    written: bool,
    max_chars: int,
) -> CallToolResult:
    diff, diff_lines = shapes.cut_diff(file_diff(shown, old_text, new_text))
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
    }
    return answer(render.edit(result, diff_lines, ws.timeout), result, max_chars)


def replace_all(text: str, pairs: Sequence[Replacement], shown: str) -> tuple[str, Offsets | None]:
    """``text`` with each ``old`` replaced by its ``new``, in order, and the replacements as
    edits of ``text`` (``None`` when one replaces text that an earlier one put in: then the
    two texts alone tell the change).

    Raises:
        ToolError: an ``old`` found zero or several times, saying how many and where.
    """
    current = text
    done: Offsets = []  # in offsets of ``text``, by start
    exact = True
    for number, pair in enumerate(pairs):
        old, new = pair["old"], pair["new"]
        places = occurrences(current, old)
        if len(places) != 1:
            raise ToolError(_miss(current, old, places, number, shown))
        at = places[0]
        current = current[:at] + new + current[at + len(old) :]
        if exact:
            span = _original_span(done, at, at + len(old))
            if span is None:
                exact = False
            else:
                insort(done, (span[0], span[1], new))
    if exact and _applied(text, done) != current:
        exact = False
    return current, done if exact else None


def occurrences(text: str, old: str) -> list[int]:
    """Where ``old`` starts in ``text``, overlapping occurrences too."""
    found: list[int] = []
    at = text.find(old)
    while at >= 0:
        found.append(at)
        at = text.find(old, at + 1)
    return found


def _original_span(done: Offsets, start: int, end: int) -> tuple[int, int] | None:
    """The span ``start``-``end`` of the text after the edits ``done`` as a span of the text
    before them; ``None`` when it meets text that one of them put in."""
    shift = 0
    for old_start, old_end, replacement in done:
        now_start = old_start + shift
        now_end = now_start + len(replacement)
        if end < now_start:
            break
        if start > now_end:
            shift += len(replacement) - (old_end - old_start)
            continue
        return None
    return start - shift, end - shift


def _applied(text: str, edits: Offsets) -> str:
    pieces: list[str] = []
    at = 0
    for start, end, replacement in edits:
        pieces += [text[at:start], replacement]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def _miss(text: str, old: str, places: list[int], number: int, shown: str) -> str:
    first = old.strip().splitlines()[0] if old.strip() else old
    quoted = repr(shapes.clip(first, 80))
    if "\n" in old.strip():
        quoted += " (and the lines after it)"
    which = f"edits[{number}]: the old text {quoted}"
    state = " (as the edits before it left it)" if number else ""
    if not places:
        return (
            f"{which} does not occur in {shown}{state}; nothing was changed. Copy it exactly "
            "from the file, whitespace and indentation included."
        )
    index = LineIndex(text, "utf-32")
    lines = [str(index.line_of(at) + 1) for at in places[:PLACES_SHOWN]]
    more = len(places) - PLACES_SHOWN
    where = ", ".join(lines) + (f" and {more:,} more" if more > 0 else "")
    return (
        f"{which} occurs {len(places):,} times in {shown}{state} (at lines {where}); nothing "
        "was changed. Give more of the text around it, so that it occurs exactly once."
    )


def replace_lines(text: str, lines: tuple[int, int], new: str) -> tuple[str, Offsets]:
    """``text`` with its whole lines ``lines`` (first and last, 1-based) replaced by ``new``,
    a final line break added to it if missing (the file's kind of break); and that edit."""
    index = LineIndex(text, "utf-32")
    first, last = lines
    start = index.line_start(first - 1)
    end = index.line_start(last) if last < index.line_count else len(text)
    if new and not new.endswith(("\n", "\r")):
        ending = text[index.line_end(last - 1) : end]
        new += ending or ("\r\n" if "\r\n" in text else "\n")
    return text[:start] + new + text[end:], [(start, end, new)]


def file_diff(shown: str, old: str, new: str) -> str:
    """The unified diff of one file's change, as the plans' diffs are (``a/`` and ``b/``
    paths, lines split as git does)."""
    if old == new:
        return ""
    pieces = [f"diff --git a/{shown} b/{shown}\n"]
    lines = difflib.unified_diff(
        _GIT_LINE.findall(old), _GIT_LINE.findall(new), f"a/{shown}", f"b/{shown}"
    )
    for line in lines:
        pieces.append(line)
        if not line.endswith("\n"):  # only a last line lacks its ending: headers have one
            pieces.append(_NO_NEWLINE)
    return "".join(pieces)


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
