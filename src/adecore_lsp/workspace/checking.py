"""Readiness, and diagnostics known final for the current text of each file.

A wait never guesses: it sleeps until a server sends something or a settle window ends
(the trackers of :mod:`adecore_lsp.protocol.workspace.readiness` and ``.finality`` say when), and a
deadline that passes is reported as such (``timed_out``, ``complete: False``), never as
``ready`` or clean.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ErrorCodes, LspError, StaleResultError
from ..protocol.documents.positions import check_encoding
from .delta import diagnostics_delta
from .model import (
    Diagnostic,
    DiagnosticsDelta,
    DiagnosticsReport,
    FileReason,
    FileStatus,
    Readiness,
)
from .servers import HandshakeTimeout, ServerHandle
from .units import diagnostic

if TYPE_CHECKING:
    from .workspace import Workspace

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

PULLS_AT_ONCE = 8
"""How many pull requests one server gets at a time."""


# -- readiness -------------------------------------------------------------------------------


async def ready(ws: Workspace, path_or_id: str | os.PathLike[str], timeout: float) -> Readiness:
    """Wait for the server named by id, or for every server of a file (opened first)."""
    began = time.monotonic()
    handles = [h for h in ws._handles.values() if h.spec.id == str(path_or_id)]
    if not handles:
        if str(path_or_id) in ws.registry and not ws.paths.absolute(path_or_id).exists():
            spec = ws.registry.get(str(path_or_id))
            handle_list = [h for h in ws._handles.values() if h.spec is spec]
            if not handle_list:
                raise ValueError(
                    f"the server {spec.id} has not been started here: name a file it checks"
                )
            handles = handle_list
        else:
            handles = await ws.open(path_or_id)
            if not handles:
                raise ValueError(f"no language server of this workspace takes {path_or_id}")
    answers = await asyncio.gather(*(wait_ready(h, began, timeout) for h in handles))
    # The slowest answer speaks for them all: one not ready makes the file not ready.
    order = {"timed_out": 0, "no_signal": 1, "ready": 2}
    return min(answers, key=lambda answer: order[answer.state])


async def wait_ready(handle: ServerHandle, began: float, timeout: float) -> Readiness:
    """Wait for one server's readiness until ``began + timeout`` (started first if need be)."""
    await handle.session()
    deadline = began + timeout
    while True:
        now = time.monotonic()
        if handle.state == "crashed":
            raise await handle.translate(LspError(ErrorCodes.InternalError, "it exited"))
        check = handle.readiness.check(now)
        if check.state != "waiting":
            return Readiness(check.state, check.source, now - began, check.phases)
        if now >= deadline:
            return Readiness("timed_out", check.source, now - began, check.phases)
        wake = deadline if check.recheck_at is None else min(check.recheck_at, deadline)
        await handle.changed.wait(max(0.0, wake - now))


# -- diagnostics -----------------------------------------------------------------------------


async def diagnostics(
    ws: Workspace,
    paths: Sequence[str | os.PathLike[str]] | None,
    timeout: float,
    *,
    skip_unreadable: bool = False,
) -> DiagnosticsReport:
    """``Workspace.diagnostics``; ``skip_unreadable`` reports a file that is not UTF-8 as
    not checked, as for the whole root (the command line checks the root in batches)."""
    deadline = time.monotonic() + timeout
    await ws.sync_disk()
    whole_root = paths is None or skip_unreadable
    if paths is None:
        files = ws.root_files()
    else:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        # One file named twice (``app.py`` and ``./app.py``) is checked once.
        files = list(dict.fromkeys(ws.file(path) for path in paths))
    items: list[Diagnostic] = []
    statuses: dict[str, FileStatus] = {}
    for start in range(0, len(files), max(1, ws.max_open_files)):
        batch = files[start : start + max(1, ws.max_open_files)]
        opened_here = [f for f in batch if ws.paths.uri(f) not in ws._open]
        await _check(ws, batch, deadline, items, statuses, skip_unreadable=whole_root)
        if len(files) > ws.max_open_files:
            for path in opened_here:
                await ws.close(path)
    items.sort(key=lambda d: (d.path, d.line, d.column, d.end_line, d.end_column, d.server))
    complete = all(status.complete for status in statuses.values())
    reasons = [s.reason for s in statuses.values() if not s.complete]
    reason: FileReason | None = None
    wanted: FileReason
    for wanted in ("server_crashed", "timeout", "unsupported"):
        if wanted in reasons:
            reason = wanted
            break
    return DiagnosticsReport(items, statuses, complete, reason)


