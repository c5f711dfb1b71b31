"""What an edit did to the diagnostics: introduced, resolved, unchanged, lines followed.

Pure: no I/O, no asyncio. A diagnostic before the edit is unchanged when one after it has
the same path, server, severity, code, source and message, on the line its line moved to.
Lines move as a line diff of the file's texts says (``difflib.SequenceMatcher`` over the
lines, after the common first and last lines are set aside, so a small edit of a large file
costs little):

- a line in a block that did not change maps to its new place, and its text being the
  same, the column must be the same too (two equal messages on one line match by column);
- a block replaced by one of as many lines maps line for line, columns not compared: a
  line edited in place keeps a diagnostic whose message did not change (a fix that did not
  work is not reported as one problem resolved and the same one introduced);
- lines of a block replaced by one of another size, or deleted, map nowhere.

A file missing from ``old_texts`` or ``new_texts`` is taken as unchanged: lines and columns
are compared as they are. Equal diagnostics are matched one to one, in order (a multiset).
Each after-diagnostic is found through an index by its key and place, so thousands cost
about as much as reading them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import deque
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from typing import Final

from .model import Diagnostic

# Internal to the library: Workspace.edit and apply return the delta as DiagnosticsDelta.
__all__: list[str] = []

_BREAK: Final = re.compile(r"\r\n|\r|\n")

_Key = tuple[str, str, str, str | int | None, str | None, str]


def _key(diagnostic: Diagnostic) -> _Key:
    return (
        diagnostic.path,
        diagnostic.server,
        diagnostic.severity,
        diagnostic.code,
        diagnostic.source,
        diagnostic.message,
    )


class _LineMap:
    """Old lines to new ones (1-based), and whether the line's text stayed the same."""

    __slots__ = ("_blocks", "_starts")

    def __init__(self, old: str, new: str) -> None:
        a, b = _BREAK.split(old), _BREAK.split(new)
        size = min(len(a), len(b))
        head = 0
        while head < size and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < size - head and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        # (old start, new start, length, same text), 0-based, in order of old start.
        blocks: list[tuple[int, int, int, bool]] = [(0, 0, head, True)]
        matcher = SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
                blocks.append((head + i1, head + j1, i2 - i1, tag == "equal"))
        blocks.append((len(a) - tail, len(b) - tail, tail, True))
        self._blocks = blocks
        self._starts = [block[0] for block in blocks]

    def find(self, line: int) -> tuple[int, bool] | None:
        """The new line of old ``line`` and whether its text is the same, or ``None``."""
        at = bisect_right(self._starts, line - 1) - 1
        if at < 0:
            return None
        start, new_start, length, same = self._blocks[at]
        if line - 1 >= start + length:
            return None
        return new_start + line - 1 - start + 1, same


class _Mapper:
    """The line maps of the files, made when a diagnostic of the file first needs one."""

    def __init__(self, old_texts: Mapping[str, str], new_texts: Mapping[str, str]) -> None:
        self.old_texts = old_texts
        self.new_texts = new_texts
        self.maps: dict[str, _LineMap | None] = {}

    def find(self, path: str, line: int) -> tuple[int, bool] | None:
        if path not in self.maps:
            old, new = self.old_texts.get(path), self.new_texts.get(path)
            if old is None or new is None or old == new:
                self.maps[path] = None
            else:
                self.maps[path] = _LineMap(old, new)
        found = self.maps[path]
        return (line, True) if found is None else found.find(line)


def diagnostics_delta(
    before: Sequence[Diagnostic],
    after: Sequence[Diagnostic],
    old_texts: Mapping[str, str] | None = None,
    new_texts: Mapping[str, str] | None = None,
) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
    """``(introduced, resolved, unchanged)`` between the diagnostics ``before`` an edit and
    ``after`` it, the texts of the edited files (by path) before and after telling where
    lines moved; see the module's docstring for the rules.

    ``introduced`` and ``unchanged`` (the diagnostics as they are after the edit) keep the
    order of ``after``, ``resolved`` that of ``before``.
    """
    mapper = _Mapper(old_texts or {}, new_texts or {})
    wanted = {_key(diagnostic) for diagnostic in before}
    # Per key, the after-diagnostics by (line, column) and by line, in order.
    by_place: dict[_Key, dict[tuple[int, int], deque[int]]] = {}
    by_line: dict[_Key, dict[int, deque[int]]] = {}
    for number, diagnostic in enumerate(after):
        key = _key(diagnostic)
        if key in wanted:
            place = (diagnostic.line, diagnostic.column)
            by_place.setdefault(key, {}).setdefault(place, deque()).append(number)
            by_line.setdefault(key, {}).setdefault(diagnostic.line, deque()).append(number)
    taken = [False] * len(after)
    resolved: list[Diagnostic] = []
    for diagnostic in before:
        key = _key(diagnostic)
        moved = mapper.find(diagnostic.path, diagnostic.line)
        candidates: deque[int] | None = None
        if moved is not None and key in by_place:
            line, same = moved
            if same:
                candidates = by_place[key].get((line, diagnostic.column))
            else:
                candidates = by_line[key].get(line)
        # Lines map one to one, so no after-diagnostic is a candidate of two old lines: the
        # index by place and the one by line never hand out the same one twice.
        if candidates:
            taken[candidates.popleft()] = True
        else:
            resolved.append(diagnostic)
    introduced = [diagnostic for number, diagnostic in enumerate(after) if not taken[number]]
    unchanged = [diagnostic for number, diagnostic in enumerate(after) if taken[number]]
    return introduced, resolved, unchanged
