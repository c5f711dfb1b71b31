"""The disk as the truth: what changed under a workspace's open files and its root, told to
its servers (``workspace-api.md``, "the disk is the truth").

An open file that changed on disk is sent again; the files created, changed or deleted
under the root are announced to the servers whose watchers want them, and a server that
watches none is restarted when files came or went under its root.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...protocol.capabilities.watchers import CHANGED, CREATED, DELETED, watched_changes
from ..disk.listing import DiskState, Stamp, confined, read_text, tree_stock
from ..servers.untrusted_folders import CONFIGURATION_NAMES, ServerRefusedError

if TYPE_CHECKING:
    from ..servers.handles import ServerHandle
    from .needs import FileNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

WATCHED = "workspace/didChangeWatchedFiles"

SAME_TICK = 2.0
"""Seconds within which a file's times may not tell two writes apart (a coarse clock)."""

TREE_INTERVAL = 1.0
"""The least seconds between two looks at the root's files for what was created, changed
or deleted (for the servers that watch files)."""


class TreeStock:
    """The root's files as last looked at (``stock``, ``None`` until something needs it)
    and when (``at``): what changes between two looks is told to the servers that watch."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.stock: dict[str, Stamp] | None = None
        self.at = 0.0

    def scan(self) -> dict[str, Stamp]:
        """The root's files as they are now."""
        return tree_stock(self.root)

    def start(self) -> None:
        """Take stock the first time (a server began to watch files)."""
        if self.stock is None:
            self.stock = self.scan()
            self.at = time.monotonic()

    def watch(self) -> None:
        """Take stock the first time, and have the next look come at once."""
        if self.stock is None:
            self.stock = self.scan()
        # The next sync_disk looks at once, however recent the last look was.
        self.at = float("-inf")


async def sync_disk(ws: FileNeeds) -> None:
    """Make the servers see the disk as it is now.

    Every open file that changed on disk is sent again (an update not yet saved is kept). A
    file whose size and times are as last read is read again all the same when its
    ``st_ctime`` is less than ``SAME_TICK`` seconds older than that read: two writes within
    one tick of the file system's clock carry the same times. The files created, changed or
    deleted under the root since the last look are announced to the servers whose watchers
    want them; a server that watches none is restarted when files were created or deleted
    under its root; and the servers told of any change judge the diagnostics of their other
    files afresh. Before it is told, a running server whose own configuration now names a
    program, in a folder that is not trusted, is stopped (:mod:`.untrusted_folders`): it
    would read it with the next file it meets.
    """
    changes: list[tuple[Path, int]] = []
    sent: set[ServerHandle] = set()
    handles = ws.server_choice.handles
    for uri, known in list(ws.open_files.items()):
        if known.unsaved:
            continue
        disk = DiskState.of(known.path)
        if disk == known.disk and not _same_tick(disk, known.read_at):
            continue
        if disk is None:
            sent.update(h for h in handles if h.has(uri))
            await ws.close(known.path)
            changes.append((known.path, DELETED))
            continue
        read_at = time.time()
        try:
            text = read_text(confined(ws.root, known.path))
        except (OSError, ValueError):
            # Unreadable now (not UTF-8): forget the old text, so the next use of the
            # file reads it again and says why it cannot.
            sent.update(h for h in handles if h.has(uri))
            await ws.close(known.path)
            continue
        if disk != known.disk:
            changes.append((known.path, CHANGED))
        known.disk, known.read_at = disk, read_at
        if text != known.text:
            known.text = text
            with contextlib.suppress(ServerRefusedError):  # none takes it: none to tell
                sent.update(await ws.open_files.send(known.path, uri, text))
    tree = tree_changes(ws)
    changes.extend(tree)
    await _stop_refused(ws, changes)
    sent.update(announce(ws, changes))
    await _restart_unwatched(ws, tree)
    now = time.monotonic()
    for handle in sent:
        handle.finality.others_changed(now)


async def _stop_refused(ws: FileNeeds, changes: Sequence[tuple[Path, int]]) -> None:
    """When a configuration file came, changed or went, stop each running server that may
    not start now; its next start says why."""
    if not any(path.name in CONFIGURATION_NAMES for path, _kind in changes):
        return
    stale = [
        handle
        for handle in ws.server_choice.handles
        if handle.live is not None
        and handle.untrusted is not None
        and handle.untrusted.refusal(handle.spec, handle.root, fresh=True) is not None
    ]
    await asyncio.gather(*(handle.stop() for handle in stale))


def _same_tick(disk: DiskState | None, read_at: float) -> bool:
    """Whether a write after the read at ``read_at`` could carry the times ``disk`` has."""
    return disk is not None and read_at - disk.ctime_ns / 1e9 < SAME_TICK


async def _restart_unwatched(ws: FileNeeds, tree: Sequence[tuple[Path, int]]) -> None:
    """Restart the running servers that watch no files when files were created or deleted
    under their root: nothing else would tell them (documents re-opened)."""
    made = [path for path, kind in tree if kind != CHANGED]
    if not made:
        return
    stale = [
        handle
        for handle in ws.server_choice.handles
        if (session := handle.live) is not None
        and not session.registrations(WATCHED)
        and any(path.is_relative_to(handle.root) for path in made)
    ]
    await asyncio.gather(*(handle.restart() for handle in stale))


def tree_changes(ws: FileNeeds) -> list[tuple[Path, int]]:
    """The files created, changed or deleted under the root since the last look, while
    some server watches files or ``watch_tree`` was called (looked at most once every
    ``TREE_INTERVAL`` seconds, unless ``watch_tree`` asks for a look at once)."""
    stock = ws.tree
    before = stock.stock
    if before is None:
        return []
    now = time.monotonic()
    if now - stock.at < TREE_INTERVAL:
        return []
    tree = stock.scan()
    stock.stock, stock.at = tree, now
    found = [(Path(path), CREATED) for path in tree.keys() - before.keys()]
    found += [(Path(path), DELETED) for path in before.keys() - tree.keys()]
    found += [
        (Path(path), CHANGED)
        for path, stamp in tree.items()
        if (old := before.get(path)) is not None and old != stamp
    ]
    found.sort()
    return found


def announce(ws: FileNeeds, changes: Sequence[tuple[Path, int]]) -> list[ServerHandle]:
    """Tell each server whose file watchers want them of the files the workspace saw
    created (1), changed (2) or deleted (3); the servers told."""
    told: list[ServerHandle] = []
    if not changes:
        return told
    unique = list(dict.fromkeys(changes))
    _stocked(ws, unique)
    events = [(ws.paths.uri(path), str(path), kind) for path, kind in unique]
    for handle in ws.server_choice.handles:
        session = handle.live
        if session is None:
            continue
        wanted = watched_changes(session.registrations(WATCHED), events, str(ws.root))
        if wanted:
            session.notify(WATCHED, {"changes": wanted})
            told.append(handle)
    return told


def _stocked(ws: FileNeeds, changes: Sequence[tuple[Path, int]]) -> None:
    """The tree's stock as the announced files now are: a file the workspace wrote and told
    of itself is not told of again at the next look (a second ``didChangeWatchedFiles``
    makes every server judge its other files afresh, basedpyright refresh its pulls). Only
    files in the stock move (a file it leaves out, ignored or in ``.venv``, stays out)."""
    tree = ws.tree.stock
    if tree is None:
        return
    for path, _kind in changes:
        key = str(path)
        if key not in tree:
            continue
        try:
            status = os.stat(key)
        except OSError:
            del tree[key]
            continue
        tree[key] = (status.st_size, status.st_mtime_ns, status.st_ctime_ns)
