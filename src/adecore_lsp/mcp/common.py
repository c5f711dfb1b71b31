"""What the tools of ``adecore-lsp mcp`` share: annotations, argument types, the result.

:mod:`.tools` (reading, navigating, restarting) and :mod:`.edit_tools` (renames, edits,
formatting, fixes) both build on this module, and on nothing of each other's but the one
``register`` of :mod:`.tools`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from ..protocol.documents.positions import LineIndex
from ..workspace.workspace import Workspace
from . import render, shapes
from .state import State, inside

# Internal to the library: nothing here is public API.
__all__: list[str] = []

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=True)
RESTARTS = ToolAnnotations(read_only_hint=False, destructive_hint=False)

UNITS = (
    "Paths are relative to the workspace root (or absolute inside it); lines and columns are "
    "1-based, columns counted in Unicode code points (not bytes, not UTF-16 units)."
)

TARGET = (
    "What to look at. One of: `path:LINE:COL` (a position, e.g. `src/app.py:12:9`), "
    "`path:LINE` (that line's first non-blank character), `path#Name` or `path#Class/method` "
    "(a name path in the file's outline, as the symbols tool shows it, e.g. "
    "`src/app.py#Greeter/greet`; `path#Class/method[1]` picks the second of same-named "
    "overloads), or a bare `Name` or `Class/method` looked up in the whole workspace. "
    "In a Jupyter notebook a position names its cell, numbered from 1 among all cells: "
    "`nb.ipynb:cell 3:2:5`; `nb.ipynb#name` is a name defined in any of its cells. "
    + UNITS
    + " A name is safer than a column: prefer `path#Class/method`."
)

MAX_CHARS = 20_000
"""The default budget of a tool's text, in characters (a context window's worth)."""

Ctx = Context[State, Any]
Target = Annotated[str, Field(description=TARGET)]
Limit = Annotated[int, Field(ge=1, le=1000)]
MaxChars = Annotated[
    int,
    Field(
        ge=200,
        le=1_000_000,
        description="At most this many characters of text in the answer (default 20000); "
        "a longer text is cut, saying so.",
    ),
]


def answer(text: str, structured: Any, max_chars: int = MAX_CHARS) -> CallToolResult:
    """A tool's answer: ``text`` within ``max_chars``, and its structured content."""
    return CallToolResult(
        content=[TextContent(type="text", text=render.budget(text, max_chars))],
        structured_content=structured,
    )


def line_of(ws: Workspace) -> shapes.LineOf:
    """The text of a line of a file, as the workspace has it (the open document, else the
    disk; a notebook cell's source line with ``cell``)."""
    from ..workspace.files.lines import line_of as workspace_line_of

    return workspace_line_of(ws)


def lines_in(texts: Mapping[str, str], otherwise: shapes.LineOf) -> shapes.LineOf:
    """The text of a line as ``texts`` have it (by path as the workspace shows it), else as
    ``otherwise`` says: a finding that an edit resolved is shown on its line before the
    edit, one that a preview would introduce on its line after it."""

    indexes: dict[str, LineIndex] = {}

    def line(path: str, number: int, cell: int | None = None) -> str | None:
        text = texts.get(path)
        if text is None or cell is not None:
            return otherwise(path, number, cell)
        index = indexes.get(path)
        if index is None:
            index = indexes[path] = LineIndex(text, "utf-32")
        if not 1 <= number <= index.line_count:
            return None
        return text[index.line_start(number - 1) : index.line_end(number - 1)]

    return line


def files(ws: Workspace, paths: list[str] | None) -> list[Path] | None:
    """The files of ``paths`` (a folder stands for its files that a server takes)."""
    if not paths:
        return None
    found: list[Path] = []
    every: list[Path] | None = None
    for path in paths:
        full = inside(ws, path)
        if not full.is_dir():
            found.append(full)
            continue
        every = ws.root_files() if every is None else every
        under = [file for file in every if full == ws.root or full in file.parents]
        if not under:
            raise ValueError(
                f"the folder {path} holds no file that a language server of this workspace takes"
            )
        found += under
    return found


def checked_paths(ws: Workspace, paths: list[str] | None) -> list[Path] | None:
    """``paths`` as ``Workspace.diagnostics`` takes them (a folder stays a folder: it stands
    for its files in each server's scope), each checked as :func:`files` checks it."""
    if not paths:
        return None
    files(ws, paths)  # a path outside the root, a folder of nothing: said
    return [inside(ws, path) for path in paths]