async def _check(
    ws: Workspace,
    files: list[Path],
    deadline: float,
    items: list[Diagnostic],
    statuses: dict[str, FileStatus],
    *,
    skip_unreadable: bool = False,
) -> None:
    """Open ``files``, wait for their final diagnostics, and add them to ``items``.

    With ``skip_unreadable`` (the whole root), a file that is not UTF-8 text is reported
    as not checked (``unsupported``) instead of failing the others.
    """
    wanted: list[tuple[ServerHandle, str, Path]] = []
    for path in files:
        shown = ws.paths.relative(path)
        try:
            handles = await ws.open(path)
        except HandshakeTimeout:
            statuses[shown] = FileStatus(False, "timeout")
            continue
        except ValueError:
            if not skip_unreadable:
                raise
            statuses[shown] = FileStatus(False, "unsupported")
            continue
        if not handles:
            statuses[shown] = FileStatus(False, "unsupported")
            continue
        uri = ws.paths.uri(path)
        wanted.extend((handle, uri, path) for handle in handles)
    pulls = [
        asyncio.ensure_future(_pull_all(handle, [u for h, u, _ in wanted if h is handle], deadline))
        for handle in {h for h, _, _ in wanted}
    ]
    try:
        await _wait_final(ws, wanted, deadline)
    finally:
        for task in pulls:
            task.cancel()
        await asyncio.gather(*pulls, return_exceptions=True)
    now = time.monotonic()
    for handle, uri, path in wanted:
        shown = ws.paths.relative(path)
        status = handle.finality.status(uri, now)
        session = handle.live
        encoding = check_encoding((session.position_encoding if session else None) or "utf-16")
        for item in status.items:
            if isinstance(item, dict):
                items.append(
                    diagnostic(
                        ws.paths,
                        ws.texts,
                        uri,
                        item,
                        encoding,
                        handle.spec.id,
                        stale=not status.final,
                    )
                )
        previous = statuses.get(shown)
        if status.final:
            if previous is None:
                statuses[shown] = FileStatus(True)
        elif handle.state == "crashed":
            statuses[shown] = FileStatus(False, "server_crashed")
        elif previous is None or previous.complete:
            statuses[shown] = FileStatus(False, "timeout")


async def _pull_all(handle: ServerHandle, uris: list[str], deadline: float) -> None:
    """Pull the documents of a server that answers pulls, a few at a time."""
    limit = asyncio.Semaphore(PULLS_AT_ONCE)

    async def pull(uri: str) -> None:
        async with limit:
            session = handle.live
            while session is not None and uri in session.documents:
                if not session.supports("textDocument/diagnostic", uri):
                    # A server may register pulls later (basedpyright on a busy machine):
                    # wait for that within the deadline, while its pushes count meanwhile.
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return
                    if not await session.wait_for_capability(
                        "textDocument/diagnostic", uri, timeout=left
                    ):
                        return
                    continue
                version = session.documents[uri].version
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                try:
                    result = await session.document_diagnostics(uri, timeout=left)
                except StaleResultError:
                    continue  # the text changed meanwhile: pull the new one
                except LspError:
                    return  # a crash or a refusal: the wait reports it
                handle.finality.pulled(uri, version, list(result), time.monotonic())
                handle.changed.fire()
                return

    await asyncio.gather(*(pull(uri) for uri in uris))


async def _wait_final(
    ws: Workspace, wanted: list[tuple[ServerHandle, str, Path]], deadline: float
) -> None:
    """Sleep until every wanted document's diagnostics are final, or the deadline.

    Each wake looks only at the documents still waiting (a final one leaves the list), and
    sleeps until the earliest of their settle windows ends or a server says something.
    """
    waiting = [(handle, uri) for handle, uri, _ in wanted]
    while True:
        now = time.monotonic()
        still: list[tuple[ServerHandle, str]] = []
        wake = deadline
        for handle, uri in waiting:
            if handle.state == "crashed":
                continue
            status = handle.finality.status(uri, now)
            if status.final:
                continue
            still.append((handle, uri))
            if status.recheck_at is not None and status.recheck_at < wake:
                wake = status.recheck_at
        waiting = still
        if not waiting or now >= deadline:
            return
        await ws.changed.wait(max(0.0, wake - now))


# -- an edit and its delta -------------------------------------------------------------------


async def edit(
    ws: Workspace, path: str | os.PathLike[str], new_text: str, *, save: bool
) -> DiagnosticsDelta:
    full = ws.file(path)
    shown = ws.paths.relative(full)
    before = await diagnostics(ws, [full], ws.timeout)
    uri = ws.paths.uri(full)
    old_text = ws._open[uri].text
    if save:
        await ws.write(full, new_text)
    else:
        await ws.update(full, new_text)
    after = await diagnostics(ws, [full], ws.timeout)
    return delta_of(before.items, after, {shown: old_text}, {shown: new_text})


def delta_of(
    before: list[Diagnostic],
    after: DiagnosticsReport,
    old_texts: dict[str, str],
    new_texts: dict[str, str],
) -> DiagnosticsDelta:
    introduced, resolved, unchanged = diagnostics_delta(before, after.items, old_texts, new_texts)
    return DiagnosticsDelta(introduced, resolved, unchanged, after.complete, after.reason)
