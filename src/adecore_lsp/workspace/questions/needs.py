"""What the questions floor needs of the workspace above it (a :class:`typing.Protocol`;
``Workspace`` is one): a target made a place, and a file's servers asked in order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..checks.needs import CheckNeeds

if TYPE_CHECKING:
    from ...session import LspSession
    from ..model import Location
    from ..servers.handles import ServerHandle
    from .places import Place


# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class QuestionNeeds(CheckNeeds, Protocol):
    """:class:`.CheckNeeds` and the questions' own ways in."""

    async def place(
        self,
        target: str | Location | Place,
        *,
        base: Path | None = None,
        check: Callable[[str], object] | None = None,
        whole: bool = False,
    ) -> Place: ...

    async def first_answer(
        self,
        path: Path,
        method: str,
        call: Any,
        *,
        non_empty: bool = False,
        offset: int | None = None,
    ) -> tuple[ServerHandle, LspSession, Any]: ...

    async def ask(
        self,
        handles: Sequence[ServerHandle],
        method: str,
        call: Any,
        uri: str | None = None,
        non_empty: bool = False,
    ) -> tuple[ServerHandle, LspSession, Any]: ...

    def started(self) -> list[ServerHandle]: ...
