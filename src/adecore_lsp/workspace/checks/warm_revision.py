"""``new_since`` on warm servers: when a working tree differs from the revision only in the
text of files the servers already take, the revision's side is those files' old texts given
to the same servers as unsaved changes, then taken back; no copy, no second start.

The daemon keeps servers warm between commands, and a copy plus a cold start of every
server would cost many times the warm check itself. Anything else (a file added, deleted or
renamed, a configuration file changed, a file outside the root) goes through the copy,
where the servers see the revision's disk exactly.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...protocol.workspace.changes import Change
from ..disk.listing import leads_out
from ..model import DiagnosticsReport
from . import checking, scope_plan
from .changes import _restore, others_changed
from .delta import split

if TYPE_CHECKING:
    from ..files.open_files import OpenFile
    from .needs import CheckNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def warm(ws: CheckNeeds, changed: Sequence[Path]) -> bool:
    """Whether the revision's side can be taken in place: servers already run for each
    changed file, and each is a file of the root that one of them takes."""
    if not changed:
        return False
    for path in changed:
        if not path.is_file() or (path != ws.root and ws.root not in path.parents):
            return False
        if leads_out(ws.root, path):
            return False  # never read: the copy's side leaves it out of both sides
        if not ws.takes(path):
            return False
        handles = ws.handles_for(path)
        if not handles or any(handle.state != "running" for handle in handles):
            return False
    return True


async def in_place(
    ws: CheckNeeds,
    old_texts: Mapping[Path, str],
    paths: Sequence[str | os.PathLike[str]] | None,
    timeout: float,
) -> DiagnosticsReport:
    """The working tree's findings that the revision (``old_texts`` of the changed files)
    does not have, with ``resolved`` those of the revision that are gone."""
    # The files are found once, each given to the servers of its scope (``scopes``): the
    # revision's side checks the same ones.
    plan = scope_plan.plan_of(ws, paths)
    files = plan.files
    after = await checking.files_diagnostics(ws, files, timeout, servers=plan.servers)
    saved: dict[Path, OpenFile | None] = {
        path: ws.open_files.get(ws.paths.uri(path)) for path in old_texts
    }
    try:
        for path, text in old_texts.items():
            await ws.update(path, text)
        others_changed(ws)
        before = await checking.files_diagnostics(ws, files, timeout, servers=plan.servers)
    finally:
        # Shielded: a cancelled call still gives the servers the disk's texts back.
        await asyncio.shield(_put_back(ws, saved))
    changes = {
        ws.paths.relative(path): Change(text, _current(ws, path, saved[path]))
        for path, text in old_texts.items()
    }
    introduced, resolved, _unchanged = split(before.items, after.items, changes)
    complete = after.complete and before.complete
    reason = after.reason if not after.complete else before.reason
    resolved.sort(key=lambda d: (d.path, d.cell or 0, d.line, d.column, d.end_line, d.end_column))
    return DiagnosticsReport(introduced, after.files, complete, reason, resolved)


def _current(ws: CheckNeeds, path: Path, known: OpenFile | None) -> str:
    if known is not None:
        return known.text
    from ..disk.listing import read_text

    return read_text(path)


async def _put_back(ws: CheckNeeds, saved: Mapping[Path, OpenFile | None]) -> None:
    """The servers get back the text each file had: the disk's, or an unsaved one."""
    for path, known in saved.items():
        if known is not None:
            await _restore(ws, path, known)
        elif not ws.closed:
            await ws.close(path)
    others_changed(ws)
