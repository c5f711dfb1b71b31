"""Which file events a server's ``workspace/didChangeWatchedFiles`` watchers want.

A server registers ``workspace/didChangeWatchedFiles`` with ``{"watchers": [...]}``; each
``FileSystemWatcher`` has a ``globPattern`` (a glob string, or a ``RelativePattern``
``{baseUri, pattern}`` whose ``baseUri`` may also be a ``WorkspaceFolder``) and a ``kind``
(a bit set: 1 create, 2 change, 4 delete; all three when absent). A glob string is matched
against the path relative to the workspace root and against the absolute path (servers
write both ``**/*.py`` and absolute patterns); a relative pattern against the path relative
to its base. A watcher whose glob cannot be read matches nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..documents.uris import uri_to_path
from .globs import GlobError, compile_glob

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

CREATED, CHANGED, DELETED = 1, 2, 3
"""``FileChangeType``: what happened to a file."""

_KIND_BIT = {CREATED: 1, CHANGED: 2, DELETED: 4}


def _relative(path: str, base: str) -> str | None:
    base = base.rstrip("/")
    if path == base:
        return ""
    if path.startswith(base + "/"):
        return path[len(base) + 1 :]
    return None


def _watcher_matches(watcher: Any, path: str, root: str, kind: int) -> bool:
    if not isinstance(watcher, Mapping):
        return False
    wanted = watcher.get("kind", 7)
    if not isinstance(wanted, int) or not wanted & _KIND_BIT.get(kind, 0):
        return False
    pattern = watcher.get("globPattern")
    try:
        if isinstance(pattern, str):
            glob = compile_glob(pattern)
            inside = _relative(path, root)
            return glob.matches(path) or (inside is not None and glob.matches(inside))
        if isinstance(pattern, Mapping) and isinstance(pattern.get("pattern"), str):
            base = pattern.get("baseUri")
            if isinstance(base, Mapping):  # a WorkspaceFolder
                base = base.get("uri")
            base_path = uri_to_path(base) if isinstance(base, str) else None
            inside = None if base_path is None else _relative(path, base_path)
            return inside is not None and compile_glob(pattern["pattern"]).matches(inside)
    except GlobError:
        return False
    return False


def watched_changes(
    registrations: Iterable[Mapping[str, Any]],
    changes: Sequence[tuple[str, str, int]],
    root: str,
) -> list[dict[str, Any]]:
    """The ``FileEvent``\\ s of ``changes`` that some watcher of ``registrations`` (the
    register options of ``workspace/didChangeWatchedFiles``) wants, in order.

    ``changes`` are ``(uri, path, kind)`` with the file's absolute ``/``-separated path;
    ``root`` is the workspace root's path.
    """
    watchers = [
        watcher
        for options in registrations
        for watcher in (options.get("watchers") or [] if isinstance(options, Mapping) else [])
    ]
    return [
        {"uri": uri, "type": kind}
        for uri, path, kind in changes
        if any(_watcher_matches(watcher, path, root, kind) for watcher in watchers)
    ]
