"""Exact text replacements of the MCP ``edit`` tool, pure: each ``old`` found exactly once in
the text as the replacements before it left it, a symbol's whole lines replaced, and the
unified diff of the change (as the plans' diffs are). No I/O, no workspace."""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from typing_extensions import TypedDict

from ..protocol.documents.positions import LineIndex
from ..protocol.workspace.unified_diff import hunks
from . import shapes

# Internal to the library: nothing here is public API.
__all__: list[str] = []

Offsets = list[tuple[int, int, str]]
"""Text edits of one file: ``(start, end, new text)``, code point offsets of the old text."""

PLACES_SHOWN = 20
"""An ``old`` text found several times names this many of its places, then says how many more."""


class Replacement(TypedDict):
    """One replacement of an edit: ``old``, found exactly once, becomes ``new``."""

    old: Annotated[
        str,
        Field(
            min_length=1,
            description="Text of the file to replace, exactly as it is (whitespace and "
            "indentation included), found exactly once; take enough lines around the change "
            "to make it unique. In a notebook (.ipynb): text of one cell's source, as the "
            "cell shows it (not the notebook's JSON).",
        ),
    ]
    new: Annotated[str, Field(description="The text that replaces `old`.")]


def replace_all(text: str, pairs: Sequence[Replacement], shown: str) -> tuple[str, Offsets | None]:
    """``text`` with each ``old`` replaced by its ``new``, in order, and the replacements as
    edits of ``text`` (``None`` when one replaces text that an earlier one put in: then the
    two texts alone tell the change).

    Raises:
        ToolError: an ``old`` found zero or several times, saying how many and where.
    """
    current = text
    done: Offsets = []  # in offsets of ``text``, by start
    exact = True
    for number, pair in enumerate(pairs):
        old, new = pair["old"], pair["new"]
        places = occurrences(current, old)
        if len(places) != 1:
            raise ToolError(_miss(current, old, places, number, shown))
        at = places[0]
        current = current[:at] + new + current[at + len(old) :]
        if exact:
            span = _original_span(done, at, at + len(old))
            if span is None:
                exact = False
            else:
                insort(done, (span[0], span[1], new))
    if exact and _applied(text, done) != current:
        exact = False
    return current, done if exact else None


def occurrences(text: str, old: str) -> list[int]:
    """Where ``old`` starts in ``text``, overlapping occurrences too."""
    found: list[int] = []
    at = text.find(old)
    while at >= 0:
        found.append(at)
        at = text.find(old, at + 1)
    return found


def _original_span(done: Offsets, start: int, end: int) -> tuple[int, int] | None:
    """The span ``start``-``end`` of the text after the edits ``done`` as a span of the text
    before them; ``None`` when it meets text that one of them put in."""
    shift = 0
    for old_start, old_end, replacement in done:
        now_start = old_start + shift
        now_end = now_start + len(replacement)
        if end < now_start:
            break
        if start > now_end:
            shift += len(replacement) - (old_end - old_start)
            continue
        return None
    return start - shift, end - shift


def _applied(text: str, edits: Offsets) -> str:
    pieces: list[str] = []
    at = 0
    for start, end, replacement in edits:
        pieces += [text[at:start], replacement]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def quoted(old: str, number: int) -> str:
    """``edits[N]: the old text '...'`` of a message about an ``old`` text."""
    first = old.strip().splitlines()[0] if old.strip() else old
    said = repr(shapes.clip(first, 80))
    if "\n" in old.strip():
        said += " (and the lines after it)"
    return f"edits[{number}]: the old text {said}"


def _miss(text: str, old: str, places: list[int], number: int, shown: str) -> str:
    which = quoted(old, number)
    state = " (as the edits before it left it)" if number else ""
    if not places:
        return (
            f"{which} does not occur in {shown}{state}; nothing was changed. Copy it exactly "
            "from the file, whitespace and indentation included."
        )
    index = LineIndex(text, "utf-32")
    lines = [str(index.line_of(at) + 1) for at in places[:PLACES_SHOWN]]
    where = ", ".join(lines) + more(len(places))
    return (
        f"{which} occurs {len(places):,} times in {shown}{state} (at lines {where}); nothing "
        "was changed. Give more of the text around it, so that it occurs exactly once."
    )


def more(count: int) -> str:
    """`` and N more`` when ``count`` places are more than are named."""
    left = count - PLACES_SHOWN
    return f" and {left:,} more" if left > 0 else ""


def replace_lines(text: str, lines: tuple[int, int], new: str) -> tuple[str, Offsets]:
    """``text`` with its whole lines ``lines`` (first and last, 1-based) replaced by ``new``,
    a final line break added to it if missing (the file's kind of break); and that edit."""
    index = LineIndex(text, "utf-32")
    first, last = lines
    start = index.line_start(first - 1)
    end = index.line_start(last) if last < index.line_count else len(text)
    if new and not new.endswith(("\n", "\r")):
        ending = text[index.line_end(last - 1) : end]
        new += ending or ("\r\n" if "\r\n" in text else "\n")
    return text[:start] + new + text[end:], [(start, end, new)]


def file_diff(shown: str, old: str, new: str) -> str:
    """The unified diff of one file's change, as the plans' diffs are (``a/`` and ``b/``
    paths, lines split as git does)."""
    if old == new:
        return ""
    return f"diff --git a/{shown} b/{shown}\n" + hunks(old, new, f"a/{shown}", f"b/{shown}")
