"""The daemon's internal wire format: one JSON object a line, over a Unix domain socket.

Both sides first send ``{"hello": VERSION}``. The caller then asks one thing:
``{"run": {"argv", "cwd", "env", "tty": {"out", "err"}}}`` (a command; the daemon answers
``{"out": text}`` and ``{"err": text}`` as the command writes, then ``{"exit": status}``;
``{"cancel": true}`` from the caller meanwhile cancels it), ``{"status": {}}`` (answered
``{"status": {...}}``) or ``{"stop": {}}`` (answered ``{"stopping": true}``, the connection
closing once every server is down). Standard library only: the caller's side imports it.
"""

from __future__ import annotations

import json

from .._version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on the client's path
if TYPE_CHECKING:
    from typing import Any

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

VERSION = __version__
"""Client and daemon talk only when their versions are the same."""

MAX_LINE = 64 * 1024 * 1024
"""The longest line either side reads (an environment, a large diff)."""


def encode(message: dict[str, Any]) -> bytes:
    """One line of the wire. Text that is not valid Unicode (file names read with
    ``surrogateescape``) travels as escapes and comes back as it was."""
    return json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """One message, or ``ValueError`` for a line that is not one."""
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError(f"not a message of the daemon's wire: {line[:80]!r}")
    return message
