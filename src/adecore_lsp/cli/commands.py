"""The commands of ``adecore-lsp``, each a thin call of the workspace and its output.

Each returns the exit status: 0 clean, 1 findings (or pending changes), 3 incomplete (it
wins over 1). Failures raise; :mod:`.run` turns them into a message and status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..plain_text import escape_controls
from ..workspace.model import Diagnostic, EditPlan, Location, Results, Symbol
from ..workspace.registry import Registry
from ..workspace.workspace import Workspace
from . import reports
from .output import Output, one_line, shown_path
from .run import absolute_target, exit_for

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def _line_of(ws: Workspace) -> Any:
    def line_of(path: str, line: int) -> str | None:
        index = ws.texts.index(ws.paths.uri(ws.paths.absolute(path)))
        if index is None or not 1 <= line <= index.line_count:
            return None
        return index.text[index.line_start(line - 1) : index.line_end(line - 1)]

    return line_of


def _servers(ws: Workspace) -> list[tuple[str, str | None]]:
    found: dict[str, str | None] = {}
    for handle in ws.started():
        session = handle.live
        info = session.server_info if session is not None else None
        version = info.get("version") if isinstance(info, dict) else None
        found.setdefault(handle.spec.id, _short_version(version))
    return sorted(found.items())


def _short_version(version: object) -> str | None:
    """``22.1.1`` of clangd's ``clangd version 22.1.1 linux x86_64-...``."""
    if not isinstance(version, str) or not version:
        return None
    for word in version.split():
        if word[:1].isdigit():
            return word
    return version


def _crashes(ws: Workspace) -> str | None:
    """The message of the servers that crashed, with their last stderr lines."""
    crashed = [handle for handle in ws.started() if handle.state == "crashed"]
    if not crashed:
        return None
    parts = []
    for handle in crashed:
        tail = handle.stderr_tail()
        quoted = f"; its last stderr lines:\n{tail}" if tail else ""
        parts.append(f"the language server {handle.spec.id} crashed{quoted}")
    return "\n".join(parts)


def _absolute(paths: Sequence[str], root: Path | None = None) -> list[str]:
    """``paths`` made absolute; with ``root``, each must be inside it.

    Raises:
        ValueError: a path outside the root, saying how to choose another root.
    """
    full = [os.path.abspath(path) for path in paths]
    if root is not None:
        for given, path in zip(paths, full, strict=True):
            if not Path(path).is_relative_to(root):
                raise ValueError(
                    f"{given} is outside the root {root} (give --root to check it there)"
                )
    return full


def _read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"--baseline {path}: {error}") from None


def _incomplete(output: Output, what: str, files: Sequence[str]) -> None:
    listed = f": {', '.join(shown_path(path) for path in files)}" if files else ""
    output.error(f"incomplete: {what}{listed}")


# -- check -------------------------------------------------------------------------------------


STREAM_BATCH = 100
"""Files checked at a time when findings are printed as they come (text, jsonl, github)."""


