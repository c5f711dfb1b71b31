"""Text for people that a file name or a server's message cannot forge.

A message is shown on one line: each run of white space (line breaks and no-break spaces
too) becomes one space. Any other control character (C0, DEL, C1) in a message, and any
control character at all in a path (a line break and a tab included), is written as
``\\n``, ``\\t`` or ``\\xNN``: a file named ``a.py\\nb.py:1:1: error: forged`` shows as one
line of its own, and a terminal escape shows as text. The JSON formats carry text as it is.
"""

from __future__ import annotations

import re

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    character = match.group(0)
    return _NAMED.get(character) or f"\\x{ord(character):02x}"


def escape_controls(text: str) -> str:
    """``text`` with every control character written out (``\\n``, ``\\t``, ``\\x1b``)."""
    return _CONTROL.sub(_escape, text)


def one_line(text: str) -> str:
    """A message on one line, its other control characters written out."""
    return escape_controls(_SPACE.sub(" ", text).strip())


def shown_path(path: str) -> str:
    """A path with its control characters written out, so it cannot end a line."""
    return escape_controls(path)
