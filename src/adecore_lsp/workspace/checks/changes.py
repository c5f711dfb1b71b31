"""An edit of one file and what it broke: ``Workspace.edit``, ``Workspace.preview_edit``, and
a write someone else made (the hook's).

Each is checked in its affected set (the edited file and the files that depend on it,
:mod:`.affected`), not in every open file, through the workspace's edit loop
(:mod:`.edit_loop`): the side before takes the answers kept for the files' current texts and
asks only for the others; a dependent not open is opened for the question and closed after.
``preview_edit`` writes nothing: the servers get the new text as an unsaved change and the
text the workspace had before afterwards, also when the call is cancelled or times out.

A ``deadline`` (on the event loop's clock) bounds the whole call: the side before takes at
most half of what is left, and a file whose check did not finish in time is named in the
delta's ``not_reached`` (``complete: false``), never taken as clean.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import EditConflictError
from ...protocol.workspace.changes import Change
from ...write_path import WriteSet
from ..disk.listing import NotUtf8Error, read_text
from ..model import DiagnosticsDelta
from . import affected as affected_set
from .delta import Splitter
from .edit_loop import Known, Side, add, delta, loop_of, one_at_a_time, opened_for_the_question

if TYPE_CHECKING:
    from ..files.open_files import OpenFile
    from .needs import CheckNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Edits = Sequence[tuple[int, int, str]]


def others_changed(ws: CheckNeeds) -> None:
    """Every server's other documents may have new diagnostics now: pulled again, and a
    push taken as final only after the server's settle window."""
    now = time.monotonic()
    for handle in ws.server_choice.started():
        handle.finality.others_changed(now)


def ends_of(ws: CheckNeeds, deadline: float | None) -> float:
    """When a call ends: ``deadline``, else two of the workspace's timeouts from now (one for
    each side of the delta, as a caller without a deadline has always had)."""
    return deadline if deadline is not None else time.monotonic() + 2 * ws.timeout


def halfway(ends: float) -> float:
    """The end of the side before: half of the time left."""
    now = time.monotonic()
    return now + max(0.0, ends - now) / 2


@one_at_a_time
async def edit(
    ws: CheckNeeds,
    path: str | os.PathLike[str],
    new_text: str,
    *,
    save: bool,
    edits: Edits | None = None,
    expected: str | None = None,
    deadline: float | None = None,
) -> DiagnosticsDelta:
    """``Workspace.edit``: written through the write path with ``save`` (refused with
    ``EditConflictError`` when the file changed on disk since the workspace read it, or
    when it no longer holds ``expected``, the text ``new_text`` was made from)."""
    full = ws.file(path)
    ends = ends_of(ws, deadline)
    loop = loop_of(ws)
    await ws.sync_disk()
    loop.forget(ws, await loop.look(ws))
    uri = ws.paths.uri(full)
    known = ws.open_files.get(uri)
    old_text = known.text if known is not None else read_text(full)
    if expected is not None and old_text != expected:
        raise EditConflictError([ws.paths.relative(full)])
    found = await affected_set.affected(ws, loop, {full: (old_text, new_text)})
    splitter = Splitter({ws.paths.relative(full): Change(old_text, new_text, edits)})
    with opened_for_the_question(ws, found):
        before = await loop.before(ws, found, halfway(ends), {full: old_text})
        if save:
            writes = WriteSet(ws.root, name=ws.paths.relative)
            writes.expect(full, old_text.encode("utf-8"))
            writes.write(full, new_text.encode("utf-8"))
            writes.commit()
            await ws.adopt(full, new_text)
            ws.announce([(full, 2)])
            others_changed(ws)
            after = await loop.after_write(ws, found, before, ends, early=splitter)
        else:
            await ws.update(full, new_text)
            loop.answers.forget([ws.paths.relative(p) for p in found.files])
            others_changed(ws)
            after = await loop.after(ws, found, before, ends, early=splitter)
    return delta(ws, found, before, after, splitter)


