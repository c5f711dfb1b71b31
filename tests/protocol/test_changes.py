"""The one rule of changes.md: which findings after a change are old, introduced, resolved."""

from __future__ import annotations

import pytest

from adecore_lsp.protocol.workspace import changes
from adecore_lsp.protocol.workspace.changes import Change, Finding, Split, split_findings

ERROR, WARNING = 4, 3


def at(
    line: int,
    column: int,
    end_column: int,
    message: str,
    *,
    code: str | int | None = "E1",
    severity: int = ERROR,
    path: str = "a.py",
    end_line: int | None = None,
    server: str = "srv",
    source: str | None = "src",
) -> Finding:
    return Finding(
        path,
        server,
        source,
        code,
        severity,
        line,
        column,
        line if end_line is None else end_line,
        end_column,
        message,
    )


def offset_of(text: str, needle: str, nth: int = 0) -> int:
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    return start


RENAME_OLD = "def compute(x: int) -> int:\n    return x\n\nvalue = compute('a')\n"
RENAME_NEW = RENAME_OLD.replace("compute", "double")


def test_a_rename_keeps_the_error_whose_message_names_the_new_name() -> None:
    before = [at(3, 8, 15, 'Argument of type "str" cannot be assigned in "compute"')]
    after = [at(3, 8, 14, 'Argument of type "str" cannot be assigned in "double"')]
    split = split_findings(before, after, {"a.py": Change(RENAME_OLD, RENAME_NEW)})
    assert split == Split([], [], {0: 0})


def test_a_rename_given_as_text_edits_is_carried_through_them() -> None:
    first = offset_of(RENAME_OLD, "compute")
    second = offset_of(RENAME_OLD, "compute", 1)
    edits = [(second, second + 7, "double"), (first, first + 7, "double")]  # any order
    before = [at(3, 16, 19, "str is not int")]  # at 'a', after the renamed call's name
    after = [at(3, 15, 18, "str is not int")]
    change = Change(RENAME_OLD, RENAME_NEW, edits)
    assert split_findings(before, after, {"a.py": change}) == Split([], [], {0: 0})
    # The same error one column off its carried place is still the same (they touch).
    assert split_findings(before, [at(3, 18, 19, "str is not int")], {"a.py": change}).matched


def test_a_position_inside_a_replaced_span_whose_text_survives_keeps_its_place() -> None:
    old = "call(first, second)\n"
    new = "call(second)\n"
    # One edit replaces the whole argument list; "second" survives inside it.
    edit = (old.index("("), old.index(")") + 1, "(second)")
    before = [at(0, 12, 18, "second is unknown")]
    assert split_findings(
        before, [at(0, 5, 11, "second is unknown")], {"a.py": Change(old, new, [edit])}
    ).matched == {0: 0}
    # The finding on the deleted argument has nowhere to go: resolved.
    gone = split_findings(
        [at(0, 5, 10, "first is unknown")], [], {"a.py": Change(old, new, [edit])}
    )
    assert gone.resolved == [0]


def test_a_moved_function_keeps_its_findings() -> None:
    old = "def g():\n    x = 1\n\n\ndef h():\n    pass\n"
    new = "def h():\n    pass\n\n\nclass K:\n    def g(self):\n        x = 1\n"
    before = [at(1, 4, 5, "x is unused", code="F841")]
    after = [at(6, 8, 9, "x is unused", code="F841")]
    assert split_findings(before, after, {"a.py": Change(old, new)}) == Split([], [], {0: 0})


def test_a_rewritten_line_keeps_its_other_findings() -> None:
    old = "import os, sys  # a comment long enough to pass the limit of the line\n"
    new = "import os\nimport sys  # a comment long enough to pass the limit of the line\n"
    before = [
        at(0, 0, 14, "Multiple imports on one line", code="E401"),
        at(0, 70, 71, "Line too long (71 > 70)", code="E501"),
    ]
    after = [at(1, 70, 71, "Line too long (72 > 70)", code="E501")]
    split = split_findings(before, after, {"a.py": Change(old, new)})
    assert split.introduced == []
    assert split.resolved == [0]


def test_a_warning_that_became_an_error_is_introduced_and_the_reverse_is_old() -> None:
    warning = [at(0, 0, 1, "m", severity=WARNING)]
    error = [at(0, 0, 1, "m", severity=ERROR)]
    assert split_findings(warning, error, {}) == Split([0], [0], {})
    assert split_findings(error, warning, {}) == Split([], [], {0: 0})


def test_another_server_source_or_code_is_another_finding() -> None:
    base = at(0, 0, 1, "m")
    for other in (
        at(0, 0, 1, "m", server="other"),
        at(0, 0, 1, "m", source="other"),
        at(0, 0, 1, "m", code=2),
        at(0, 0, 1, "m", path="b.py"),
    ):
        assert split_findings([base], [other], {}) == Split([0], [0], {})


