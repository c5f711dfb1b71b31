"""What the checks floor needs of the workspace above it (a :class:`typing.Protocol`;
``Workspace`` is one): its servers for a file, the disk told to them, edits of open files,
the edit loop's state, and a twin on another folder for a revision's side."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

from ..files.needs import FileNeeds

if TYPE_CHECKING:
    from ..servers.handles import ServerHandle
    from ..servers.registry import Registry
    from ..servers.signal import Signal
    from .edit_loop import EditLoop


# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class CheckNeeds(FileNeeds, Protocol):
    """:class:`.FileNeeds` and what a check, an edit's delta and ``new_since`` ask of it."""

    edit_loop: EditLoop | None

    @property
    def timeout(self) -> float: ...

    @property
    def max_open_files(self) -> int: ...

    @property
    def registry(self) -> Registry: ...

    @property
    def config_root(self) -> Path: ...

    @property
    def trust(self) -> bool | None: ...

    @property
    def changed(self) -> Signal: ...

    @property
    def closed(self) -> bool: ...

    def takes(self, path: Path) -> bool: ...

    def handles_for(self, path: Path) -> list[ServerHandle]: ...

    def file(self, path: str | os.PathLike[str]) -> Path: ...

    def announce(self, changes: Sequence[tuple[Path, int]]) -> list[ServerHandle]: ...

    async def open(self, path: str | os.PathLike[str]) -> list[ServerHandle]: ...

    async def update(self, path: str | os.PathLike[str], text: str) -> None: ...

    async def adopt(self, path: Path, text: str) -> None: ...

    async def sync_disk(self) -> None: ...

    def twin(self, root: Path) -> CheckTwin:
        """A workspace like this one (its servers, registry, timeouts, trust and
        configuration) on ``root``: a checkout of a revision of this one's tree."""
        ...


class CheckTwin(CheckNeeds, Protocol):
    """:class:`CheckNeeds` used in ``async with``: its servers end with the block."""

    async def __aenter__(self) -> CheckTwin: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...
