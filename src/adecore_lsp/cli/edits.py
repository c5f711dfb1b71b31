"""The commands that edit: ``rename``, ``format`` and ``fix``, as a diff, or written with
``--write`` (all or nothing, through the write path) with what the write introduced.

``format`` and ``fix`` take files and folders as ``check`` does (the current folder by
default); a file that is not UTF-8, or a notebook that is no notebook, is left as it is and
named on stderr with why (exit 3), as ``check`` names it, and every other file is formatted
or fixed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..workspace.model import Diagnostic, DiagnosticsDelta, EditPlan
from ..workspace.workspace import Workspace
from .common import Shown, cwd_of, incomplete, reasons_in_words, scope
from .output import Output, one_line, shown_path

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def _finding(d: Diagnostic, shown: Shown) -> dict[str, object]:
    return {
        "path": d.path,
        "line": d.line,
        "column": d.column,
        "severity": d.severity,
        "message": shown.message(d.message),
        "code": d.code,
        "server": d.server,
    }


def _plan_json(
    plan: EditPlan, written: list[str] | None, delta: DiagnosticsDelta | None, shown: Shown
) -> str:
    # Incomplete when the plan may miss files, or the check after the write did not finish.
    complete = plan.complete and (delta is None or delta.complete)
    reason = plan.reason if not plan.complete else (None if delta is None else delta.reason)
    document = {
        "changed_files": plan.changed_files,
        "files": {
            path: {"edits": edit.edits, "diff": edit.diff} for path, edit in plan.files.items()
        },
        "file_ops": [
            {"kind": op.kind, "path": op.path, "new_path": op.new_path} for op in plan.file_ops
        ],
        "diff": plan.diff,
        "complete": complete,
        "reason": reason,
        "written": written,
        "introduced": [_finding(d, shown) for d in delta.introduced] if delta else [],
        "resolved": [_finding(d, shown) for d in delta.resolved] if delta else [],
        "skipped": {
            path: {"complete": status.complete, "reason": status.reason}
            for path, status in plan.skipped.items()
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


async def _edit(args: argparse.Namespace, output: Output, ws: Workspace, plan: EditPlan) -> int:
    count = len(plan.changed_files)
    written: list[str] | None = None
    delta: DiagnosticsDelta | None = None
    status = 0 if plan.complete else 3
    shown = Shown.of(args, ws)
    if getattr(args, "write", False) and count and plan.reason == "other_roots":
        from ..workspace.edits.editing import PARTIAL_RENAME

        incomplete(output, PARTIAL_RENAME)
    elif getattr(args, "write", False) and count:
        applied = await ws.apply(plan)
        written, delta = applied.written, applied.delta
        if not delta.complete:
            incomplete(
                output,
                "the files were written; the diagnostics after the write are not final "
                f"({reasons_in_words([delta.reason])})",
                [shown_path(shown.path(path)) for path in written],
            )
            status = 3
        elif any(d.severity == "error" for d in delta.introduced) and status == 0:
            status = 1
    if args.format == "json":
        output.result(_plan_json(plan, written, delta, shown))
    else:
        output.result(plan.diff)
        for d in delta.introduced if delta else []:
            output.line(
                f"{shown_path(shown.path(d.path))}:{d.line}:{d.column}: {d.severity}: "
                f"{one_line(shown.message(d.message))} (introduced)"
            )
    verb = "changed" if written is not None else "would change"
    output.note(f"{count} file{'s' * (count != 1)} {verb}")
    if delta is not None:
        output.note(
            f"{_count(len(delta.introduced), 'finding')} introduced, {len(delta.resolved)} resolved"
        )
    by_reason: dict[str, list[str]] = {}
    for path, file_status in plan.skipped.items():
        by_reason.setdefault(str(file_status.reason), []).append(shown_path(shown.path(path)))
    for reason, paths in by_reason.items():
        incomplete(output, f"left as they are ({reasons_in_words([reason])})", paths)
    if not plan.complete and not plan.skipped:
        incomplete(output, f"the plan may miss files ({reasons_in_words([plan.reason])})")
    if getattr(args, "check", False) and count and written is None:
        return 1 if status == 0 else status
    return status


def _count(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


async def rename(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    place = await ws.place(args.target, base=cwd_of(args), whole=True)
    plan = await ws.rename(place, args.new_name)
    return await _edit(args, output, ws, plan)


def _files(
    args: argparse.Namespace, ws: Workspace, output: Output, *, formatting: bool = False
) -> list[Path]:
    """The files to format or fix (see :func:`.common.scope`) that a server takes (or, to
    format, only formats: ruff and Markdown); those that cannot be read as their kind says
    are left out by the plan, which names them."""
    files = scope(args, ws, output, formatting=formatting).files
    only = ws.server_choice.formats_only
    return [path for path in files if ws.takes(path) or (formatting and only(path))]


async def format(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    files = _files(args, ws, output, formatting=True)
    plan = await ws.format(files) if files else EditPlan({}, [], "")
    return await _edit(args, output, ws, plan)


async def fix(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    files = _files(args, ws, output)
    plan = await ws.fix(files) if files else EditPlan({}, [], "")
    return await _edit(args, output, ws, plan)
