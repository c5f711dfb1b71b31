"""``adecore-lsp check --new-since REV``: only the findings a change since a git revision
introduced, in every format of ``check``.

Without paths every file of the root is checked on both sides (a caller broken in a file
the change never touched is found), each side giving each server the files of its scope as
that side's own configurations say (``check_files``); the revision's side runs in a
temporary folder of its committed files that the workspace removes afterwards, also on
Ctrl-C. Old, introduced and resolved findings are told apart by the one rule of the
workspace layer (``Workspace.new_since``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..workspace.files.lines import line_of
from ..workspace.model import Diagnostic, DiagnosticsReport
from ..workspace.workspace import Workspace
from . import reports
from .check_files import check_plan
from .common import Shown, cwd_of, finish, incomplete, raw_line, reasons_in_words, servers_of
from .output import Output

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def summary(errors: int, warnings: int, resolved: int, rev: str, report: DiagnosticsReport) -> str:
    """``N new errors, N new warnings (M resolved) since REV``, then ``; incomplete: ...``
    when either side did not finish, so that stdout alone never reads as nothing new."""
    line = (
        f"{errors} new error{'s' * (errors != 1)}, "
        f"{warnings} new warning{'s' * (warnings != 1)} ({resolved} resolved) since {rev}"
    )
    unfinished = [status for status in report.files.values() if not status.complete]
    if unfinished:
        why = reasons_in_words(sorted(str(status.reason) for status in unfinished))
        line += f"; incomplete: {len(unfinished)} of {len(report.files)} files not final ({why})"
    elif not report.complete:
        why = reasons_in_words([report.reason or "timeout"])
        line += f"; incomplete: the diagnostics at {rev} are not final ({why})"
    return line + "\n"


def _paths(args: argparse.Namespace, ws: Workspace, output: Output) -> list[Path] | None:
    """The paths given (a folder stands for its files in each server's scope, a file for
    itself, as ``check`` takes them); without any, every file of the root (not only the
    current folder's: a break far from the change must be seen). A run with nothing to
    check exits 2 saying so; configurations that could not be read are said."""
    given = getattr(args, "paths", None)
    if given:
        check_plan(args, ws, output)
        cwd = cwd_of(args)
        return [Path(os.path.abspath(cwd / path)) for path in given]
    check_plan(argparse.Namespace(**{**vars(args), "paths": [str(ws.root)]}), ws, output)
    return None


async def check_new_since(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    """Check both sides and print what the working tree introduced since ``--new-since``."""
    rev: str = args.new_since
    report = await ws.new_since(rev, _paths(args, ws, output), timeout=args.timeout)
    items = reports.shown(report.items, args.min_severity)
    resolved = reports.shown(report.resolved, args.min_severity)
    shown = Shown.of(args, ws)
    visible = shown.diagnostics(items)
    if args.format == "text":
        errors, warnings = counted(items)
        output.result(
            reports.text_lines(visible) + summary(errors, warnings, len(resolved), rev, report)
        )
    elif args.format == "json":
        output.result(
            reports.as_json(
                visible,
                report,
                await servers_of(ws),
                extra={"since": rev, "resolved": reports.json_items(shown.diagnostics(resolved))},
            )
        )
    elif args.format == "jsonl":
        output.result(reports.jsonl(visible, line_of(ws), raw_line(ws)))
    elif args.format == "github":
        output.result(reports.github(visible, raw_line(ws)))
    else:
        from .sarif import sarif

        output.result(sarif(visible, await servers_of(ws), line_of(ws), raw_line(ws)))
    _say_revision_unfinished(output, report, rev)
    failing = any(reports.RANK[item.severity] <= reports.RANK[args.fail_on] for item in items)
    return finish(output, ws, report.files, shown, failing, complete=report.complete)


def _say_revision_unfinished(output: Output, report: DiagnosticsReport, rev: str) -> None:
    """When the working tree's side finished but the revision's did not, say so (its files
    are in a folder already gone, so no names)."""
    if not report.complete and all(status.complete for status in report.files.values()):
        why = reasons_in_words([report.reason or "timeout"])
        incomplete(output, f"the diagnostics at {rev} are not final ({why})")


def counted(items: list[Diagnostic]) -> tuple[int, int]:
    """Errors and warnings among ``items``."""
    return (
        sum(1 for item in items if item.severity == "error"),
        sum(1 for item in items if item.severity == "warning"),
    )
