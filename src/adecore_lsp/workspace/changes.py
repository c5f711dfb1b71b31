"""An edit of one file and what it broke: ``Workspace.edit`` and ``Workspace.preview_edit``.

Both take the diagnostics of the edited file and of every other open file before and after
(``changes.md``: a break in a file the edit did not touch is found), the servers told that
other files changed so that the files whose text is the same are asked again, and split
them by the one rule (:mod:`.delta`). The side before takes the answers already final for
the files' current texts as they are (a check just before has them), asking only for the
others. ``preview_edit`` writes nothing: the servers get the
new text as an unsaved change and the text the workspace had before afterwards, also when
the call is cancelled or times out.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import EditConflictError
from ..protocol.workspace.changes import Change
from ..write_path import WriteSet
from . import checking
from .delta import delta_of
from .model import Diagnostic, DiagnosticsDelta

if TYPE_CHECKING:
    from .open_files import OpenFile
    from .workspace import Workspace

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Edits = Sequence[tuple[int, int, str]]


def covered(ws: Workspace, edited: Sequence[Path]) -> list[Path]:
    """The files a delta covers: the edited ones, then every other open file a server has
    (each once). An open file no server has (a notebook of another kernel's language, a
    file that is no notebook) is left out: nothing is asked of it, and it would make the
    delta read as not final."""
    files = list(dict.fromkeys(edited))
    seen = set(files)
    handles = ws.server_choice.started()
    for uri, known in list(ws.open_files.items()):
        if (
            known.path not in seen
            and any(handle.has(uri) for handle in handles)
            and known.path.is_file()
        ):
            seen.add(known.path)
            files.append(known.path)
    return files


def others_changed(ws: Workspace) -> None:
    """Every server's other documents may have new diagnostics now: pulled again, and a
    push taken as final only after the server's settle window."""
    now = time.monotonic()
    for handle in ws.server_choice.started():
        handle.finality.others_changed(now)


async def edit(
    ws: Workspace,
    path: str | os.PathLike[str],
    new_text: str,
    *,
    save: bool,
    edits: Edits | None = None,
    expected: str | None = None,
) -> DiagnosticsDelta:
    """``Workspace.edit``: written through the write path with ``save`` (refused with
    ``EditConflictError`` when the file changed on disk since the workspace read it, or
    when it no longer holds ``expected``, the text ``new_text`` was made from)."""
    full = ws.file(path)
    files = covered(ws, [full])
    before = await checking.diagnostics(ws, files, ws.timeout, reuse=True)
    uri = ws.paths.uri(full)
    known = ws.open_files.get(uri)
    old_text = known.text if known is not None else None
    if old_text is None:
        # Not taken by any server: nothing was opened, the disk's text is the old one.
        from .files import read_text

        old_text = read_text(full)
    if expected is not None and old_text != expected:
        raise EditConflictError([ws.paths.relative(full)])
    if save:
        writes = WriteSet(ws.root, name=ws.paths.relative)
        writes.expect(full, old_text.encode("utf-8"))
        writes.write(full, new_text.encode("utf-8"))
        writes.commit()
        await ws.adopt(full, new_text)
        ws.announce([(full, 2)])
    else:
        await ws.update(full, new_text)
    others_changed(ws)
    after = await checking.diagnostics(ws, files, ws.timeout)
    shown = ws.paths.relative(full)
    return delta_of(before.items, after, {shown: Change(old_text, new_text, edits)})


async def preview(
    ws: Workspace, path: str | os.PathLike[str], new_text: str, *, edits: Edits | None = None
) -> DiagnosticsDelta:
    """``Workspace.preview_edit``: the delta ``new_text`` would cause, nothing written."""
    full = ws.file(path)
    files = covered(ws, [full])
    before = await checking.diagnostics(ws, files, ws.timeout, reuse=True)
    uri = ws.paths.uri(full)
    known = ws.open_files.get(uri)
    if known is None:
        # No server takes the file: the report says so (``unsupported``), nothing to send.
        return delta_of(before.items, before, {})
    old_text = known.text
    try:
        await ws.update(full, new_text)
        others_changed(ws)
        after = await checking.diagnostics(ws, files, ws.timeout)
    finally:
        # Shielded: a cancelled or timed-out call still gives the servers their text back.
        await asyncio.shield(_restore(ws, full, known))
    shown = ws.paths.relative(full)
    return delta_of(before.items, after, {shown: Change(old_text, new_text, edits)})


async def _restore(ws: Workspace, full: Path, known: OpenFile) -> None:
    """Give the servers back the text the workspace had before a preview: an unsaved one
    stays unsaved, the disk's is the disk's again (with what the disk was then, so that a
    change on disk meanwhile is still seen)."""
    if ws.closed:
        return
    uri = ws.open_files.keep(known)
    await ws.open_files.send(full, uri, known.text)
    others_changed(ws)


async def after_write(
    ws: Workspace,
    path: str | os.PathLike[str],
    old_text: str | None,
    timeout: float,
    known: Callable[[list[Path]], list[Diagnostic] | None] | None = None,
) -> DiagnosticsDelta:
    """What a write someone else made to ``path`` introduced and resolved, in it and in
    every other open file: its text on disk now against ``old_text``, its text before
    (``None``: the file is new, and nothing was before it).

    ``known`` may give the findings of those files as they were before the write (from a
    check made then): it is asked with the files, and ``None`` means it cannot. Otherwise
    the servers are shown ``old_text`` as an unsaved change and asked, then the disk's text
    again (also when the call is cancelled or times out)."""
    full = ws.file(path)
    files = covered(ws, [full])
    shown = ws.paths.relative(full)
    if old_text is None:
        after = await checking.diagnostics(ws, files, timeout)
        others = [item for item in after.items if item.path != shown]
        return delta_of(others, after, {})
    from .files import read_text

    new_text = read_text(full)
    before_items = known(files) if known is not None else None
    if before_items is None:
        await ws.update(full, old_text)
        try:
            others_changed(ws)
            before = await checking.diagnostics(ws, files, timeout)
        finally:
            await asyncio.shield(_back_to_disk(ws, full, new_text))
        before_items = before.items
    else:
        others_changed(ws)
    after = await checking.diagnostics(ws, covered(ws, [full]), timeout)
    return delta_of(before_items, after, {shown: Change(old_text, new_text)})


async def _back_to_disk(ws: Workspace, full: Path, text: str) -> None:
    """The servers told that ``full`` holds what the disk holds, ``text``."""
    if ws.closed:
        return
    await ws.adopt(full, text)
    others_changed(ws)
