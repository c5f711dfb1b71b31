"""LineIndex: offsets and LSP positions in utf-8, utf-16 and utf-32, with clamping rules."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adecore_lsp.protocol.documents.positions import (
    KNOWN_ENCODINGS,
    LineIndex,
    check_encoding,
    position_tuple,
    range_tuples,
)

ENCODINGS = list(KNOWN_ENCODINGS)

# -- a slow reference that is obviously right ------------------------------------------------


def naive_lines(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every line, the end before its break, walking char by char."""
    lines = []
    start = index = 0
    while index < len(text):
        char = text[index]
        if char == "\r" and text[index + 1 : index + 2] == "\n":
            lines.append((start, index))
            index += 2
            start = index
        elif char in "\r\n":
            lines.append((start, index))
            index += 1
            start = index
        else:
            index += 1
    lines.append((start, len(text)))
    return lines


def units(char: str, encoding: str) -> int:
    """How many units one code point takes in ``encoding``."""
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return 1


def naive_position(text: str, offset: int, encoding: str) -> dict[str, int]:
    """The position of ``offset``: find its line, count units of the chars before it."""
    offset = min(max(offset, 0), len(text))
    for line, (start, end) in enumerate(naive_lines(text)):
        next_start = end + (2 if text[end : end + 2] == "\r\n" else 1)
        if start <= offset < next_start or line == len(naive_lines(text)) - 1:
            column = sum(units(c, encoding) for c in text[start : min(offset, end)])
            return {"line": line, "character": column}
    raise AssertionError("unreachable")


def naive_offset(text: str, line: int, character: int, encoding: str) -> int:
    """The offset of a position, clamped, rounding down inside a code point."""
    lines = naive_lines(text)
    if line >= len(lines):
        return len(text)
    start, end = lines[max(line, 0)]
    counted = 0
    for index in range(start, end):
        counted += units(text[index], encoding)
        if counted > character:
            return index
    return end


# -- strategies ------------------------------------------------------------------------------

PIECES = [
    "a",
    "Z",
    " ",
    "é",
    "€",
    "ж",
    "😀",
    "𝄞",
    "\n",
    "\r",
    "\r\n",
    "\u2028",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1c",
    "\ud800",  # a lone surrogate: a str may hold one
    "\udc00",
]

texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
encodings = st.sampled_from(ENCODINGS)


# -- table tests -----------------------------------------------------------------------------


@pytest.mark.parametrize(("encoding", "column"), [("utf-16", 3), ("utf-8", 5), ("utf-32", 2)])
def test_astral_columns(encoding: str, column: int) -> None:
    """In "a😀b", b sits at utf-16 column 3, utf-8 column 5 and utf-32 column 2."""
    index = LineIndex("a😀b", encoding)
    assert index.position_at(2) == {"line": 0, "character": column}
    assert index.offset_at({"line": 0, "character": column}) == 2


@pytest.mark.parametrize(
    ("encoding", "columns"),
    [("utf-16", [0, 1, 2, 3]), ("utf-8", [0, 3, 5, 6]), ("utf-32", [0, 1, 2, 3])],
)
def test_bmp_columns(encoding: str, columns: list[int]) -> None:
    """In "€éx", € takes 3 UTF-8 bytes and é 2, but one UTF-16 unit each."""
    index = LineIndex("€éx", encoding)
    for offset, column in enumerate(columns):
        assert index.position_at(offset) == {"line": 0, "character": column}
        assert index.offset_at({"line": 0, "character": column}) == offset


def test_crlf_is_one_break() -> None:
    """\\r\\n is one line break: "a\\r\\nb" has two lines and b starts line 1."""
    index = LineIndex("a\r\nb")
    assert index.line_count == 2
    assert index.position_at(3) == {"line": 1, "character": 0}
    assert index.offset_at({"line": 1, "character": 0}) == 3


def test_lone_cr_breaks() -> None:
    """A lone \\r ends a line, also next to \\n used the other way round."""
    index = LineIndex("a\rb\n\rc")
    assert index.line_count == 4
    assert [index.line_start(line) for line in range(4)] == [0, 2, 4, 5]
    assert index.position_at(6) == {"line": 3, "character": 1}


@pytest.mark.parametrize(
    "char", ["\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85"]
)
def test_other_separators_do_not_break(char: str) -> None:
    """Characters str.splitlines breaks at (\\u2028, \\x0b, \\x85...) are ordinary in LSP."""
    index = LineIndex(f"a{char}b")
    assert index.line_count == 1
    assert index.position_at(2) == {"line": 0, "character": 2}


