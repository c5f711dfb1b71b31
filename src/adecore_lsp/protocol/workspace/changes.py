"""Old or new: the one rule that tells a finding after a change from one before it.

Pure: no I/O, no asyncio. A finding after a change is **old** when a finding before it has
the same path (as it is after the change), server, source and code, no lower a severity,
and either

- its range, carried through the change, still meets the new one's (overlaps or touches
  it), and its message is the same or differs only by what the change wrote: every word
  the new message has that the old one lacks is a number or a word of the text the change
  put in (in any file), or
- it sits on a line whose text is unchanged (leading and trailing blanks aside, so that a
  function moved into a class keeps its findings) and has the same message.

Each finding before matches at most one after; every other finding after is
**introduced** and every unmatched finding before is **resolved**. So a rename keeps the
error whose message now quotes the new name, while a call that newly lacks an argument
inside an older "no overloads match" error of that call, reported as that error with a new
line of argument types, is introduced.

Carrying a range: the change is taken as the spans of characters that differ between the
old and the new text. Given text edits, each edit is refined to the characters that differ
between what it replaced and what it put in, so that a position inside a replaced span
whose text survives keeps its place; given only the two texts, a line diff is refined to
characters within the changed lines. A start inside a changed span goes to where the span's
replacement begins, an end to where it ends.

Matching runs in three passes: a carried range that meets and the same message, then the
same line text and message, then a carried range that meets with a message that differs
by what the change wrote (a rename that changes the name the message quotes). Each pass
pairs the closest first, over all the findings it can pair (never in the order the findings
came), so an exact survivor is never taken by a look-alike, and the answer does not depend
on the order a server reported in.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import accumulate
from typing import Final, NamedTuple

# Internal to the library: the workspace layer uses it (adecore_lsp re-exports what is public).
__all__: list[str] = []

_BREAK: Final = re.compile(r"\r\n|\r|\n")
_WORD: Final = re.compile(r"[^\W\d]\w*")
"""A word of a message or a text: letters, digits and underscores, not starting with a
digit (a number in a message, such as a line's length, is no word of it)."""

REFINE_LIMIT: Final = 4_000_000
"""Above this product of the two sides' lengths, a changed span is not refined to
characters (a quadratic diff would cost more than the answer is worth): it is one span."""


class Finding(NamedTuple):
    """One finding as the rule sees it: positions 0-based, columns in code points;
    ``severity`` ranks higher for worse (error 4, warning 3, information 2, hint 1).

    A tuple, not a frozen dataclass: a delta makes one per finding of every changed file
    (9,000 for a rename of click's ``echo``), and a tuple is made in a fifth of the time."""

    path: str
    server: str
    source: str | None
    code: str | int | None
    severity: int
    line: int
    column: int
    end_line: int
    end_column: int
    message: str


@dataclass(frozen=True, slots=True)
class Change:
    """How one file's text changed: the two texts, and the text edits that made the new
    one from the old where they are known (``(start, end, new text)``, offsets in code
    points of the old text, not overlapping)."""

    old: str
    new: str
    edits: Sequence[tuple[int, int, str]] | None = None


@dataclass(frozen=True, slots=True)
class Split:
    """The findings after that are introduced and the findings before that are resolved
    (indices, in order), and which before each old finding after matched."""

    introduced: list[int]
    resolved: list[int]
    matched: dict[int, int] = field(default_factory=dict)
    """Index after → index before."""


_Span = tuple[int, int, int, int]
"""A changed span: old start, old end, new start, new end (offsets)."""


_ONE_MORE: Final = (1).__add__
"""A line's length with its break, applied in C (a genexpr costs a Python frame a line)."""


def _line_starts(text: str) -> list[int]:
    """The offset of each line's start; a text of ``\n`` line ends alone (most) is split in
    C, three times as fast as the pattern a text with ``\r`` needs."""
    if "\r" in text:
        return [0, *(match.end() for match in _BREAK.finditer(text))]
    return [0, *accumulate(map(_ONE_MORE, map(len, text.split("\n")[:-1])))]


def _breaks(text: str) -> int:
    """How many line breaks ``text`` holds (``\r\n`` is one)."""
    if "\r" in text:
        return len(_line_starts(text)) - 1
    return text.count("\n")


def _refine(old: str, new: str, at_old: int, at_new: int, spans: list[_Span]) -> None:
    """Add the spans where ``old`` (at ``at_old``) and ``new`` (at ``at_new``) differ."""
    head = 0
    size = min(len(old), len(new))
    while head < size and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < size - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    a, b = old[head : len(old) - tail], new[head : len(new) - tail]
    if not a and not b:
        return
    at_old, at_new = at_old + head, at_new + head
    if not a or not b or len(a) * len(b) > REFINE_LIMIT:
        spans.append((at_old, at_old + len(a), at_new, at_new + len(b)))
        return
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            spans.append((at_old + i1, at_old + i2, at_new + j1, at_new + j2))


PAIR_LIMIT: Final = 2_500
"""Above this product of the two sides' line counts, replaced lines are not paired by
likeness: the block is refined to characters as one."""

PAIR_RATIO: Final = 0.6
"""How alike a replaced line and a new line must be (difflib's ratio) to be taken as the
same line rewritten, rather than one line gone and another come."""


def _pair(
    old: Sequence[str],
    new: Sequence[str],
    at_old: int,
    at_new: int,
    spans: list[_Span],
) -> None:
    """Add the spans of a block of replaced lines: the most alike old and new line are the
    same line rewritten (refined to characters), the lines before and after them paired the
    same way, and a line left without a partner wholly removed or added. So a rewritten
    line with a line added below it keeps its findings on the rewritten line alone."""
    old_text, new_text = "".join(old), "".join(new)
    if not old or not new or len(old) * len(new) > PAIR_LIMIT:
        _refine(old_text, new_text, at_old, at_new, spans)
        return
    best = (PAIR_RATIO, -1, -1)
    for i, old_line in enumerate(old):
        for j, new_line in enumerate(new):
            matcher = SequenceMatcher(None, old_line, new_line, autojunk=False)
            if matcher.real_quick_ratio() > best[0] and matcher.quick_ratio() > best[0]:
                ratio = matcher.ratio()
                if ratio > best[0]:
                    best = (ratio, i, j)
    _ratio, i, j = best
    if i < 0:
        _refine(old_text, new_text, at_old, at_new, spans)
        return
    before_old, before_new = "".join(old[:i]), "".join(new[:j])
    _pair(old[:i], new[:j], at_old, at_new, spans)
    at_old, at_new = at_old + len(before_old), at_new + len(before_new)
    _refine(old[i], new[j], at_old, at_new, spans)
    _pair(old[i + 1 :], new[j + 1 :], at_old + len(old[i]), at_new + len(new[j]), spans)


def _refine_lines(old: str, new: str, at_old: int, at_new: int, spans: list[_Span]) -> None:
    """Add the spans where ``old`` and ``new`` (whole lines at ``at_old``/``at_new``)
    differ: a line diff, replaced lines paired by likeness, then characters."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    old_at = [at_old]
    for line in old_lines:
        old_at.append(old_at[-1] + len(line))
    new_at = [at_new]
    for line in new_lines:
        new_at.append(new_at[-1] + len(line))
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            _pair(old_lines[i1:i2], new_lines[j1:j2], old_at[i1], new_at[j1], spans)


def _spans_of_edits(change: Change) -> list[_Span]:
    """Each edit widened to the whole lines it touches, then refined as lines (an edit
    within one line, as a rename's are, refined to characters at once: the same spans,
    without a diff of lines). Edits whose lines meet, one of them across lines, are
    refined together, as one block: apart, their blocks would overlap."""
    old = change.old
    blocks: list[tuple[int, int, list[tuple[int, int, str]]]] = []
    for start, end, text in sorted(change.edits or (), key=lambda edit: (edit[0], edit[1])):
        line_start = max(old.rfind("\n", 0, start), old.rfind("\r", 0, start)) + 1
        line_end = len(old)
        for stop in (old.find("\n", end), old.find("\r", end)):
            if stop >= 0:
                line_end = min(line_end, stop)
        if blocks and line_start <= blocks[-1][1]:
            first, last, edits = blocks[-1]
            blocks[-1] = (first, max(last, line_end), [*edits, (start, end, text)])
        else:
            blocks.append((line_start, line_end, [(start, end, text)]))
    spans: list[_Span] = []
    shift = 0
    for line_start, line_end, edits in blocks:
        old_lines = old[line_start:line_end]
        new_each = [old[line_start:start] + text + old[end:line_end] for start, end, text in edits]
        if len(old_lines.splitlines()) <= 1 and all(len(n.splitlines()) <= 1 for n in new_each):
            # One line, each edit refined alone (a rename's two uses on a line: two spans).
            for (start, end, text), new_line in zip(edits, new_each, strict=True):
                _refine(old_lines, new_line, line_start, line_start + shift, spans)
                shift += len(text) - (end - start)
            continue
        pieces, at = [], line_start
        for start, end, text in edits:
            pieces += [old[at:start], text]
            at = end
        new_lines = "".join([*pieces, old[at:line_end]])
        _refine_lines(old_lines, new_lines, line_start, line_start + shift, spans)
        shift += len(new_lines) - len(old_lines)
    return spans


class SteadyLines:
    """The places of the old text that a change leaves as they were, at the same line and
    column: a finding before that starts and ends at such places is carried to the same
    line and column, so the same finding after it is the exact survivor the rule pairs
    first (a rename leaves most of its files' findings so). Made by :func:`steady_lines`."""

    def __init__(self, starts: list[int], length: int, touched: set[int], below: int) -> None:
        self._starts = starts
        self._length = length
        self._touched = touched
        self._below = below

    def hold(self, line: int, column: int, end_line: int, end_column: int) -> bool:
        """Whether a finding at these 0-based places lies where the change left the text:
        each end untouched, above the first edit that moves lines, and not past its line's
        end (a column past it is clamped, and two places clamped alike are one to the
        rule). Inlined for both ends: it runs for every finding of a changed file."""
        below, touched, starts = self._below, self._touched, self._starts
        if not (0 <= line < below and 0 <= end_line < below) or column < 0 or end_column < 0:
            return False
        if line in touched or end_line in touched:
            return False
        last = len(starts) - 1
        stop = starts[line + 1] if line < last else self._length + 1
        if starts[line] + column >= stop:
            return False
        stop = starts[end_line + 1] if end_line < last else self._length + 1
        return starts[end_line] + end_column < stop


def steady_lines(change: Change) -> SteadyLines | None:
    """Where ``change`` leaves the old text's lines as they were (:class:`SteadyLines`);
    ``None`` when its edits are not known."""
    if change.edits is None:
        return None
    old = change.old
    starts = _line_starts(old)
    touched: set[int] = set()
    below = len(starts)
    for start, end, text in sorted(change.edits, key=lambda edit: (edit[0], edit[1])):
        first = bisect_right(starts, start) - 1
        last = bisect_right(starts, end) - 1
        touched.update(range(first, last + 1))
        if _breaks(text) != _breaks(old[start:end]):
            # The lines after this edit move: none of them is at its number any more.
            below = last + 1
            break
    return SteadyLines(starts, len(old), touched, below)


def _spans_of_texts(change: Change) -> list[_Span]:
    spans: list[_Span] = []
    _refine_lines(change.old, change.new, 0, 0, spans)
    return spans


def _is_word(character: str) -> bool:
    return character.isalnum() or character == "_"


class _File:
    """One file's two texts, as lines and offsets, and the spans that changed. Without
    texts (a file that did not change), a position's offset stands in for itself: line
    and column in one number, in the same order."""

    __slots__ = ("_new_starts", "_old_starts", "new", "old", "span_starts", "spans")

    def __init__(self, change: Change | None) -> None:
        self.spans: list[_Span] = []
        self.old: str | None = None
        self.new: str | None = None
        # Line starts are found when a position is first read: the words a change wrote are
        # asked of every changed file, its positions only of those with findings left.
        self._old_starts: list[int] | None = None
        self._new_starts: list[int] | None = None
        if change is not None:
            self.old, self.new = change.old, change.new
            if change.old != change.new:
                edits = change.edits
                self.spans = (
                    _spans_of_edits(change) if edits is not None else _spans_of_texts(change)
                )
        self.span_starts = [span[0] for span in self.spans]

    def carry(self, offset: int, end: bool) -> int:
        """Where old ``offset`` is in the new text: a start inside a changed span goes to
        where its replacement begins, an end to where it ends."""
        at = bisect_left(self.span_starts, offset) - 1
        if at < 0:
            return offset
        _old_start, old_end, new_start, new_end = self.spans[at]
        if offset < old_end:
            return new_end if end else new_start
        return offset - old_end + new_end

    def _lines(self, new: bool) -> tuple[str | None, list[int]]:
        """The old or the new text and its line starts (none without texts)."""
        old = self.old
        if old is None or self.new is None:
            return None, []
        if self._old_starts is None:
            self._old_starts = _line_starts(old)
        if not new:
            return old, self._old_starts
        if self._new_starts is None:
            self._new_starts = self._old_starts if self.new == old else _line_starts(self.new)
        return self.new, self._new_starts

    def offset(self, new: bool, line: int, column: int) -> int:
        """The offset of a 0-based position in the old or the new text."""
        text, starts = self._lines(new)
        if text is None:
            return (line << 32) + min(column, (1 << 32) - 1)
        if line >= len(starts):
            return len(text)
        stop = starts[line + 1] if line + 1 < len(starts) else len(text)
        return min(starts[line] + column, stop)

    def written(self) -> set[str]:
        """The words of the new text that a changed span touches: what the change wrote,
        each word whole (a rename refined to the letters that differ writes the new name)."""
        words: set[str] = set()
        text = self.new or ""
        for _old_start, _old_end, start, end in self.spans:
            while start > 0 and _is_word(text[start - 1]):
                start -= 1
            while end < len(text) and _is_word(text[end]):
                end += 1
            words.update(_WORD.findall(text, start, end))
        return words

    def line_text(self, new: bool, line: int) -> object:
        """The text of a line, blanks around it aside (without texts: the line itself)."""
        text, starts = self._lines(new)
        if text is None:
            return line
        if line >= len(starts):
            return None
        stop = starts[line + 1] if line + 1 < len(starts) else len(text)
        return text[starts[line] : stop].strip()


class ChangedFiles:
    """The files of one change as the rule reads them (their changed spans, line starts, and
    the words the change wrote), made once for several splits of its findings: a split a
    file at a time (as each file's answer comes in) reads them once, not once a file."""

    __slots__ = ("_files", "_written", "changes")

    def __init__(self, changes: Mapping[str, Change]) -> None:
        self.changes = changes
        self._files: dict[str, _File] = {}
        self._written: set[str] | None = None

    def file(self, path: str) -> _File:
        """The file at ``path`` (one the change did not touch: its positions as they are)."""
        found = self._files.get(path)
        if found is None:
            found = self._files[path] = _File(self.changes.get(path))
        return found

    def written(self) -> set[str]:
        """Every word the change wrote, in any file."""
        if self._written is None:
            self._written = set()
            for path in self.changes:
                self._written.update(self.file(path).written())
        return self._written


def split_findings(
    before: Sequence[Finding],
    after: Sequence[Finding],
    changes: Mapping[str, Change],
    *,
    shared: ChangedFiles | None = None,
) -> Split:
    """Which findings ``after`` a change are introduced and which ``before`` it are
    resolved, by the rule of this module. ``changes`` holds the files whose text changed,
    by path; the findings of any other file are compared where they are. Findings before
    carry the path they have after the change (a renamed file's new path).

    A finding is only ever paired with one of its own path and server, so the findings may
    be split a path and server at a time, with the same answer: ``shared`` (made of the
    same ``changes``) then reads each changed file once for all the splits."""
    files = shared if shared is not None else ChangedFiles(changes)
    file_of, written_words = files.file, files.written

    carried: list[tuple[int, int]] = []
    for finding in before:
        file = file_of(finding.path)
        start = file.carry(file.offset(False, finding.line, finding.column), False)
        end = file.carry(file.offset(False, finding.end_line, finding.end_column), True)
        carried.append((start, max(start, end)))
    places: list[tuple[int, int]] = []
    for finding in after:
        file = file_of(finding.path)
        start = file.offset(True, finding.line, finding.column)
        end = file.offset(True, finding.end_line, finding.end_column)
        places.append((start, max(start, end)))
    taken_before = [False] * len(before)
    matched = _exact_survivors(before, after, carried, places, taken_before)

    # Per key, the findings before still free: their carried ranges in the new text, by
    # carried start.
    groups: dict[tuple[str, str, str | None, str | int | None], list[tuple[int, int, int]]] = {}
    by_line: dict[tuple[object, ...], list[tuple[int, int]]] = {}
    for number, finding in enumerate(before):
        if taken_before[number]:
            continue
        file = file_of(finding.path)
        key = (finding.path, finding.server, finding.source, finding.code)
        start, end = carried[number]
        groups.setdefault(key, []).append((start, end, number))
        text = file.line_text(False, finding.line)
        by_line.setdefault((*key, finding.message, text), []).append((number, start))
    widest: dict[object, int] = {}
    starts: dict[object, list[int]] = {}
    for key, group in groups.items():
        group.sort()
        widest[key] = max(end - start for start, end, _ in group)
        starts[key] = [start for start, _, _ in group]

    def explained(old: str, new: str) -> bool:
        """Whether message ``new`` differs from ``old`` only by what the change wrote."""
        gained = set(_WORD.findall(new)).difference(_WORD.findall(old))
        return not gained or gained <= written_words()

    def meeting(number: int, same_message: bool) -> list[tuple[int, int, int]]:
        """The free findings before whose carried range meets this one's, as
        ``(distance, number, number before)``."""
        finding = after[number]
        key = (finding.path, finding.server, finding.source, finding.code)
        group = groups.get(key)
        if group is None:
            return []
        start, end = places[number]
        found: list[tuple[int, int, int]] = []
        # Carried ranges that start at or before this one's end, back to the widest reach.
        for at in range(bisect_right(starts[key], end) - 1, -1, -1):
            old_start, old_end, old_number = group[at]
            if old_start < start - widest[key]:
                break
            if taken_before[old_number] or old_end < start:
                continue
            old = before[old_number]
            if old.severity < finding.severity:
                continue
            if same_message:
                if old.message != finding.message:
                    continue
            elif not explained(old.message, finding.message):
                continue
            found.append((abs(old_start - start) + abs(old_end - end), number, old_number))
        return found

    def same_line(number: int) -> list[tuple[int, int, int]]:
        finding = after[number]
        file = file_of(finding.path)
        text = file.line_text(True, finding.line)
        key = (finding.path, finding.server, finding.source, finding.code, finding.message, text)
        start = places[number][0]
        return [
            (abs(old_start - start), number, old_number)
            for old_number, old_start in by_line.get(key, ())
            if not taken_before[old_number] and before[old_number].severity >= finding.severity
        ]

    for find in (
        lambda number: meeting(number, True),
        same_line,
        lambda number: meeting(number, False),
    ):
        # The closest pairs first, over every finding this pass can pair; among equally
        # close ones, those of the same severity (a warning takes no error another same
        # error needs).
        candidates = [
            (distance, before[old_number].severity - after[number].severity, number, old_number)
            for at in range(len(after))
            if at not in matched
            for distance, number, old_number in find(at)
        ]
        candidates.sort()
        for _distance, _gap, number, old_number in candidates:
            if number not in matched and not taken_before[old_number]:
                matched[number] = old_number
                taken_before[old_number] = True
    introduced = [number for number in range(len(after)) if number not in matched]
    resolved = [number for number in range(len(before)) if not taken_before[number]]
    return Split(introduced, resolved, matched)


def _exact_survivors(
    before: Sequence[Finding],
    after: Sequence[Finding],
    carried: Sequence[tuple[int, int]],
    places: Sequence[tuple[int, int]],
    taken_before: list[bool],
) -> dict[int, int]:
    """The pairs the first pass would make first: a finding after and one before with the
    same key, message and severity, whose carried range is its range (distance 0, no
    severity gap). Among equal ones the rule pairs the lowest after with the lowest free
    before; so does this, and the passes then look only at what is left (most of a
    rename's findings are such survivors: 4,500 on click, each searched for in the passes
    before)."""
    exact: dict[tuple[object, ...], list[int]] = {}
    for number in reversed(range(len(before))):
        exact.setdefault(_exact(before[number], carried[number]), []).append(number)
    matched: dict[int, int] = {}
    for number, finding in enumerate(after):
        same = exact.get(_exact(finding, places[number]))
        if same:
            old_number = same.pop()
            matched[number] = old_number
            taken_before[old_number] = True
    return matched


def _exact(finding: Finding, place: tuple[int, int]) -> tuple[object, ...]:
    """What an exact survivor shares with its finding before: every field the first pass
    compares, and the range (carried, for a finding before)."""
    return (
        finding.path,
        finding.server,
        finding.source,
        finding.code,
        finding.message,
        finding.severity,
        place,
    )


_PATH_END: Final = r"(?=$|[/\s'\"`:,;()\[\]{}<>])"
"""What may follow a root named in a message: the rest of a path, or the end of the path."""


def moved_roots(message: str, moves: Sequence[tuple[str, str]]) -> str:
    """``message`` with each root ``old`` of ``moves`` that it names (as a path, or as the
    start of a ``file:`` URI) named ``new`` instead. A server's message about a copy of a
    repository (basedpyright names the files of an import cycle) then reads as the same
    message about the repository, and the rule compares the two as such; a name that only
    begins with ``old`` (``old2``) is not a mention of it."""
    roots = {old: new for old, new in moves if old and old in message}
    if not roots:
        return message
    mentions = "|".join(re.escape(old) for old in sorted(roots, key=len, reverse=True))
    return re.sub(f"(?:{mentions}){_PATH_END}", lambda found: roots[found.group(0)], message)
