"""The commands about the tool and its servers: ``capabilities``, ``servers``, ``doctor`` and
``trust``."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from ..workspace.servers.registry import Registry
from ..workspace.workspace import Workspace
from .common import cwd_of
from .output import Output, one_line

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


# -- trust -------------------------------------------------------------------------------------


def trust(args: argparse.Namespace, output: Output, root: Path) -> int:
    """``trust [DIR]``, ``trust --list``, ``trust --remove DIR``."""
    from ..workspace.servers import trust as store

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
        path = cwd_of(args) / args.file
        session = await ws.session_for(path)
        uri = ws.paths.uri(path)
        await ws.open(path)
        await _registration_grace(session)
    else:
        handles = ws.server_choice.used()
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


async def servers(args: argparse.Namespace, output: Output, registry: Registry) -> int:
    from ..workspace.servers.scopes import describe
    from ..workspace.servers.server_facts import version_of

    root = Path(args.root) if args.root else cwd_of(args)
    specs = list(registry)
    where = [registry.which(spec, root) for spec in specs]
    versions = await asyncio.gather(
        *(
            version_of(spec, path) if path else _none()
            for spec, path in zip(specs, where, strict=True)
        )
    )
    rows: list[dict[str, Any]] = [
        {
            "id": spec.id,
            "languages": sorted(set(spec.languages.values())),
            "installed": path is not None,
            "path": path,
            "version": version,
            # How it takes Jupyter notebooks: "sync", "joined", "auto" (sync when it
            # announces it), or null for a server of no notebook language.
            "notebooks": (spec.notebooks or "auto")
            if spec.language_id("x.ipynb") is not None
            else None,
            # Which configuration decides the files a check of the root gives it (null for
            # a server that takes every file and decides itself).
            "scope": describe(root.resolve(), spec.scope),
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


def _scope_words(scope: dict[str, Any] | None) -> str:
    """``, scope: pyproject.toml [tool.pyright]`` (or ``its defaults``), empty for a server
    that decides itself."""
    if scope is None:
        return ""
    broken = f" (unreadable: {scope['error']})" if scope["error"] else ""
    return f", scope: {scope['config'] or 'its defaults'}{broken}"


async def doctor(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    from ..errors import LspError
    from ..workspace.checks.checking import wait_ready
    from ..workspace.servers.scopes import describe

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
            "scope": describe(ws.root, spec.scope),
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
                    f"{row['diagnostics']} diagnostics{_scope_words(row['scope'])}"
                )
            else:
                output.line(f"{row['id']:<28} FAILED  {row['error']}")
    return 0 if all(row["ok"] for row in rows) else 2
