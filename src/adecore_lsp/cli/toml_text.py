"""A table of a TOML file added and taken out again with ``tomlkit``, every other byte kept:
``agents setup`` writes Codex's ``[mcp_servers.adecore-lsp]`` this way. ``tomlkit`` parses
the file, places the table (beside the file's other ``mcp_servers``, or inside an inline
table of them) and escapes what it writes (a command path with a quote or a backslash);
only the blank lines around the table are set here, so that taking it out gives the text
back as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Table

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []


class TomlTextError(ValueError):
    """Text that is not TOML, or whose table is not one ``agents setup`` can add to."""


def _parse(text: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as error:
        raise TomlTextError(str(error)) from None
    except RecursionError:
        raise TomlTextError("tables or arrays nested too deep") from None


def _header(outer: str, name: str) -> str:
    return f"[{outer}.{name}]"


def with_table(text: str, outer: str, name: str, value: Mapping[str, Any]) -> str:
    """``text`` with the table ``[outer.name]`` holding ``value``; unchanged when the file
    has a table of that name.

    Raises:
        TomlTextError: ``text`` is not TOML, or ``outer`` is not a table.
    """
    doc = _parse(text)
    tables = doc.get(outer)
    if tables is not None and not isinstance(tables, (Table, InlineTable)):
        raise TomlTextError(f"{outer} is not a table")
    if tables is not None and name in tables:
        return text
    if isinstance(tables, InlineTable):
        inline = tomlkit.inline_table()
        inline.update(value)
        tables[name] = inline
        return doc.as_string()
    table = tomlkit.table()
    table.update(value)
    if tables is None:
        tables = tomlkit.table(is_super_table=True)
        tables[name] = table
        doc[outer] = tables
    else:
        tables[name] = table
    written = doc.as_string()
    # One blank line before the table (when something is before it) and after it (when
    # something follows): what ``without_table`` takes out with it.
    header = _header(outer, name)
    before, _, rest = written.partition(header)
    body_end = _block_end(rest)
    body, after = rest[:body_end].rstrip("\n") + "\n", rest[body_end:]
    before = before.rstrip("\n") + "\n\n" if before.strip() else ""
    after = "\n" + after.lstrip("\n") if after.strip() else ""
    return before + header + body + after


def _block_end(rest: str) -> int:
    """Where the table whose header starts ``rest`` ends, its blank lines included: at the
    next header or comment (which belongs to what follows), else the end."""
    lines = rest.splitlines(keepends=True)
    at = len(lines[0]) if lines else 0
    for line in lines[1:]:
        if line.lstrip().startswith(("[", "#")):
            break
        at += len(line)
    return at


def without_table(text: str, outer: str, name: str) -> str:
    """``text`` without the table ``[outer.name]`` (and ``outer`` itself when only that
    table made it), with the blank line ``with_table`` put beside it.

    Raises:
        TomlTextError: ``text`` is not TOML.
    """
    doc = _parse(text)
    tables = doc.get(outer)
    if not isinstance(tables, (Table, InlineTable)) or name not in tables:
        return text
    del tables[name]
    if not tables and isinstance(tables, Table) and tables.is_super_table():
        del doc[outer]
    wanted = doc.unwrap()
    header = _header(outer, name)
    found = text.find(header)
    if found >= 0 and (found == 0 or text[found - 1] == "\n"):
        rest = text[found:]
        end = found + _block_end(rest)
        before, after = text[:found], text[end:]
        if not after.strip() and before.endswith("\n\n"):
            before = before[:-1]
        shorter = before + after
        try:
            if tomlkit.parse(shorter).unwrap() == wanted:
                return shorter
        except TOMLKitError:
            pass
    return doc.as_string()  # written by another hand: tomlkit's own removal
