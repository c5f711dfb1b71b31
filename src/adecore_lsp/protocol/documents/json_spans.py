"""Where the values of a JSON text are: character spans found by scanning the raw text.

A notebook is edited in place (``notebooks.py``): only the spans of the values that change are
replaced, so the file keeps its own indentation, key order, escapes and line endings, which a
re-dump would not. The scanner trusts its input: call it on a text that a JSON parser has
accepted (``json.loads`` with NaN and Infinity refused), and it never fails. Whitespace is
JSON's own (space, tab, ``"\\n"``, ``"\\r"``), so CRLF files, any indentation and minified text
scan alike. Strings are skipped with ``str.find`` and the runs between brackets by regular
expressions, so a megabyte of base64 output costs a few C loops, not a Python step per
character.
"""

from __future__ import annotations

import json
import re
from typing import Final, NamedTuple

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

# Each pattern matches the empty string too, so a match from any position never fails.
_WHITESPACE: Final = re.compile(r"[ \t\n\r]*")
_SCALAR: Final = re.compile(r"[^ \t\n\r,\]}]*")  # a number, true, false or null
_PLAIN: Final = re.compile(r'[^"\[\]{}]*')  # inside a container: up to a string or a bracket


class Member(NamedTuple):
    """One ``"key": value`` of an object: the decoded key and where its parts are."""

    key: str
    key_start: int
    key_end: int
    value_start: int
    value_end: int


def _match_end(pattern: re.Pattern[str], text: str, position: int) -> int:
    """Where a match of ``pattern`` from ``position`` ends (each pattern here always matches)."""
    match = pattern.match(text, position)
    assert match is not None  # every pattern above matches the empty string
    return match.end()


def skip_whitespace(text: str, position: int) -> int:
    """The first position at or after ``position`` that is not JSON whitespace."""
    return _match_end(_WHITESPACE, text, position)


def _string_end(text: str, start: int) -> int:
    """The end of the string whose opening quote is at ``start`` (past its closing quote).

    ``str.find`` runs at memory speed over long strings (base64 images); a quote found is
    escaped when an odd number of backslashes precede it, and only those are counted.
    """
    position = start + 1
    while True:
        quote = text.find('"', position)
        before = quote - 1
        while text[before] == "\\":
            before -= 1
        if (quote - before) % 2:  # an even number of backslashes: the closing quote
            return quote + 1
        position = quote + 1


def value_end(text: str, start: int) -> int:
    """The end of the JSON value that begins at ``start``."""
    first = text[start]
    if first == '"':
        return _string_end(text, start)
    if first not in "[{":
        return _match_end(_SCALAR, text, start)
    depth = 0
    position = start
    while True:
        position = _match_end(_PLAIN, text, position)
        if text[position] == '"':
            position = _string_end(text, position)
            continue
        depth += 1 if text[position] in "[{" else -1
        position += 1
        if depth == 0:
            return position


def decode_string(text: str, start: int, end: int) -> str:
    """The value of the JSON string at ``text[start:end]``, quotes included."""
    inner = text[start + 1 : end - 1]
    if "\\" not in inner:
        return inner
    decoded: str = json.loads(text[start:end])
    return decoded


def object_members(text: str, start: int) -> list[Member]:
    """The members of the object whose ``{`` is at ``start``, in the text's order.

    A key written twice appears twice; a parser keeps the last, and so should the caller.
    """
    members: list[Member] = []
    position = skip_whitespace(text, start + 1)
    if text[position] == "}":
        return members
    while True:
        key_end = _string_end(text, position)
        colon = skip_whitespace(text, key_end)
        value_start = skip_whitespace(text, colon + 1)
        end = value_end(text, value_start)
        key = decode_string(text, position, key_end)
        members.append(Member(key, position, key_end, value_start, end))
        position = skip_whitespace(text, end)
        if text[position] == "}":
            return members
        position = skip_whitespace(text, position + 1)


def array_items(text: str, start: int) -> list[tuple[int, int]]:
    """The spans of the items of the array whose ``[`` is at ``start``."""
    items: list[tuple[int, int]] = []
    position = skip_whitespace(text, start + 1)
    if text[position] == "]":
        return items
    while True:
        end = value_end(text, position)
        items.append((position, end))
        position = skip_whitespace(text, end)
        if text[position] == "]":
            return items
        position = skip_whitespace(text, position + 1)


def last_member(members: list[Member], key: str) -> Member:
    """The member a parser keeps for ``key``, the last one written; the caller knows it is there."""
    return next(member for member in reversed(members) if member.key == key)
