"""LSP positions and Python string offsets, in each ``PositionEncodingKind``.

An LSP position is a zero-based ``line`` and a ``character`` counted in the negotiated
encoding: UTF-8 bytes (``"utf-8"``), UTF-16 code units (``"utf-16"``, the default) or code
points (``"utf-32"``, the same as a Python ``str`` index). :class:`LineIndex` finds the line
starts of a text once and converts in both directions.

The rules, the same in every direction:

- Lines break at ``"\\n"``, ``"\\r\\n"`` and ``"\\r"`` only, never at the other characters
  ``str.splitlines`` uses (``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028``,
  ``\\u2029``). A text ending with a break has an empty last line.
- A line's end excludes its break. A character past the end of its line means the line's end;
  a line past the last one means the end of the text; a negative line or character means 0.
- A character inside a code point (the second unit of a surrogate pair in UTF-16, a
  continuation byte in UTF-8) rounds down to the start of that code point.
- An offset outside ``[0, len(text)]`` is clamped. An offset between the ``"\\r"`` and the
  ``"\\n"`` of a ``"\\r\\n"`` break, which no position can name, gives the end of its line.
- A position or range that is not a mapping with integer members (``None``, ``1.0``, ``"1"``
  and ``True`` are not integers) raises :class:`ValueError` naming the member: positions come
  from servers, and one bad answer must fail that answer alone.

Code points that are lone surrogates (not valid Unicode, but possible in a ``str``) count as
one UTF-16 unit and three UTF-8 bytes, as ``surrogatepass`` encodes them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping
from itertools import accumulate
from typing import Any, Final, Literal, TypedDict

# Public, re-exported by adecore_lsp; the checks and helpers below serve the document model.
__all__ = ["LineIndex", "Position", "PositionEncoding", "Range"]

PositionEncoding = Literal["utf-8", "utf-16", "utf-32"]
"""A ``PositionEncodingKind`` this module converts."""

KNOWN_ENCODINGS: Final[tuple[PositionEncoding, ...]] = ("utf-8", "utf-16", "utf-32")
"""Every encoding :class:`LineIndex` understands."""


class Position(TypedDict):
    """An LSP ``Position``: zero-based line, and character in the position encoding."""

    line: int
    character: int


class Range(TypedDict):
    """An LSP ``Range``: from ``start`` (included) to ``end`` (excluded)."""

    start: Position
    end: Position


_BREAK: Final = re.compile(r"\r\n?|\n")
_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")


def check_encoding(encoding: object) -> PositionEncoding:
    """Return ``encoding`` if it is ``"utf-8"``, ``"utf-16"`` or ``"utf-32"``.

    Raises:
        ValueError: for any other value, naming it.
    """
    if encoding in KNOWN_ENCODINGS:
        return encoding
    raise ValueError(
        f"unknown position encoding {encoding!r}; expected one of {', '.join(KNOWN_ENCODINGS)}"
    )


def _integer(value: Mapping[str, Any], key: str, what: str) -> int:
    """The integer member ``key`` of a position; a clear ValueError for anything else."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} must be an object with 'line' and 'character', got {value!r}")
    try:
        member = value[key]
    except KeyError:
        raise ValueError(f"{what} has no {key!r}: {dict(value)!r}") from None
    if type(member) is not int:
        # bool is an int subclass, and 1.0 or "1" are not LSP uintegers either.
        if not (isinstance(member, int) and not isinstance(member, bool)):
            raise ValueError(f"{what} {key!r} must be an integer, got {member!r}")
        member = int(member)
    return member


def position_tuple(position: Mapping[str, Any], what: str = "position") -> tuple[int, int]:
    """``(line, character)`` of a position mapping, checked to be integers (not clamped).

    Raises:
        ValueError: if it is not a mapping, or ``line`` or ``character`` is missing or not
            an integer; the message names ``what`` and the member.
    """
    if type(position) is dict:
        line, character = position.get("line"), position.get("character")
        if type(line) is int and type(character) is int:
            return line, character
    return _integer(position, "line", what), _integer(position, "character", what)


