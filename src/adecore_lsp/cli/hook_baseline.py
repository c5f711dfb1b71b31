"""The tree when an agent's turn began, and what changed in it since, by any means.

An agent edits through its edit tools, which the hook hears of, and through its shell (sed,
codemods, generators), which it does not. So the hook keeps a :class:`Baseline` when the
turn begins (the session's first call, and after each stop that let the agent go): every
file's size and modification time, and the text of each file a server takes that git's
``HEAD`` does not hold as it is (modified, staged or untracked; outside a repository, every
such file's text, up to :data:`MAX_TEXTS`). At a stop, a file whose stamp moved since was
changed by the turn; its text before is the turn's own record, the baseline's, or ``HEAD``'s.
git runs only its read-only plumbing (:mod:`adecore_lsp.workspace.disk.git`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..workspace.checks.revisions import committed_text
from ..workspace.disk import git
from ..workspace.disk.listing import NotUtf8Error, Stamp, read_text
from .hook_state import Baseline

if TYPE_CHECKING:
    from ..workspace.workspace import Workspace

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []

MAX_TEXTS = 8 << 20
"""The most text a baseline keeps, in characters; a file past it has no text before."""


def _listed(out: bytes) -> list[str]:
    return [name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]


def _entries(out: bytes) -> dict[str, str]:
    """``git ls-files -s`` or ``ls-tree -r`` lines: each path with its object id."""
    found: dict[str, str] = {}
    for line in _listed(out):
        head, _tab, name = line.partition("\t")
        words = head.split()
        if len(words) >= 3:
            found[name] = words[1] if len(words[1]) >= 40 else words[2]
    return found


def dirty(ws: Workspace) -> set[Path] | None:
    """The files of the root that ``HEAD`` does not hold as they are: modified, staged or
    untracked (not ignored); ``None`` outside a repository or when git cannot say."""
    top = git.repository_top(ws.root)
    if top is None:
        return None
    guarded = [ws.root, ws.config_root]
    try:
        changed = _listed(
            git.run(top, "ls-files", "-z", "-m", "-o", "--exclude-standard", guarded=guarded)
        )
        index = _entries(git.run(top, "ls-files", "-s", "-z", guarded=guarded))
    except git.GitError:
        return None
    try:
        head = _entries(git.run(top, "ls-tree", "-r", "-z", "HEAD", guarded=guarded))
    except git.GitError:
        head = {}  # no commit yet: nothing is as HEAD holds it
    staged = [name for name, blob in index.items() if head.get(name) != blob]
    staged += [name for name in head if name not in index]
    return {top / name for name in [*changed, *staged]}


def take(ws: Workspace, stamps: Mapping[str, Stamp]) -> Baseline:
    """The baseline of the tree whose files have ``stamps`` now (absolute paths)."""
    baseline = Baseline()
    for path, (size, mtime_ns, _ctime_ns) in stamps.items():
        baseline.stamps[ws.paths.relative(Path(path))] = (size, mtime_ns)
    changed = dirty(ws)
    baseline.git = changed is not None
    keep: list[Path] = (
        [Path(path) for path in sorted(stamps)]
        if changed is None
        else sorted(path for path in changed if os.fspath(path) in stamps)
    )
    room = MAX_TEXTS
    for kept in keep:
        if room <= 0 or not ws.takes(kept):
            continue
        try:
            text = read_text(kept)
        except (OSError, NotUtf8Error):
            continue
        if len(text) <= room:
            baseline.texts[ws.paths.relative(kept)] = text
            room -= len(text)
    return baseline


def changed_since(
    ws: Workspace, baseline: Baseline, stamps: Mapping[str, Stamp]
) -> tuple[dict[Path, str | None], list[str]]:
    """The files a server takes whose stamp moved since ``baseline`` (created, changed or
    deleted), each with its text before (``None``: created since), and the files whose text
    before nothing kept (not judged)."""
    now = {ws.paths.relative(Path(path)): (stamp[0], stamp[1]) for path, stamp in stamps.items()}
    found: dict[Path, str | None] = {}
    unknown: list[str] = []
    for shown in sorted(now.keys() | baseline.stamps.keys()):
        if now.get(shown) == baseline.stamps.get(shown):
            continue
        full = ws.paths.absolute(shown)
        if not ws.takes(full):
            continue
        if shown not in baseline.stamps:
            found[full] = None
        elif shown in baseline.texts:
            found[full] = baseline.texts[shown]
        elif baseline.git and (text := committed_text(ws, full)) is not None:
            found[full] = text
        else:
            unknown.append(shown)
    return found, unknown


def changed_since_head(ws: Workspace) -> dict[Path, str | None]:
    """The files a server takes that differ from git's ``HEAD``, each with its text there
    (``None``: not at ``HEAD``); nothing outside a repository."""
    found: dict[Path, str | None] = {}
    root = ws.root
    for path in sorted(dirty(ws) or ()):
        if (path == root or root in path.parents) and ws.takes(path):
            found[path] = committed_text(ws, path)
    return found
