"""JSON with comments and trailing commas, as ``tsconfig.json`` and ``pyrightconfig.json``
are written and as TypeScript and pyright read them: ``//`` and ``/* */`` comments outside
strings, and a comma before ``]`` or ``}``, are allowed. Sans-I/O: text in, values out."""

from __future__ import annotations

import json
from typing import Any

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

TOO_DEEP = "nested too deeply to be read"
"""Why a text nested deeper than Python's parsers go is not read."""


def loads(text: str) -> Any:
    """The value of a JSON text that may hold comments and trailing commas.

    Raises:
        ValueError: the text is not such JSON; the message says where (line and column).
            A text nested deeper than the parser goes (a repository's 100,000 ``[``) is
            such a text too, never a ``RecursionError``.
    """
    try:
        return json.loads(_plain(text.removeprefix("\ufeff")))
    except json.JSONDecodeError as error:
        raise ValueError(f"line {error.lineno} column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise ValueError(TOO_DEEP) from None


def _plain(text: str) -> str:
    """``text`` with its comments blanked (line breaks kept, so that an error's line and
    column are those of the file) and its trailing commas dropped."""
    out: list[str] = []
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char == '"':
            end = _string_end(text, index)
            out.append(text[index:end])
            index = end
        elif text.startswith("//", index):
            end = text.find("\n", index)
            end = length if end == -1 else end
            out.append(" " * (end - index))
            index = end
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = length if end == -1 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[index:end]))
            index = end
        elif char == "," and _closes(text, index + 1):
            out.append(" ")
            index += 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """The index just past the string that opens at ``start`` (the text's end if it does
    not close: the JSON parser then says so)."""
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == '"':
            return index + 1
        index += 1
    return len(text)


def _closes(text: str, index: int) -> bool:
    """Whether the next thing after ``index`` (white space and comments skipped) closes an
    array or an object: a comma before it is a trailing one."""
    length = len(text)
    while index < length:
        if text[index] in " \t\r\n":
            index += 1
        elif text.startswith("//", index):
            end = text.find("\n", index)
            index = length if end == -1 else end
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            index = length if end == -1 else end + 2
        else:
            return text[index] in "]}"
    return False