@pytest.mark.parametrize(
    ("text", "count"), [("", 1), ("a", 1), ("a\n", 2), ("\n\n", 3), ("\r\n", 2), ("\r", 2)]
)
def test_line_count(text: str, count: int) -> None:
    """A final break starts an empty last line; the empty text has one line."""
    assert LineIndex(text).line_count == count


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize(
    ("position", "offset"),
    [
        ({"line": 0, "character": 99}, 2),  # past the end of "a😀" clamps before "\r\n"
        ({"line": 0, "character": 10**12}, 2),
        ({"line": 1, "character": 99}, 8),  # the last line: the end of the text
        ({"line": 2, "character": 0}, 8),  # a line past the last one: the end of the text
        ({"line": 10**12, "character": 5}, 8),
        ({"line": -1, "character": 1}, 1),  # a negative line means line 0
        ({"line": 1, "character": -7}, 4),  # a negative character means column 0
    ],
)
def test_clamping(encoding: str, position: dict[str, int], offset: int) -> None:
    """Characters past a line's end, lines past the last and negative values are clamped."""
    assert LineIndex("a😀\r\nbcdé", encoding).offset_at(position) == offset


@pytest.mark.parametrize(
    ("encoding", "character", "offset"),
    [
        ("utf-16", 1, 1),
        ("utf-16", 2, 1),  # between the surrogates of 😀: its start
        ("utf-16", 3, 2),
        ("utf-8", 1, 1),
        ("utf-8", 2, 1),  # inside the 4 bytes of 😀
        ("utf-8", 3, 1),
        ("utf-8", 4, 1),
        ("utf-8", 5, 2),
        ("utf-8", 6, 2),  # inside the 2 bytes of é
        ("utf-8", 7, 3),
    ],
)
def test_inside_a_code_point_rounds_down(encoding: str, character: int, offset: int) -> None:
    """A character inside a surrogate pair or a UTF-8 sequence rounds to the code point start."""
    assert LineIndex("a😀éb", encoding).offset_at({"line": 0, "character": character}) == offset


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize(
    ("offset", "position"),
    [(-1, (0, 0)), (-(10**9), (0, 0)), (4, (1, 1)), (5, (1, 1)), (10**9, (1, 1))],
)
def test_offsets_clamp(encoding: str, offset: int, position: tuple[int, int]) -> None:
    """Offsets outside [0, len(text)] clamp to the start or the end of the text."""
    assert LineIndex("ab\nc", encoding).position_at(offset) == {
        "line": position[0],
        "character": position[1],
    }


@pytest.mark.parametrize(
    ("text", "starts", "ends"),
    [
        ("ab\ncd", [0, 3], [2, 5]),
        ("ab\r\ncd", [0, 4], [2, 6]),
        ("ab\rcd\r", [0, 3, 6], [2, 5, 6]),
        ("", [0], [0]),
    ],
)
def test_line_start_and_end(text: str, starts: list[int], ends: list[int]) -> None:
    """Each line starts after its break and ends before it; lines outside are clamped."""
    index = LineIndex(text)
    last = index.line_count - 1
    assert [index.line_start(line) for line in range(-1, last + 2)] == [
        starts[0],
        *starts,
        starts[-1],
    ]
    assert [index.line_end(line) for line in range(-1, last + 2)] == [ends[0], *ends, ends[-1]]


def test_between_cr_and_lf_is_line_end() -> None:
    """The offset between \\r and \\n names the end of its line, before the break."""
    index = LineIndex("ab\r\ncd", "utf-8")
    assert index.position_at(3) == {"line": 0, "character": 2}
    assert index.position_at(2) == {"line": 0, "character": 2}
    assert index.line_end(0) == 2


@pytest.mark.parametrize(
    "position",
    [
        None,
        "0:1",
        {"line": 0},
        {"character": 0},
        {"line": None, "character": 0},
        {"line": 0, "character": 1.0},
        {"line": 0.0, "character": 1},
        {"line": "0", "character": 1},
        {"line": True, "character": 1},
        {"line": 0, "character": [1]},
    ],
)
def test_malformed_positions_raise_value_error(position: Any) -> None:
    """A position without integer line and character raises ValueError, never a crash."""
    with pytest.raises(ValueError, match=r"line|character|position"):
        LineIndex("abc").offset_at(position)


def test_position_members_may_be_int_subclasses() -> None:
    """An int subclass (an IntEnum, say) other than bool is read as its integer value."""
    from enum import IntEnum

    class Two(IntEnum):
        TWO = 2

    assert position_tuple({"line": 0, "character": Two.TWO}) == (0, 2)
    assert LineIndex("abc").offset_at({"line": 0, "character": Two.TWO}) == 2