def range_tuples(
    range_: Mapping[str, Any], what: str = "range"
) -> tuple[tuple[int, int], tuple[int, int]]:
    """The ``start`` and ``end`` of a range mapping as ``(line, character)`` pairs.

    Raises:
        ValueError: if it is not a range of integer positions, or ends before it starts.
    """
    if not isinstance(range_, Mapping):
        raise ValueError(f"{what} must be an object with 'start' and 'end', got {range_!r}")
    if "start" not in range_ or "end" not in range_:
        raise ValueError(f"{what} needs 'start' and 'end': {dict(range_)!r}")
    start = position_tuple(range_["start"], f"{what} start")
    end = position_tuple(range_["end"], f"{what} end")
    if end < start:
        raise ValueError(f"{what} ends before it starts: {dict(range_)!r}")
    return start, end


def _line_starts(text: str) -> list[int]:
    """The offset of every line start, in one pass at C speed where possible."""
    if "\r" not in text or text.count("\r") == text.count("\r\n"):
        # Only "\n" and "\r\n" breaks: splitting at "\n" finds them all.
        return list(accumulate(map((1).__add__, map(len, text.split("\n")[:-1])), initial=0))
    return [0, *(match.end() for match in _BREAK.finditer(text))]


def _starts_within(text: str, low: int, last: int) -> list[int]:
    """The line starts after the breaks found from ``low`` on, up to ``last`` (a break found
    from ``low``, as the pattern reads it there, ending at ``last`` at the latest). The
    edit of a rename spans most of a file: split at C speed where it has no ``\r``."""
    segment = text[low : last + 1]
    if "\r" in segment:
        return [
            match.end() for match in _BREAK.finditer(text, low, last + 1) if match.end() <= last
        ]
    found = list(accumulate(map((1).__add__, map(len, segment.split("\n")[:-1])), initial=low))
    del found[0]
    if found and found[-1] > last:
        found.pop()
    return found


