"""Whether a started server has said it listed its project's files
(``ServerSpec.files_listed_logs``), so that no file reaches it before.

basedpyright 1.40 takes a file opened before its listing for a document of the editor alone:
closed, it leaves the project, and a rename of its symbols covers that file alone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

from ...session import LspSession

# Internal to the library: nothing here is public API.
__all__: list[str] = []

_logger = logging.getLogger("adecore_lsp")

FILES_LISTED_WAIT = 5.0
"""How long a start waits for the message by which a server says it has listed its
project's files before it opens a file there anyway (a server whose log level keeps that
message back)."""


class FilesListed:
    """The ``window/logMessage`` of one server session matching one of ``patterns``
    (``fnmatch``'s): :meth:`wait` returns once one came, or after :data:`FILES_LISTED_WAIT`."""

    __slots__ = ("_patterns", "_said", "_server")

    def __init__(self, server: str, patterns: Sequence[str], session: LspSession) -> None:
        self._server = server
        self._patterns = tuple(patterns)
        self._said = asyncio.Event()
        if self._patterns:
            session.on_notification("window/logMessage", self._logged)

    def _logged(self, params: Any) -> None:
        message = params.get("message") if isinstance(params, Mapping) else None
        if isinstance(message, str) and any(fnmatchcase(message, p) for p in self._patterns):
            self._said.set()

    async def wait(self) -> None:
        """Until the server said it (at once for a server with no patterns), or the wait ends."""
        if not self._patterns:
            return
        try:
            await asyncio.wait_for(self._said.wait(), FILES_LISTED_WAIT)
        except asyncio.TimeoutError:
            _logger.debug("%s did not say it listed its files", self._server)
