"""Where a change of known edits leaves the old text's places as they were, and the spans of
edits whose lines meet."""

from __future__ import annotations

from adecore_lsp.protocol.workspace.changes import Change, Finding, split_findings, steady_lines

OLD = "a = 1\nb = f(a)\nc = f(b)\nd = 4\n"


def test_unknown_edits_have_no_answer() -> None:
    assert steady_lines(Change(OLD, OLD.replace("f", "g"))) is None


def test_a_rename_leaves_every_line_it_did_not_touch() -> None:
    at = OLD.index("f(b)")
    steady = steady_lines(Change(OLD, OLD.replace("f(b)", "g(b)"), [(at, at + 1, "g")]))
    assert steady is not None
    assert steady.hold(0, 0, 0, 5)  # a = 1
    assert steady.hold(1, 0, 1, 8)  # b = f(a), to its end
    assert not steady.hold(2, 0, 2, 1)  # the renamed line
    assert not steady.hold(1, 0, 2, 0)  # ends on it
    assert steady.hold(3, 0, 3, 5)
    assert steady.hold(4, 0, 4, 0)  # the empty line after the last break
    assert not steady.hold(1, 9, 1, 9)  # past the line's break: clamped, as (2, 0) is
    assert not steady.hold(4, 1, 4, 1)  # past the text's end
    assert not steady.hold(5, 0, 5, 0)  # past the last line
    assert not steady.hold(-1, 0, 0, 0)
    assert not steady.hold(0, -1, 0, 0)


def test_lines_after_an_edit_that_adds_a_line_are_not_in_place() -> None:
    at = OLD.index("b = ")
    steady = steady_lines(Change(OLD, OLD.replace("b = ", "x = 0\nb = "), [(at, at, "x = 0\n")]))
    assert steady is not None
    assert steady.hold(0, 0, 0, 1)
    assert not steady.hold(1, 0, 1, 1)
    assert not steady.hold(3, 0, 3, 1)  # moved down a line, though untouched


def test_edits_whose_lines_meet_across_a_break_are_refined_as_one_block() -> None:
    # The first edit joins two lines; the second edits the line it joined. Refined apart,
    # their spans overlapped, and a message with a word the change wrote broke the rule.
    old = "    return a + b\ndef f(a, b):\n"
    edits = [(10, 17, ""), (18, 20, "")]
    new = "    returnd f(a, b):\n"
    before = [Finding("a.py", "s", None, None, 4, 1, 4, 1, 5, "f is unused")]
    after = [Finding("a.py", "s", None, None, 4, 0, 12, 0, 13, "returnd is unused")]
    split = split_findings(before, after, {"a.py": Change(old, new, edits)})
    assert split.introduced == [0]
    assert split.resolved == [0]


def test_a_crlf_break_made_lf_moves_no_line() -> None:
    old = "a\r\nb\r\nc\r\n"
    steady = steady_lines(Change(old, "a\nb\r\nc\r\n", [(1, 3, "\n")]))
    assert steady is not None
    assert not steady.hold(0, 0, 0, 1)  # the edited break
    assert steady.hold(2, 0, 2, 1)  # below it, still at its number
    assert not steady.hold(2, 4, 2, 4)  # past "c\r\n": clamped
