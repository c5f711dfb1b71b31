"""What the edits floor needs of the workspace above it (a :class:`typing.Protocol`;
``Workspace`` is one): the edits servers send while a plan is made."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..questions.needs import QuestionNeeds

if TYPE_CHECKING:
    from ..servers.handles import ServerHandle


# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class EditNeeds(QuestionNeeds, Protocol):
    """:class:`.QuestionNeeds` and the ``workspace/applyEdit`` requests gathered for a plan."""

    def collecting(
        self, handles: Sequence[ServerHandle]
    ) -> contextlib.AbstractContextManager[list[tuple[Any, str]]]: ...