def test_each_finding_before_matches_at_most_one_after() -> None:
    split = split_findings([at(0, 0, 1, "dup")], [at(0, 0, 1, "dup"), at(0, 0, 1, "dup")], {})
    assert split == Split([1], [], {0: 0})


def test_the_closest_finding_before_is_taken_and_an_exact_one_goes_first() -> None:
    before = [at(0, 0, 3, "same"), at(0, 8, 11, "same")]
    after = [at(0, 8, 11, "same"), at(0, 0, 3, "same")]
    assert split_findings(before, after, {}).matched == {0: 1, 1: 0}
    # A look-alike with another message does not take a place an exact survivor needs.
    before = [at(0, 0, 5, "b"), at(0, 0, 5, "a")]
    after = [at(0, 0, 5, "a"), at(0, 0, 5, "c")]
    assert split_findings(before, after, {}).matched == {0: 1, 1: 0}


def test_findings_on_deleted_lines_are_resolved() -> None:
    old = "a = 1\nb = undefined\nc = 3\n"
    new = "a = 1\nc = 3\n"
    before = [at(1, 4, 13, "undefined is not defined"), at(2, 0, 1, "c unused")]
    after = [at(1, 0, 1, "c unused")]
    assert split_findings(before, after, {"a.py": Change(old, new)}) == Split([], [0], {0: 1})


def test_an_unchanged_file_compares_places_as_they_are() -> None:
    # Same line, same message, another column: the line's text is the same, so it is old.
    assert split_findings([at(4, 0, 2, "m")], [at(4, 9, 12, "m")], {}).matched == {0: 0}
    # Another line and another message: nothing carries it.
    assert split_findings([at(4, 0, 2, "m")], [at(5, 0, 2, "n")], {}) == Split([0], [0], {})


def test_a_change_that_changes_nothing_compares_in_place() -> None:
    text = "x = 1\ny = 2\n"
    split = split_findings([at(1, 0, 1, "m")], [at(1, 0, 1, "m")], {"a.py": Change(text, text)})
    assert split.matched == {0: 0}


def test_lines_inserted_above_move_a_finding_down() -> None:
    old = "x = 1\ny = undefined\n"
    new = "# one\n# two\n" + old
    before = [at(1, 4, 13, "undefined")]
    assert split_findings(before, [at(3, 4, 13, "undefined")], {"a.py": Change(old, new)}).matched
    # Where its old line is now, a new finding of another message is introduced.
    moved = split_findings(before, [at(1, 0, 5, "other")], {"a.py": Change(old, new)})
    assert moved == Split([0], [0], {})


def test_line_breaks_of_every_kind_count_as_lines() -> None:
    old = "a = 1\r\nb = x\rc = 3\n"
    new = "a = 1\r\n\r\nb = x\rc = 3\n"
    split = split_findings([at(1, 4, 5, "x")], [at(2, 4, 5, "x")], {"a.py": Change(old, new)})
    assert split.matched == {0: 0}


def test_positions_past_the_text_are_taken_at_its_end() -> None:
    old, new = "x = 1\n", "x = 12\n"
    before = [at(9, 0, 1, "past the end"), at(0, 99, 120, "past the line")]
    after = [at(9, 0, 1, "past the end"), at(0, 99, 120, "past the line")]
    split = split_findings(before, after, {"a.py": Change(old, new)})
    assert split.introduced == []
    assert split.resolved == []


def test_a_text_without_a_final_line_break() -> None:
    old, new = "x = 1\ny = 2", "x = 1\ny = 22"
    split = split_findings([at(1, 0, 1, "m")], [at(1, 0, 1, "m")], {"a.py": Change(old, new)})
    assert split.matched == {0: 0}


def test_a_wide_finding_meets_the_narrow_ones_it_spans() -> None:
    old = "a\n" * 50
    new = "b\n" + "a\n" * 49
    before = [at(0, 0, 1, "whole file", end_line=49), at(30, 0, 1, "one line")]
    after = [at(10, 0, 1, "whole file", end_line=20), at(30, 0, 1, "one line")]
    assert split_findings(before, after, {"a.py": Change(old, new)}).matched == {0: 0, 1: 1}


def test_pure_insertions_and_deletions_inside_lines() -> None:
    old, new = "value = f(a)\n", "value = f(a, b)\n"
    before = [at(0, 8, 12, "call of f")]
    assert split_findings(before, [at(0, 8, 15, "call of f")], {"a.py": Change(old, new)}).matched
    back = split_findings(
        [at(0, 8, 15, "call of f")], [at(0, 8, 12, "call of f")], {"a.py": Change(new, old)}
    )
    assert back.matched == {0: 0}


