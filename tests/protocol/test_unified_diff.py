"""A plan's diff made from the text edits: what a line diff of the two texts shows, without
diffing them; where the edits do not make the new text, the line diff itself."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from adecore_lsp.protocol.workspace.unified_diff import GIT_LINE, NO_NEWLINE, git_lines, hunks

HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")


def made(old: str, edits: list[tuple[int, int, str]]) -> str:
    pieces, at = [], 0
    for start, end, text in sorted(edits):
        pieces += [old[at:start], text]
        at = end
    return "".join(pieces) + old[at:]


def patched(old: str, diff: str) -> str:
    """``diff`` applied to ``old``, checking every context and removed line against it."""
    lines = GIT_LINE.findall(old)
    out: list[str] = []
    at = 0
    rows = diff.replace(NO_NEWLINE, "\0\n").split("\n")
    rows = [row for row in rows if row][2:]  # the two file headers
    number = 0
    while number < len(rows):
        header = HEADER.match(rows[number])
        assert header, rows[number]
        start = int(header.group(1)) - (0 if header.group(2) == "0" else 1)
        out += lines[at:start]
        at = start
        number += 1
        while number < len(rows) and not rows[number].startswith("@@"):
            row = rows[number]
            text = row[1:].removesuffix("\0")
            text += "" if row.endswith("\0") else "\n"
            if row[0] in " -":
                assert lines[at] == text, (lines[at], text)
                at += 1
            if row[0] in " +":
                out.append(text)
            number += 1
    return "".join(out + lines[at:])


def test_a_rename_shows_what_difflib_shows() -> None:
    old = "".join(f"def use_{n}():\n    echo('{n}')  # echo\n    return {n}\n\n" for n in range(30))
    edits = [(m.start(), m.end(), "echo_") for m in re.finditer(r"\becho\b", old)]
    new = made(old, edits)
    assert hunks(old, new, "a/x.py", "b/x.py", edits) == hunks(old, new, "a/x.py", "b/x.py")
    assert patched(old, hunks(old, new, "a/x.py", "b/x.py", edits)) == new


def test_the_text_ends_and_line_breaks_joined_or_added() -> None:
    cases = [
        ("a\nb\nc", [(5, 5, "d")]),  # at the end of a last line without a break
        ("a\nb\n", [(4, 4, "c\n")]),  # after the last line break
        ("a\nb\nc\n", [(1, 2, "")]),  # two lines joined
        ("a\nb\nc\n", [(2, 2, "x\ny\n")]),  # lines inserted at a line's start
        ("a\nb", [(0, 3, "")]),  # the first lines deleted
        ("", [(0, 0, "new\n")]),
        ("a\nb\nc\n", [(0, 1, "A"), (2, 3, "B"), (4, 5, "C")]),  # three lines in a row
        ("".join(f"{n}\n" for n in range(10, 40)), [(0, 2, "X"), (75, 77, "Y")]),  # two hunks
    ]
    for old, edits in cases:
        new = made(old, edits)
        diff = hunks(old, new, "a/x", "b/x", edits)
        assert patched(old, diff) == new, (old, edits, diff)
        assert diff == hunks(old, new, "a/x", "b/x"), (old, edits)


def test_edits_that_do_not_make_the_new_text_are_diffed_as_texts() -> None:
    old, new = "a\nb\nc\n", "a\nB\nc\nd\n"
    for edits in ([(2, 3, "B")], [(0, 1, "x"), (0, 2, "y")], [(2, 1, "z")], [(9, 9, "q")]):
        assert hunks(old, new, "a/x", "b/x", edits) == hunks(old, new, "a/x", "b/x")
    assert hunks(old, old, "a/x", "b/x", [(0, 1, "a")]) == ""


TEXT = st.text(alphabet="ab\n", max_size=40)


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, list[tuple[int, int, str]]]:
    old = draw(TEXT)
    cuts = sorted(draw(st.lists(st.integers(0, len(old)), max_size=8)))
    edits = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        edits.append((start, end, draw(st.text(alphabet="ab\n", max_size=6))))
    return old, edits


@given(edited())
def test_any_edits_give_a_diff_that_makes_the_new_text(
    case: tuple[str, list[tuple[int, int, str]]],
) -> None:
    old, edits = case
    new = made(old, edits)
    diff = hunks(old, new, "a/x", "b/x", edits)
    assert patched(old, diff) == new
    assert (diff == "") == (old == new)


@given(st.text(alphabet="ab\n\r\x0b\u2028 ", max_size=30))
def test_lines_are_split_as_git_splits_them(text: str) -> None:
    """Only ``\\n`` ends a line (a ``\\r``, a vertical tab or a Unicode line separator is
    text of the line), and the last line is kept without one."""
    assert git_lines(text) == GIT_LINE.findall(text)
