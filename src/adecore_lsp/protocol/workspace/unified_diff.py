"""A file's unified diff, as git shows it, made from the text edits that changed it.

Pure: no I/O. A plan's diff of a rename of a widely used name spans dozens of files of
hundreds of lines each; a line diff (difflib) of each file's two texts looks at every line
again when the edits already say which lines changed. Here each edit names the old lines it
touches; the lines of a block of touched lines are compared with what the edits made of
them (difflib, on those few lines), the rest is unchanged by construction, and the hunks
are grouped with three lines of context as difflib groups them. Where the edits do not
make the new text (they are not the whole story), the two texts are diffed whole.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from difflib import SequenceMatcher, unified_diff
from itertools import accumulate
from typing import Final, Literal

# Internal to the library: edit_plans shows each file's diff through it.
__all__: list[str] = []

GIT_LINE: Final = re.compile(r"[^\n]*\n|[^\n]+\Z")
"""A line as git splits a text: up to and with its ``\\n``, or the last line without one."""
NO_NEWLINE: Final = "\n\\ No newline at end of file\n"
CONTEXT: Final = 3

Edit = tuple[int, int, str]
"""``(start, end, new text)``: offsets in code points of the old text."""
Tag = Literal["replace", "delete", "insert", "equal"]
Opcode = tuple[Tag, int, int, int, int]


def hunks(
    old: str, new: str, old_name: str, new_name: str, edits: Sequence[Edit] | None = None
) -> str:
    """The unified diff of ``old`` and ``new`` under the two names (empty when they are
    equal), made from ``edits`` when they are given and make ``new`` of ``old``."""
    old_lines, new_lines = git_lines(old), git_lines(new)
    opcodes = _opcodes_of_edits(old, old_lines, new_lines, edits) if edits else None
    if opcodes is None:
        lines: Iterator[str] = unified_diff(old_lines, new_lines, old_name, new_name)
    else:
        lines = _format(opcodes, old_lines, new_lines, old_name, new_name)
    pieces: list[str] = []
    for line in lines:
        pieces.append(line)
        if not line.endswith("\n"):  # only a last line lacks its ending: headers have one
            pieces.append(NO_NEWLINE)
    return "".join(pieces)


def git_lines(text: str) -> list[str]:
    """The lines of ``text`` as :data:`GIT_LINE` finds them, split at C speed (a rename's
    plan splits dozens of whole files, twice each)."""
    lines = text.split("\n")
    last = lines.pop()
    lines = [line + "\n" for line in lines]
    if last:
        lines.append(last)
    return lines


def _opcodes_of_edits(
    old: str, old_lines: list[str], new_lines: list[str], edits: Sequence[Edit]
) -> list[Opcode] | None:
    """difflib's opcodes of the two line lists, found from ``edits``; None when the edits
    overlap, leave the text or do not make the new lines."""
    starts = [0, *accumulate(map(len, old_lines))]
    count = len(old_lines)

    def line_of(offset: int) -> int:
        line = bisect_right(starts, offset) - 1
        if line < count:
            return line
        # The text's end: after its last line break, or on its last line when it has none.
        return count if count == 0 or old_lines[-1].endswith("\n") else count - 1

    ordered = sorted(edits, key=lambda edit: (edit[0], edit[1]))
    opcodes: list[Opcode] = []
    shift = 0  # new lines less old lines, over the blocks so far
    done = 0  # the old lines before this are placed
    at = 0
    while at < len(ordered):
        first, last = _lines_of(ordered[at], line_of)
        block = [ordered[at]]
        at += 1
        while True:
            while at < len(ordered) and line_of(ordered[at][0]) <= last + 1:
                last = max(last, _lines_of(ordered[at], line_of)[1])
                block.append(ordered[at])
                at += 1
            made = _apply(old, starts[first], starts[min(last + 1, count)], block)
            if made is None:
                return None
            if made and not made.endswith("\n") and last + 1 < count:
                last += 1  # the block's end joins the next line: take that line too
                continue
            break
        block_old = old_lines[first : last + 1]
        block_new = git_lines(made)
        begin = first + shift
        if (
            first < done
            or old_lines[done:first] != new_lines[done + shift : begin]
            or new_lines[begin : begin + len(block_new)] != block_new
        ):
            return None
        _add(opcodes, ("equal", done, first, done + shift, begin))
        if len(block_old) == len(block_new) == 1:
            # One line rewritten (a rename's every use): what difflib says of two lines.
            tag: Tag = "equal" if block_old == block_new else "replace"
            _add(opcodes, (tag, first, first + 1, begin, begin + 1))
        else:
            matcher = SequenceMatcher(None, block_old, block_new)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                _add(opcodes, (tag, first + i1, first + i2, begin + j1, begin + j2))
        shift += len(block_new) - len(block_old)
        done = last + 1
    if len(new_lines) - count != shift or old_lines[done:] != new_lines[done + shift :]:
        return None
    _add(opcodes, ("equal", done, count, done + shift, len(new_lines)))
    return opcodes


def _lines_of(edit: Edit, line_of: Callable[[int], int]) -> tuple[int, int]:
    """The first and last old line an edit touches (an insertion: the line it is put in)."""
    start, end, _text = edit
    first = line_of(start)
    return first, (max(first, line_of(end - 1)) if end > start else first)


def _apply(old: str, begin: int, end: int, block: Sequence[Edit]) -> str | None:
    """The old text from ``begin`` to ``end`` with the block's edits made; None when an edit
    overlaps the one before it or leaves the span."""
    pieces: list[str] = []
    at = begin
    for start, stop, text in block:
        if start < at or stop > end or stop < start:
            return None
        pieces.append(old[at:start])
        pieces.append(text)
        at = stop
    pieces.append(old[at:end])
    return "".join(pieces)


def _add(opcodes: list[Opcode], opcode: Opcode) -> None:
    """Append ``opcode``, dropping an empty one and joining two equal runs in a row."""
    tag, i1, i2, j1, j2 = opcode
    if i1 == i2 and j1 == j2:
        return
    if tag == "equal" and opcodes and opcodes[-1][0] == "equal":
        _tag, k1, _k2, l1, _l2 = opcodes.pop()
        opcode = ("equal", k1, i2, l1, j2)
    opcodes.append(opcode)


class _Known(SequenceMatcher[str]):
    """A matcher whose opcodes are known already: difflib groups them into hunks."""

    def __init__(self, opcodes: list[Opcode]) -> None:
        super().__init__(None, [], [])
        self._known = opcodes

    def get_opcodes(self) -> list[Opcode]:
        return list(self._known)


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as difflib writes it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _format(
    opcodes: list[Opcode],
    old_lines: Sequence[str],
    new_lines: Sequence[str],
    old_name: str,
    new_name: str,
) -> Iterator[str]:
    """The unified diff's lines of known opcodes (difflib's format, three lines of
    context)."""
    started = False
    for group in _Known(opcodes).get_grouped_opcodes(CONTEXT):
        if not started:
            started = True
            yield f"--- {old_name}\n"
            yield f"+++ {new_name}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in old_lines[i1:i2])
                continue
            yield from ("-" + line for line in old_lines[i1:i2])
            yield from ("+" + line for line in new_lines[j1:j2])