def test_a_span_too_large_to_refine_is_one_span(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(changes, "REFINE_LIMIT", 10)
    old, new = "value = compute(a)\n", "value = double(a)\n"
    # Unrefined, the whole changed middle is one span: the finding on `a` is carried to
    # the span's start and end, which still meet the finding after.
    split = split_findings([at(0, 16, 17, "a")], [at(0, 15, 16, "a")], {"a.py": Change(old, new)})
    assert split.matched == {0: 0}
    edit = (8, 15, "double")
    carried = split_findings(
        [at(0, 16, 17, "a")], [at(0, 15, 16, "a")], {"a.py": Change(old, new, [edit])}
    )
    assert carried.matched == {0: 0}


def test_a_deleted_file_resolves_its_findings_and_a_new_one_introduces() -> None:
    split = split_findings(
        [at(0, 0, 1, "m", path="gone.py")], [at(0, 0, 1, "m", path="new.py")], {}
    )
    assert split == Split([0], [0], {})


def test_thousands_of_findings_in_one_file() -> None:
    lines = [f"x{n} = undefined_{n}\n" for n in range(5000)]
    old = "".join(lines)
    new = "# header\n" + old
    before = [at(n, 5, 15, f"undefined_{n}") for n in range(5000)]
    after = [at(n + 1, 5, 15, f"undefined_{n}") for n in range(5000)]
    split = split_findings(before, after, {"a.py": Change(old, new)})
    assert split.introduced == []
    assert split.resolved == []


def test_an_edit_that_puts_back_what_it_replaced_changes_nothing_there() -> None:
    old, new = "x = 1\ny = 2\n", "x = 1\ny = 3\n"
    edits = [(0, 1, "x"), (10, 11, "3")]
    split = split_findings(
        [at(0, 0, 1, "m")], [at(0, 0, 1, "m")], {"a.py": Change(old, new, edits)}
    )
    assert split.matched == {0: 0}


def test_of_several_that_meet_the_nearest_is_taken() -> None:
    before = [at(0, 0, 5, "m"), at(0, 0, 8, "m"), at(0, 1, 5, "m")]
    assert split_findings(before, [at(0, 0, 5, "m")], {}).matched == {0: 0}


def test_of_several_on_lines_of_the_same_text_the_nearest_is_taken() -> None:
    old = "pass\n" * 6
    new = "x = 1\n" + old
    before = [at(1, 0, 4, "m"), at(5, 0, 4, "m"), at(4, 0, 4, "m")]
    # Carried, they sit on lines 2, 6 and 5; the finding after is on line 3.
    split = split_findings(before, [at(3, 0, 4, "m")], {"a.py": Change(old, new)})
    assert split.matched == {0: 0}


REWRITTEN_OLD = 'x = 1\nlabel: int = "old"\n'
REWRITTEN_NEW = "x = 1\nlabel: int = 0\nother: str = 1\n"


def test_a_line_added_below_a_rewritten_line_is_its_own() -> None:
    # The old error's line is rewritten (the error fixed) and a new line with a new error of
    # the same code added under it: the new one is introduced, the old one resolved.
    before = [at(1, 13, 18, 'Type "str" is not assignable to "int"')]
    after = [at(2, 13, 14, 'Type "int" is not assignable to "str"')]
    for change in (
        Change(REWRITTEN_OLD, REWRITTEN_NEW),
        Change(
            REWRITTEN_OLD,
            REWRITTEN_NEW,
            [(offset_of(REWRITTEN_OLD, '"old"'), len(REWRITTEN_OLD) - 1, "0\nother: str = 1")],
        ),
    ):
        assert split_findings(before, after, {"a.py": change}) == Split([0], [0], {})


def test_replaced_lines_are_paired_by_likeness_only() -> None:
    # Two lines replaced by two: the rewritten one keeps its finding, its neighbour is new.
    old = "a = compute(1)\nb = 2\n"
    new = "zzz = 9\na = compute(1, 2)\n"
    before = [at(0, 4, 14, "m")]
    after = [at(1, 4, 17, "m"), at(0, 0, 3, "m")]
    assert split_findings(before, after, {"a.py": Change(old, new)}) == Split([1], [], {0: 0})
    # Lines alike in their letters but not their order are not the same line.
    assert split_findings(
        [at(0, 0, 3, "m")], [at(0, 0, 3, "n")], {"a.py": Change("abc\n", "cba\n")}
    ) == Split([], [], {0: 0})
    # Too many lines to pair: the block is refined to characters as one.
    wide = changes.PAIR_LIMIT + 1
    many_old = "".join(f"old {n}\n" for n in range(wide))
    assert split_findings(
        [at(0, 0, 3, "m")], [at(0, 0, 3, "m")], {"a.py": Change(many_old, "new\n")}
    ) == Split([], [], {0: 0})