@pytest.mark.parametrize("encoding", ["utf8", "UTF-16", "utf-7", "", None, 16])
def test_unknown_encoding(encoding: Any) -> None:
    """An encoding other than utf-8, utf-16 and utf-32 raises ValueError naming it."""
    with pytest.raises(ValueError, match="unknown position encoding"):
        check_encoding(encoding)
    with pytest.raises(ValueError, match="unknown position encoding"):
        LineIndex("", encoding)


def test_text_must_be_str() -> None:
    """Indexing bytes is a TypeError."""
    with pytest.raises(TypeError, match="str"):
        LineIndex(b"abc")  # type: ignore[arg-type]


def test_range_helpers() -> None:
    """range_at and offsets_of convert a span both ways in the index's encoding."""
    index = LineIndex("x😀\ny😀z", "utf-16")
    assert index.range_at(1, 6) == {
        "start": {"line": 0, "character": 1},
        "end": {"line": 1, "character": 4},
    }
    assert index.offsets_of(index.range_at(1, 6)) == (1, 6)
    assert index.offsets_of(
        {"start": {"line": 0, "character": 50}, "end": {"line": 9, "character": 0}}
    ) == (2, 6)


@pytest.mark.parametrize(
    "range_",
    [
        {"start": {"line": 1, "character": 0}, "end": {"line": 0, "character": 5}},
        {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 2}},
        {"start": {"line": 0, "character": 0}},
        {"start": {"line": 0, "character": 0}, "end": None},
        [0, 1],
        None,
    ],
)
def test_bad_ranges_raise(range_: Any) -> None:
    """A range that ends before it starts, or is not a range, raises ValueError."""
    with pytest.raises(ValueError, match="range"):
        LineIndex("abc\ndef").offsets_of(range_)
    with pytest.raises(ValueError, match="range"):
        range_tuples(range_)


def test_encoding_and_text_are_kept() -> None:
    """An index tells its text, its encoding and its line count."""
    index = LineIndex("a\nb", "utf-8")
    assert (index.text, index.encoding, index.line_count) == ("a\nb", "utf-8", 2)
    assert "2 lines" in repr(index)


# -- properties ------------------------------------------------------------------------------


@given(texts, encodings, st.data())
def test_positions_agree_with_the_reference(text: str, encoding: str, data: st.DataObject) -> None:
    """position_at and offset_at agree with the char-by-char reference, clamping included."""
    index = LineIndex(text, encoding)
    for offset in range(-2, len(text) + 3):
        assert index.position_at(offset) == naive_position(text, offset, encoding)
    line = data.draw(st.integers(-2, len(naive_lines(text)) + 2))
    character = data.draw(st.integers(-2, 4 * len(text) + 3))
    position = {"line": line, "character": character}
    assert index.offset_at(position) == naive_offset(text, line, character, encoding)


@given(texts, encodings)
def test_offset_round_trip(text: str, encoding: str) -> None:
    """offset_at(position_at(o)) == o for every offset not between \\r and \\n."""
    index = LineIndex(text, encoding)
    for offset in range(len(text) + 1):
        if 0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n":
            assert index.offset_at(index.position_at(offset)) == offset - 1
        else:
            assert index.offset_at(index.position_at(offset)) == offset


@given(texts, encodings)
def test_position_round_trip(text: str, encoding: str) -> None:
    """position_at(offset_at(p)) == p for every valid position (a code point boundary)."""
    index = LineIndex(text, encoding)
    for line, (start, end) in enumerate(naive_lines(text)):
        column = 0
        for offset in range(start, end + 1):
            position = {"line": line, "character": column}
            assert index.offset_at(position) == offset
            assert index.position_at(index.offset_at(position)) == position
            if offset < end:
                column += units(text[offset], encoding)


@given(texts, st.lists(st.tuples(st.integers(0, 50), st.integers(0, 5), texts), max_size=8))
def test_edited_index_matches_a_fresh_one(text: str, edits: list[tuple[int, int, str]]) -> None:
    """After in-place edits (the document model's path) the index equals a fresh index."""
    index = LineIndex(text, "utf-16")
    for where, length, inserted in edits:
        start = min(where, len(text))
        end = min(start + length, len(text))
        text = text[:start] + inserted + text[end:]
        index.edit(start, end, text)
        fresh = LineIndex(text, "utf-16")
        assert index.line_count == fresh.line_count
        assert [index.line_start(n) for n in range(fresh.line_count)] == [
            fresh.line_start(n) for n in range(fresh.line_count)
        ]
        for offset in range(len(text) + 1):
            assert index.line_of(offset) == fresh.line_of(offset)
        # Reading a copy gives the same answers and editing it leaves the original alone.
        copy = index.copy()
        copy.edit(0, len(text), "")
        assert copy.line_count == 1
        assert index.line_count == fresh.line_count