@one_at_a_time
async def preview(
    ws: CheckNeeds,
    path: str | os.PathLike[str],
    new_text: str,
    *,
    edits: Edits | None = None,
    deadline: float | None = None,
) -> DiagnosticsDelta:
    """``Workspace.preview_edit``: the delta ``new_text`` would cause, nothing written."""
    full = ws.file(path)
    ends = ends_of(ws, deadline)
    loop = loop_of(ws)
    await ws.sync_disk()
    loop.forget(ws, await loop.look(ws))
    uri = ws.paths.uri(full)
    held = ws.open_files.get(uri)
    old_text = held.text if held is not None else None
    if old_text is None and ws.takes(full):
        await ws.open(full)
        held = ws.open_files.get(uri)
        old_text = held.text if held is not None else None
    found = await affected_set.affected(
        ws, loop, {full: (old_text if old_text is not None else new_text, new_text)}
    )
    with opened_for_the_question(ws, found):
        before = await loop.before(ws, found, halfway(ends))
        if held is None or old_text is None:
            # No server takes the file: the report says so (``unsupported``), nothing to send.
            return delta(ws, found, before, before, Splitter({}))
        try:
            await ws.update(full, new_text)
            others_changed(ws)
            # Not kept: the answers are for a text that is on no disk (unsaved).
            splitter = Splitter({ws.paths.relative(full): Change(old_text, new_text, edits)})
            after = await loop.after(ws, found, before, ends, early=splitter)
        finally:
            # Shielded: a cancelled or timed-out call still gives the servers their text back.
            await asyncio.shield(_restore(ws, full, held))
    return delta(ws, found, before, after, splitter)


async def _restore(ws: CheckNeeds, full: Path, known: OpenFile) -> None:
    """Give the servers back the text the workspace had before a preview: an unsaved one
    stays unsaved, the disk's is the disk's again (with what the disk was then, so that a
    change on disk meanwhile is still seen)."""
    if ws.closed:
        return
    uri = ws.open_files.keep(known)
    await ws.open_files.send(full, uri, known.text)
    others_changed(ws)


@one_at_a_time
async def after_writes(
    ws: CheckNeeds,
    old_texts: Mapping[Path, str | None],
    deadline: float,
    known: Known | None = None,
    *,
    use_kept: bool = True,
) -> DiagnosticsDelta:
    """What writes someone else made introduced and resolved, in the written files and the
    files that depend on them: each file's text on disk now against its text before in
    ``old_texts`` (``None``: the file is new, and nothing was before it).

    The side before takes the answers kept from before the writes, then ``known`` (a
    session's memory); for the other files (every file without ``use_kept``: the texts
    before are older than what was kept) the servers are shown the texts before as unsaved
    changes and asked, then given the disk's texts again (also when the call is cancelled or
    times out)."""
    loop = loop_of(ws)
    changes = await loop.look(ws)
    texts: dict[Path, tuple[str | None, str | None]] = {}
    for path, old in old_texts.items():
        try:
            texts[path] = (old, read_text(path))
        except (OSError, NotUtf8Error):
            texts[path] = (old, None)
    found = await affected_set.affected(ws, loop, texts)
    olds = {path: old for path, (old, _new) in texts.items() if old is not None}
    new_files = {path for path, (old, _new) in texts.items() if old is None}
    splitter = Splitter(
        {
            ws.paths.relative(path): Change(old, new)
            for path, (old, new) in texts.items()
            if old is not None and new is not None
        }
    )
    with opened_for_the_question(ws, found):
        # Kept from before the writes (the answers of what changed are forgotten after).
        side = loop.kept(ws, found, olds, known) if use_kept else Side()
        for path in new_files:
            side.reached.add(path)  # nothing was there before it
        loop.forget(ws, changes)
        missing = [path for path in found.files if path not in side.reached]
        if missing:
            shown_old = dict(olds)  # a deleted file too: what imported it resolved it
            saved = {path: ws.open_files.get(ws.paths.uri(path)) for path in shown_old}
            try:
                for path, text in shown_old.items():
                    await ws.update(path, text)
                others_changed(ws)
                report = await loop.check(ws, found, missing, halfway(deadline), reuse=False)
            finally:
                await asyncio.shield(_back_to_disk(ws, saved))
            add(ws, side, report, missing)
        others_changed(ws)
        after = await loop.after(ws, found, side, deadline, early=splitter)
    return delta(ws, found, side, after, splitter)


async def _back_to_disk(ws: CheckNeeds, saved: Mapping[Path, OpenFile | None]) -> None:
    """The servers told that each file holds what the disk holds (closed again when it was
    not open before)."""
    if ws.closed:
        return
    for path in saved:
        try:
            await ws.adopt(path, read_text(path))
        except (OSError, NotUtf8Error):
            ws.open_files.close(path)
    others_changed(ws)