class LineIndex:
    """The line starts of one text, for converting offsets and positions in one encoding.

    Building it scans the text once; a conversion is a binary search plus, on a line that
    is not ASCII, work proportional to that line. Positions use ``encoding`` (validated).
    """

    __slots__ = ("_encoding", "_shift", "_shift_from", "_starts", "_text")

    # Line starts are kept like a gap buffer: ``_starts[j]`` is the offset of line j for
    # j < _shift_from, and that offset minus ``_shift`` from there on. An edit shifts every
    # later line by changing ``_shift`` alone; only the entries between two successive edit
    # sites are rewritten, so typing in one place costs nothing per line of the file.

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        """Index ``text`` for positions in ``encoding``.

        Raises:
            ValueError: for an unknown encoding.
            TypeError: if ``text`` is not a ``str``.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        self._encoding: PositionEncoding = check_encoding(encoding)
        self._text = text
        self._starts = _line_starts(text)
        self._shift_from = len(self._starts)
        self._shift = 0

    def __repr__(self) -> str:
        return f"<LineIndex {self.line_count} lines, {len(self._text)} chars, {self._encoding}>"

    @property
    def text(self) -> str:
        """The indexed text."""
        return self._text

    @property
    def encoding(self) -> PositionEncoding:
        """The encoding of the positions this index reads and writes."""
        return self._encoding

    @property
    def line_count(self) -> int:
        """How many lines the text has (at least 1; a final break starts an empty line)."""
        return len(self._starts)

    # -- lines -----------------------------------------------------------------------------

    def line_start(self, line: int) -> int:
        """The offset where ``line`` starts; lines outside the text are clamped."""
        starts = self._starts
        line = min(max(line, 0), len(starts) - 1)
        start = starts[line]
        return start + self._shift if line >= self._shift_from else start

    def line_end(self, line: int) -> int:
        """The offset where ``line`` ends, before its break; lines outside are clamped."""
        line = max(line, 0)
        if line + 1 >= len(self._starts):
            return len(self._text)
        end = self.line_start(line + 1) - 1
        text = self._text
        if text[end] == "\n" and end > 0 and text[end - 1] == "\r":
            return end - 1
        return end

    def line_of(self, offset: int) -> int:
        """The line holding ``offset`` (clamped to the text)."""
        offset = min(max(offset, 0), len(self._text))
        starts, cut = self._starts, self._shift_from
        if cut < len(starts) and offset >= starts[cut] + self._shift:
            return bisect_right(starts, offset - self._shift, cut) - 1
        return bisect_right(starts, offset, 0, cut) - 1

    # -- conversions -----------------------------------------------------------------------

    def offset_at(self, position: Mapping[str, Any]) -> int:
        """The ``str`` index of an LSP position, clamped and rounded by the module rules.

        Raises:
            ValueError: if ``line`` or ``character`` is missing or not an integer.
        """
        line, character = position_tuple(position)
        return self.offset_for(line, character, self._encoding)

    def position_at(self, offset: int) -> Position:
        """The LSP position of a ``str`` index (clamped to ``[0, len(text)]``)."""
        return self.position_for(offset, self._encoding)

    def range_at(self, start: int, end: int) -> Range:
        """The LSP range from offset ``start`` to offset ``end``."""
        encoding = self._encoding
        return {
            "start": self.position_for(start, encoding),
            "end": self.position_for(end, encoding),
        }

    def offsets_of(self, range_: Mapping[str, Any]) -> tuple[int, int]:
        """The ``(start, end)`` offsets of an LSP range, clamped by the module rules.

        Raises:
            ValueError: if it is not a range of integer positions, or ends before it starts.
        """
        (start_line, start_char), (end_line, end_char) = range_tuples(range_)
        encoding = self._encoding
        return (
            self.offset_for(start_line, start_char, encoding),
            self.offset_for(end_line, end_char, encoding),
        )

    # The two conversions below inline line_of, line_start and line_end: they run for every
    # position a server sends or a request carries. They take the encoding as an argument, so
    # that one index serves positions in any encoding (a document's index is built in the
    # document's encoding, and changes may be read in another).

    def offset_for(self, line: int, character: int, encoding: PositionEncoding) -> int:
        """The ``str`` index of ``(line, character)`` counted in ``encoding``, clamped.

        For callers that have checked the integers already (:func:`position_tuple`) and the
        encoding (:func:`check_encoding`): neither is checked again here.
        """
        starts, text = self._starts, self._text
        if line >= len(starts):
            return len(text)
        if line < 0:
            line = 0
        start = starts[line] + self._shift if line >= self._shift_from else starts[line]
        if character <= 0:
            return start
        if line + 1 < len(starts):
            end = (
                starts[line + 1] + self._shift if line + 1 >= self._shift_from else starts[line + 1]
            )
            end -= 2 if text[end - 1] == "\n" and end - 2 >= start and text[end - 2] == "\r" else 1
        else:
            end = len(text)
        if encoding == "utf-32" or character >= (end - start) * 4:
            # Every code point takes 1 to 4 units, so this is past the end in any encoding.
            return start + character if start + character < end else end
        segment = text[start:end]
        if segment.isascii():
            return start + character if start + character < end else end
        if encoding == "utf-16":
            return start + _utf16_to_code_points(segment, character)
        return start + _utf8_to_code_points(segment, character)

    def position_for(self, offset: int, encoding: PositionEncoding) -> Position:
        """The LSP position of a ``str`` index (clamped), its character in ``encoding``.

        ``encoding`` must be a checked one (:func:`check_encoding`); it is not checked here.
        """
        text = self._text
        if offset < 0:
            offset = 0
        elif offset > len(text):
            offset = len(text)
        starts, cut, shift = self._starts, self._shift_from, self._shift
        if cut < len(starts) and offset >= starts[cut] + shift:
            line = bisect_right(starts, offset - shift, cut) - 1
            start = starts[line] + shift
        else:
            line = bisect_right(starts, offset, 0, cut) - 1
            start = starts[line]
        if offset > start and text[offset - 1] == "\r":
            # Between "\r" and "\n": the break is not part of the line.
            offset -= 1
        if encoding == "utf-32":
            return {"line": line, "character": offset - start}
        prefix = text[start:offset]
        if prefix.isascii():
            return {"line": line, "character": offset - start}
        if encoding == "utf-16":
            return {"line": line, "character": len(prefix) + len(_ASTRAL.findall(prefix))}
        return {"line": line, "character": len(prefix.encode("utf-8", "surrogatepass"))}

    # -- editing (for the document model) ------------------------------------------------

    def edit(self, start: int, end: int, new_text: str) -> None:
        """Make this index describe ``new_text``, where the old ``text[start:end]`` was replaced.

        ``new_text`` must be ``old[:start] + inserted + old[end:]`` with ``0 <= start <= end
        <= len(old)`` (not checked: this runs for every keystroke). Only the line starts
        around the edit are found again; the rest move by the change in length, lazily, so an
        edit costs the same on a line near the top of a long file as near its end.
        """
        inserted_end = end + len(new_text) - len(self._text)
        delta = inserted_end - end
        # Line starts in [start, end] may change (a start depends on the characters on both
        # sides of it); the ones before stay and the ones after move by delta.
        low = self.line_of(start - 1) + 1 if start > 0 else 0
        high = self.line_of(end) + 1
        found = _starts_within(new_text, max(start - 1, 0), inserted_end)
        if start == 0:
            found.insert(0, 0)
        self._move_shift(high)
        self._starts[low:high] = found
        self._shift_from = low + len(found)
        self._shift += delta
        self._text = new_text

    def _move_shift(self, line: int) -> None:
        """Store line starts below ``line`` as offsets, and from ``line`` on as shifted."""
        starts, cut, shift = self._starts, self._shift_from, self._shift
        if shift == 0:
            self._shift_from = line
            return
        if line < cut:
            starts[line:cut] = [value - shift for value in starts[line:cut]]
        elif line > cut:
            starts[cut:line] = [value + shift for value in starts[cut:line]]
        self._shift_from = line

    def copy(self) -> LineIndex:
        """An independent copy of this index, to :meth:`edit` while this one stays as it is."""
        copy = LineIndex.__new__(LineIndex)
        copy._encoding = self._encoding
        copy._text = self._text
        copy._starts = self._starts.copy()
        copy._shift_from = self._shift_from
        copy._shift = self._shift
        return copy


def _utf16_to_code_points(segment: str, units: int) -> int:
    """Code points in the first ``units`` UTF-16 units of ``segment``, rounded down.

    ``units`` is positive. Each astral character is two units; walking the (usually few)
    astral characters is exact even next to lone surrogates.
    """
    astral = 0
    for match in _ASTRAL.finditer(segment):
        index = match.start()
        first_unit = index + astral
        if units <= first_unit:
            break
        if units == first_unit + 1:
            return index  # inside the pair: round down to its start
        astral += 1
    return min(units - astral, len(segment))


def _utf8_to_code_points(segment: str, count: int) -> int:
    """Code points in the first ``count`` UTF-8 bytes of ``segment``, rounded down."""
    encoded = segment.encode("utf-8", "surrogatepass")
    if count >= len(encoded):
        return len(segment)
    while count > 0 and encoded[count] & 0xC0 == 0x80:
        count -= 1  # a continuation byte: back to the start of its sequence
    return len(encoded[:count].decode("utf-8", "surrogatepass"))
