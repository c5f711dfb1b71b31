"""The disk as :mod:`adecore_lsp.protocol.workspace.roots` sees it: which files exist, and
the text of a configuration, each looked at once for the life of the reader (a marker made
later does not move a running server's root)."""

from __future__ import annotations

import os
from pathlib import Path

from ...protocol.workspace.roots import repository_root
from .scopes import MAX_CONFIG_BYTES

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class DiskTree:
    """:class:`adecore_lsp.protocol.workspace.roots.Tree` over the disk, with a memory."""

    def __init__(self) -> None:
        self._exists: dict[str, bool] = {}
        self._texts: dict[str, str | None] = {}

    def exists(self, path: str) -> bool:
        known = self._exists.get(path)
        if known is None:
            known = self._exists[path] = os.path.lexists(path)
        return known

    def read(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = _read(path) if self.exists(path) else None
        return self._texts[path]


def _read(path: str) -> str | None:
    """A configuration's text; ``None`` for a folder, a file larger than
    ``MAX_CONFIG_BYTES``, one that cannot be read, or one that is not UTF-8."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_CONFIG_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_CONFIG_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def folders_up(folder: Path, top: Path | None = None) -> list[str]:
    """``folder`` and each folder above it, up to ``top`` (included) or to the file
    system's root, as ``/`` paths."""
    found = [folder.as_posix()]
    current = folder
    while current != top and current.parent != current:
        current = current.parent
        found.append(current.as_posix())
    return found


def repository_of(folder: Path, tree: DiskTree | None = None) -> Path | None:
    """The repository ``folder`` lies in (``roots.repository_root``): the outermost
    workspace folder below the nearest ``.git``, else that ``.git``'s folder; ``None``."""
    found = repository_root(folders_up(folder), tree or DiskTree())
    return None if found is None else Path(found)
