"""``adecore-lsp check``: the final diagnostics of files, in five formats.

The files are the paths given (files and folders), else the current folder when it lies
inside the root, else the root; a file found in a folder goes to the servers whose own
configuration puts it in their scope (:mod:`.check_files`), a file named to every server
that takes it; a run that would check nothing exits 2 saying why. The
text, jsonl and github formats print each batch of files as soon as its findings are final,
so the first lines come early and memory stays flat however many files there are.
``--timeout`` bounds each server's silence over the whole run, not its work: a server that
answers or moves its progress is waited for however long the tree takes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..workspace.checks import checking
from ..workspace.checks.scope_plan import Plan
from ..workspace.files.lines import line_of
from ..workspace.model import FileStatus
from ..workspace.workspace import Workspace
from . import reports
from .check_files import check_plan
from .common import Shown, finish, raw_line, servers_of
from .output import Output

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

STREAM_BATCH = 100
"""Files checked at a time when findings are printed as they come (text, jsonl, github)."""


def _read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"--baseline {path}: {error}") from None


async def check(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    if getattr(args, "new_since", None) is not None:
        if args.baseline:
            raise ValueError(
                "--new-since and --baseline do not go together: the revision is the baseline"
            )
        from .since import check_new_since

        return await check_new_since(args, output, ws)
    plan = check_plan(args, ws, output)
    shown = Shown.of(args, ws)
    if args.format in ("text", "jsonl", "github") and not args.baseline:
        return await _streamed(args, output, ws, plan, shown)
    bounds = checking.bounds_for(args.timeout)
    report = await checking.files_diagnostics(
        ws, plan.files, args.timeout, servers=plan.servers, bounds=bounds
    )
    report = checking.with_left_out(ws, report, plan)
    items = reports.shown(report.items, args.min_severity)
    if args.baseline:
        items = reports.without_baseline(items, _read_json(args.baseline))
    servers = await servers_of(ws)
    visible = shown.diagnostics(items)
    if args.format == "text":
        output.result(reports.text(visible, report, servers))
    elif args.format == "json":
        output.result(reports.as_json(visible, report, servers))
    elif args.format == "jsonl":
        output.result(reports.jsonl(visible, line_of(ws), raw_line(ws)))
    elif args.format == "github":
        output.result(reports.github(visible, raw_line(ws)))
    else:
        from .sarif import sarif

        output.result(sarif(visible, servers, line_of(ws), raw_line(ws)))
    failing = any(reports.RANK[item.severity] <= reports.RANK[args.fail_on] for item in items)
    say_stopped(output, bounds, report.files)
    return finish(output, ws, report.files, shown, failing)


async def _streamed(
    args: argparse.Namespace, output: Output, ws: Workspace, plan: Plan, shown: Shown
) -> int:
    bounds = checking.bounds_for(args.timeout)
    lines = line_of(ws)
    places = raw_line(ws)
    errors = warnings = 0
    failing = False
    statuses: dict[str, FileStatus] = {}
    for start in range(0, len(plan.files), STREAM_BATCH):
        batch = plan.files[start : start + STREAM_BATCH]
        report = await checking.files_diagnostics(
            ws, batch, args.timeout, servers=plan.servers, bounds=bounds
        )
        items = reports.shown(report.items, args.min_severity)
        visible = shown.diagnostics(items)
        if args.format == "text":
            output.result(reports.text_lines(visible))
        elif args.format == "jsonl":
            output.result(reports.jsonl(visible, lines, places))
        else:
            output.result(reports.github(visible, places))
        output.out.flush()
        errors += sum(1 for item in items if item.severity == "error")
        warnings += sum(1 for item in items if item.severity == "warning")
        failing = failing or any(
            reports.RANK[item.severity] <= reports.RANK[args.fail_on] for item in items
        )
        statuses.update(report.files)
    if args.format == "text":
        output.result(reports.summary(errors, warnings, statuses, await servers_of(ws)))
    say_stopped(output, bounds, statuses)
    return finish(output, ws, statuses, shown, failing)


def say_stopped(output: Output, bounds: checking.Bounds, files: dict[str, FileStatus]) -> None:
    """A warning per server the check stopped waiting for, saying why, when files timed
    out (the line naming them follows)."""
    if any(status.reason == "timeout" for status in files.values()):
        for why in checking.why_stopped(bounds):
            output.warning(f"{why}: stopped waiting for it")