async def _check_streamed(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    """``check`` printing each batch of files' findings as soon as they are final, so that
    the first lines come early and memory stays flat however many files there are."""
    from ..workspace import checking

    if args.paths:
        files: list[Any] = _absolute(args.paths, ws.root)
    else:
        files = ws.root_files()
    deadline = time.monotonic() + args.timeout
    line_of = _line_of(ws)
    errors = warnings = 0
    failing = False
    unfinished: dict[str, str] = {}
    checked: set[str] = set()
    for start in range(0, len(files), STREAM_BATCH):
        batch = files[start : start + STREAM_BATCH]
        left = max(0.001, deadline - time.monotonic())
        report = await checking.diagnostics(ws, batch, left, skip_unreadable=not args.paths)
        items = reports.shown(report.items, args.min_severity)
        if args.format == "text":
            output.result(reports.text_lines(items))
        elif args.format == "jsonl":
            output.result(reports.jsonl(items, line_of))
        else:
            output.result(reports.github(items))
        output.out.flush()
        errors += sum(1 for item in items if item.severity == "error")
        warnings += sum(1 for item in items if item.severity == "warning")
        failing = failing or any(
            reports.RANK[item.severity] <= reports.RANK[args.fail_on] for item in items
        )
        checked.update(report.files)
        for path, status in report.files.items():
            if not status.complete:
                unfinished[path] = str(status.reason)
    if args.format == "text":
        output.result(reports.summary(errors, warnings, len(checked), _servers(ws)))
    crash = _crashes(ws)
    if crash is not None:
        output.error(crash)
        return 2
    if unfinished:
        reasons = ", ".join(sorted(set(unfinished.values())))
        _incomplete(output, f"diagnostics not final ({reasons})", sorted(unfinished))
    return exit_for(not unfinished, failing)


async def check(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    if args.format in ("text", "jsonl", "github") and not args.baseline:
        return await _check_streamed(args, output, ws)
    paths = _absolute(args.paths, ws.root) if args.paths else None
    report = await ws.diagnostics(paths, timeout=args.timeout)
    items = reports.shown(report.items, args.min_severity)
    if args.baseline:
        items = reports.without_baseline(items, _read_json(args.baseline))
    servers = _servers(ws)
    if args.format == "text":
        output.result(reports.text(items, report, servers))
    elif args.format == "json":
        output.result(reports.as_json(items, report, servers))
    elif args.format == "jsonl":
        output.result(reports.jsonl(items, _line_of(ws)))
    elif args.format == "github":
        output.result(reports.github(items))
    else:
        from .sarif import sarif

        output.result(sarif(items, servers, _line_of(ws)))
    crash = _crashes(ws)
    if crash is not None:
        output.error(crash)
        return 2
    if not report.complete:
        unfinished = [path for path, status in report.files.items() if not status.complete]
        reasons = sorted({str(s.reason) for s in report.files.values() if not s.complete})
        _incomplete(output, f"diagnostics not final ({', '.join(reasons)})", unfinished)
    failing = any(reports.RANK[item.severity] <= reports.RANK[args.fail_on] for item in items)
    return exit_for(report.complete, failing)


# -- navigation --------------------------------------------------------------------------------


def _location_json(ws: Workspace, place: Location) -> dict[str, Any]:
    return {
        "path": place.path,
        "line": place.line,
        "column": place.column,
        "end_line": place.end_line,
        "end_column": place.end_column,
        "text": _line_of(ws)(place.path, place.line),
    }


def _say_incomplete(output: Output, results: Results[Any]) -> int:
    if results.complete:
        return 0
    _incomplete(output, f"the answer may be partial ({results.reason})", [])
    return 3


async def hover(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    text = await ws.hover(absolute_target(args.target))
    if args.format == "json":
        output.result(json.dumps({"markdown": text}, ensure_ascii=False) + "\n")
    elif text is not None:
        output.result(text.rstrip("\n") + "\n")
    else:
        output.note("no hover text")
    return 0


async def _locations(args: argparse.Namespace, output: Output, ws: Workspace, kind: str) -> int:
    target = absolute_target(args.target)
    if kind == "references":
        found: Results[Any] = await ws.references(
            target, include_declaration=args.include_declaration, context=args.context
        )
        places = [reference.location for reference in found]
    elif kind in ("callers", "callees"):
        found = await getattr(ws, kind)(target)
        places = [symbol.location for symbol in found]
    else:
        found = await getattr(ws, kind)(target)
        places = list(found)
    if args.format == "json":
        records = [_location_json(ws, place) for place in places]
        if kind == "references":
            for record, reference in zip(records, found, strict=True):
                record["container"] = reference.container
                if args.context:
                    record["context"] = list(reference.context)
        output.result(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
    else:
        line_of = _line_of(ws)
        for index, place in enumerate(places):
            text = escape_controls((line_of(place.path, place.line) or "").strip())
            output.line(f"{shown_path(place.path)}:{place.line}:{place.column}: {text}")
            if kind == "references" and args.context:
                for context_line in found[index].context:
                    output.line(f"    {context_line}")
    return _say_incomplete(output, found)


async def definition(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    return await _locations(args, output, ws, "definition")


async def references(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    return await _locations(args, output, ws, "references")


async def implementation(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    return await _locations(args, output, ws, "implementation")


async def type_definition(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    return await _locations(args, output, ws, "type_definition")


async def callers(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    return await _locations(args, output, ws, "callers")


async def callees(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    return await _locations(args, output, ws, "callees")


def _symbol_json(symbol: Symbol, kinds: set[str] | None) -> dict[str, Any]:
    return {
        "name": symbol.name,
        "name_path": symbol.name_path,
        "kind": symbol.kind,
        "path": symbol.location.path,
        "line": symbol.location.line,
        "column": symbol.location.column,
        "children": [_symbol_json(c, kinds) for c in symbol.children if _wanted(c, kinds)],
    }


def _wanted(symbol: Symbol, kinds: set[str] | None) -> bool:
    return kinds is None or symbol.kind in kinds


async def symbols(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    [file] = _absolute([args.file])
    found = await ws.symbols(file, depth=args.depth)
    kinds = {kind.strip() for kind in args.kind.split(",")} if args.kind else None
    tops = [symbol for symbol in found if _wanted(symbol, kinds)]
    if args.format == "json":
        records = [_symbol_json(symbol, kinds) for symbol in tops]
        output.result(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
    else:

        def show(symbol: Symbol, depth: int) -> None:
            name = escape_controls(symbol.name)
            output.line(f"{'  ' * depth}{symbol.kind} {name}  {symbol.location.line}")
            for child in symbol.children:
                if _wanted(child, kinds):
                    show(child, depth + 1)

        for symbol in tops:
            show(symbol, 0)
    return _say_incomplete(output, found)


async def find(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    found = await ws.find(args.query, limit=args.limit)
    if args.format == "json":
        records = [_symbol_json(symbol, None) for symbol in found]
        output.result(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
    else:
        for symbol in found:
            where = symbol.location
            output.line(
                f"{symbol.kind} {escape_controls(symbol.name_path)}  "
                f"{shown_path(where.path)}:{where.line}:{where.column}"
            )
    return _say_incomplete(output, found)


# -- edits -------------------------------------------------------------------------------------


def _plan_json(plan: EditPlan, written: list[str] | None, introduced: list[Diagnostic]) -> str:
    document = {
        "changed_files": plan.changed_files,
        "files": {
            path: {"edits": edit.edits, "diff": edit.diff} for path, edit in plan.files.items()
        },
        "file_ops": [
            {"kind": op.kind, "path": op.path, "new_path": op.new_path} for op in plan.file_ops
        ],
        "diff": plan.diff,
        "written": written,
        "introduced": [
            {
                "path": d.path,
                "line": d.line,
                "column": d.column,
                "severity": d.severity,
                "message": d.message,
                "code": d.code,
                "server": d.server,
            }
            for d in introduced
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


async def _edit(args: argparse.Namespace, output: Output, ws: Workspace, plan: EditPlan) -> int:
    count = len(plan.changed_files)
    written: list[str] | None = None
    introduced: list[Diagnostic] = []
    status = 0
    if getattr(args, "write", False) and count:
        applied = await ws.apply(plan)
        written = applied.written
        introduced = applied.delta.introduced
        if not applied.delta.complete:
            _incomplete(output, "the diagnostics after the write are not final", written)
            status = 3
        elif any(d.severity == "error" for d in introduced):
            status = 1
    if args.format == "json":
        output.result(_plan_json(plan, written, introduced))
    else:
        output.result(plan.diff)
        for d in introduced:
            output.line(
                f"{shown_path(d.path)}:{d.line}:{d.column}: {d.severity}: "
                f"{one_line(d.message)} (introduced)"
            )
    verb = "changed" if written is not None else "would change"
    output.note(f"{count} file{'s' * (count != 1)} {verb}")
    if getattr(args, "check", False) and count and written is None:
        return 1
    return status


async def rename(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    plan = await ws.rename(absolute_target(args.target), args.new_name)
    return await _edit(args, output, ws, plan)


def _files(args: argparse.Namespace, ws: Workspace) -> list[str]:
    if args.paths:
        return _absolute(args.paths)
    return [str(path) for path in ws.root_files()]


async def format(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    plan = await ws.format(_files(args, ws))
    return await _edit(args, output, ws, plan)


async def fix(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    plan = await ws.fix(_files(args, ws))
    return await _edit(args, output, ws, plan)


# -- trust -------------------------------------------------------------------------------------


def trust(args: argparse.Namespace, output: Output, root: Path) -> int:
    """``trust [DIR]``, ``trust --list``, ``trust --remove DIR``."""
    from ..workspace import trust as store

    if args.list:
        for path in store.listed():
            output.line(path)
        return 0
    if args.remove:
        removed = store.remove(args.remove)
        output.note(f"no longer trusted: {removed}")
        return 0
    trusted = store.add(args.dir if args.dir else root)
    output.note(
        f"trusted: {trusted} (its configuration as it is now: after a change to it, trust it again)"
    )
    return 0


# -- servers -----------------------------------------------------------------------------------


async def capabilities(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    from ..protocol.capabilities._methods import METHODS

    if args.file:
        [path] = _absolute([args.file])
        session = await ws.session_for(path)
        uri = ws.paths.uri(path)
        await ws.open(path)
        await _registration_grace(session)
    else:
        handles = ws.started()
        if not handles:
            raise ValueError("name a FILE (or --server ID with a file) to start a server for")
        session, uri = await handles[0].session(), None
    rows = []
    for spec in METHODS:
        if spec.direction == "both" or not session.supports(spec.method, uri):
            continue
        options = session.provider_options(spec.method, uri) or {}
        keep = {
            key: options[key]
            for key in (
                "triggerCharacters",
                "retriggerCharacters",
                "legend",
                "resolveProvider",
                "codeActionKinds",
                "commands",
                "full",
                "range",
            )
            if key in options
        }
        rows.append({"method": spec.method, "options": keep})
    if args.format == "json":
        output.result(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    else:
        for row in rows:
            extra = f"  {json.dumps(row['options'], ensure_ascii=False)}" if row["options"] else ""
            output.line(f"{row['method']}{extra}")
    return 0


async def _registration_grace(session: Any) -> None:
    """Wait out the second after the handshake in which servers register capabilities."""
    ready_at = session.ready_at
    if ready_at is not None:
        left = ready_at + 1.0 - asyncio.get_running_loop().time()
        if left > 0:
            await asyncio.sleep(left)


async def _version_of(executable: str) -> str | None:
    try:
        process = await asyncio.create_subprocess_exec(
            executable,
            "--version",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(process.communicate(), 5)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        return None
    words = out.decode("utf-8", "replace").split()
    versions = [
        w.lstrip("v") for w in words if w[:1].isdigit() or (w[:1] == "v" and w[1:2].isdigit())
    ]
    return versions[0] if versions and process.returncode == 0 else None


async def servers(args: argparse.Namespace, output: Output, registry: Registry) -> int:
    root = Path(args.root) if args.root else Path.cwd()
    specs = list(registry)
    where = [registry.which(spec, root) for spec in specs]
    versions = await asyncio.gather(*(_version_of(path) if path else _none() for path in where))
    rows: list[dict[str, Any]] = [
        {
            "id": spec.id,
            "languages": sorted(set(spec.languages.values())),
            "installed": path is not None,
            "path": path,
            "version": version,
        }
        for spec, path, version in zip(specs, where, versions, strict=True)
    ]
    if args.format == "json":
        output.result(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    else:
        for row in rows:
            state = (
                f"{row['version'] or '?'}  {row['path']}" if row["installed"] else "not installed"
            )
            output.line(f"{row['id']:<30} {', '.join(row['languages']):<32} {state}")
    return 0


async def _none() -> None:
    return None


async def doctor(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    from ..errors import LspError
    from ..workspace.checking import wait_ready

    registry = ws.registry
    ids = args.ids or [spec.id for spec in registry if ws.which(spec)]
    rows = []
    for server in ids:
        spec = registry.get(server)
        row: dict[str, Any] = {
            "id": server,
            "ok": False,
            "error": None,
            "start_ms": None,
            "ready_s": None,
            "position_encoding": None,
            "sync": None,
            "diagnostics": None,
        }
        rows.append(row)
        try:
            probe = ws.root / ("probe" + next(iter(spec.languages), ""))
            pinned = Workspace(
                ws.root,
                servers=[spec.id],
                timeout=ws.timeout,
                trust=ws.trusted,
                on_untrusted=lambda _notice: None,  # said once already, by this command
            )
            async with pinned:
                began = time.monotonic()
                handle = pinned.handles_for(probe)[0]
                session = await handle.session()
                row["start_ms"] = round((time.monotonic() - began) * 1000)
                readiness = await wait_ready(handle, time.monotonic(), min(ws.timeout, 10))
                row["ready_s"] = round(readiness.waited, 3) if readiness.state == "ready" else None
                row["position_encoding"] = session.position_encoding
                sync = session.server_capabilities.get("textDocumentSync")
                kind = sync.get("change") if isinstance(sync, dict) else sync
                row["sync"] = (
                    {1: "full", 2: "incremental"}.get(kind, "none")
                    if isinstance(kind, int)
                    else "none"
                )
                pulls = session.supports("textDocument/diagnostic")
                row["diagnostics"] = "pull" if pulls else "push"
                row["ok"] = True
        except (LspError, ValueError, OSError) as error:
            row["error"] = one_line(error.message if isinstance(error, LspError) else str(error))
    if args.format == "json":
        output.result(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    else:
        for row in rows:
            if row["ok"]:
                ready = (
                    f"ready in {row['ready_s']} s"
                    if row["ready_s"] is not None
                    else "no readiness signal"
                )
                output.line(
                    f"{row['id']:<28} ok  start {row['start_ms']} ms, {ready}, "
                    f"{row['position_encoding']}, {row['sync']} sync, "
                    f"{row['diagnostics']} diagnostics"
                )
            else:
                output.line(f"{row['id']:<28} FAILED  {row['error']}")
    return 0 if all(row["ok"] for row in rows) else 2
