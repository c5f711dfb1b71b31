"""What the files floor needs of the workspace above it (a :class:`typing.Protocol`;
``Workspace`` is one): its root and units, its choice of servers, the files they take, the
open files, their texts, the root's stock, and closing by path.

A module of a floor takes its floor's ``needs`` Protocol, never the ``Workspace`` above it,
so it reads, tests and changes without the floors over it (``docs/architecture.md``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..disk.units import Paths, Texts
    from ..servers.notebook_view import NotebookView
    from ..servers.server_choice import ServerChoice
    from .disk_sync import TreeStock
    from .open_files import OpenFiles

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class FileNeeds(Protocol):
    """The root, the servers chosen for its files, and the files the workspace has open."""

    @property
    def root(self) -> Path: ...

    @property
    def paths(self) -> Paths: ...

    @property
    def server_choice(self) -> ServerChoice: ...

    @property
    def open_files(self) -> OpenFiles: ...

    @property
    def texts(self) -> Texts: ...

    @property
    def tree(self) -> TreeStock: ...

    def files_of(self, paths: Sequence[str | os.PathLike[str]]) -> list[Path]: ...

    def root_files(self, under: Path | None = None) -> list[Path]: ...

    def notebook(self, path_or_uri: str | os.PathLike[str]) -> NotebookView | None: ...

    async def close(self, path: str | os.PathLike[str]) -> None: ...
