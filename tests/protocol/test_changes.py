"""The one rule of changes.md: which findings after a change are old, introduced, resolved."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adecore_lsp.protocol.workspace import changes
from adecore_lsp.protocol.workspace.changes import Change, Finding, Split, split_findings
from adecore_lsp.protocol.workspace.edit_plans import plan_edit

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


def test_a_plans_text_edits_carry_the_findings_without_diffing_the_texts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rename as a server answers it, planned: the plan's text edits reach the rule, which
    carries the findings of a large file through them alone (the line diff of the two texts
    is never taken), with the answer the diff gives."""
    body = "".join(f"value_{n} = compute({n})\n" for n in range(300))
    old = "def compute(x: int) -> int:\n    return x\n\n" + body + "compute('a')\n"
    uses = [n for n in range(len(old)) if old.startswith("compute", n)]
    lines = [old.count("\n", 0, n) for n in uses]
    server_edit = {
        "changes": {
            "file:///w/a.py": [
                {
                    "range": {
                        "start": {"line": line, "character": at - old.rfind("\n", 0, at) - 1},
                        "end": {"line": line, "character": at - old.rfind("\n", 0, at) + 6},
                    },
                    "newText": "double",
                }
                for line, at in zip(lines, uses, strict=True)
            ]
        }
    }
    planned = plan_edit(server_edit, {"file:///w/a.py": old}, "utf-16", lambda uri: uri[8:])
    [file] = planned.files.values()
    assert file.text_edits is not None
    assert len(file.text_edits) == len(uses)
    before = [at(3 + n, 19, 20, "n is unknown") for n in range(300)]
    before.append(at(303, 8, 11, 'Argument of type "str" cannot be assigned in "compute"'))
    after = [at(3 + n, 18, 19, "n is unknown") for n in range(300)]
    after.append(at(303, 7, 10, 'Argument of type "str" cannot be assigned in "double"'))
    after.append(at(303, 0, 6, "a new one"))
    by_texts = split_findings(before, after, {"a.py": Change(old, file.new_text)})

    def no_diff(_change: Change) -> None:
        raise AssertionError("the texts were diffed although the edits are known")

    monkeypatch.setattr(changes, "_spans_of_texts", no_diff)
    by_edits = Change(old, file.new_text, file.text_edits)
    split = split_findings(before, after, {"a.py": by_edits})
    assert split == by_texts
    assert split.introduced == [301]
    assert split.resolved == []


@given(
    st.text(alphabet="ab _(x", max_size=12),
    st.text(alphabet="ab _(x", max_size=12),
    st.integers(0, 50),
    st.integers(0, 50),
)
def test_an_edit_within_one_line_is_refined_as_its_line_would_be(
    old: str, new: str, at_old: int, at_new: int
) -> None:
    """An edit within one line skips the diff of lines: the spans are those it gives."""
    by_lines: list[tuple[int, int, int, int]] = []
    changes._refine_lines(old, new, at_old, at_new, by_lines)
    at_once: list[tuple[int, int, int, int]] = []
    changes._refine(old, new, at_old, at_new, at_once)
    assert at_once == by_lines


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
    # A look-alike with another message (another number) does not take a place an exact
    # survivor needs.
    before = [at(0, 0, 5, "size 2"), at(0, 0, 5, "size 1")]
    after = [at(0, 0, 5, "size 1"), at(0, 0, 5, "size 3")]
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
        [at(0, 0, 3, "abc is unknown")],
        [at(0, 0, 3, "cba is unknown")],
        {"a.py": Change("abc\n", "cba\n")},
    ) == Split([], [], {0: 0})
    # Too many lines to pair: the block is refined to characters as one.
    wide = changes.PAIR_LIMIT + 1
    many_old = "".join(f"old {n}\n" for n in range(wide))
    assert split_findings(
        [at(0, 0, 3, "m")], [at(0, 0, 3, "m")], {"a.py": Change(many_old, "new\n")}
    ) == Split([], [], {0: 0})


# basedpyright on an overloaded function: a call whose argument has the wrong type is a "no
# overloads" error with the argument's error beside it; the same call newly short of an
# argument is one "no overloads" error over the call, its message a line longer.
OVERLOADS_HEAD = (
    "from typing import overload\n\n\n@overload\ndef pick(x: int, y: int) -> int: ...\n"
    "@overload\ndef pick(x: str, y: str) -> str: ...\n"
    "def pick(x: int | str, y: int | str) -> int | str:\n    return x\n\n\n"
)
NO_OVERLOADS = 'No overloads for "{name}" match the provided arguments'
ARGUMENT_TYPES = "\n\u00a0\u00a0Argument types: (float)"
ARGUMENT = (
    'Argument of type "float" cannot be assigned to parameter "x" of type "int" in function '
    '"{name}"\n\u00a0\u00a0"float" is not assignable to "int"'
)


def call_error(line: int, column: int, end_column: int, message: str) -> Finding:
    return at(line, column, end_column, message, code="reportCallIssue", source="basedpyright")


def argument_error(line: int, column: int, end_column: int, name: str) -> Finding:
    message = ARGUMENT.format(name=name)
    return at(line, column, end_column, message, code="reportArgumentType", source="basedpyright")


def test_a_call_newly_short_of_an_argument_inside_its_old_no_overloads_error_is_new() -> None:
    old = OVERLOADS_HEAD + "value = pick(1.5, 2)\n"
    new = OVERLOADS_HEAD + "value = pick(1.5)\n"
    before = [
        call_error(11, 8, 20, NO_OVERLOADS.format(name="pick")),
        argument_error(11, 13, 16, "pick"),
    ]
    # The call's range carried through the change is the new one's exactly; only the
    # message says what is new, in words the change did not write.
    after = [call_error(11, 8, 17, NO_OVERLOADS.format(name="pick") + ARGUMENT_TYPES)]
    edit = (offset_of(old, ", 2"), offset_of(old, ", 2") + 3, "")
    for change in (Change(old, new), Change(old, new, [edit])):
        assert split_findings(before, after, {"a.py": change}) == Split([0], [0, 1], {})
    # Given the argument back, nothing is new: the message lost a line, the other error is
    # back, and the change wrote nothing the messages name that they did not name before.
    back = split_findings(after, before, {"a.py": Change(new, old)})
    assert back.matched == {0: 0}
    assert back.introduced == [1]


def test_a_rename_with_a_call_newly_short_of_an_argument_introduces_that_call_alone() -> None:
    old = OVERLOADS_HEAD + "first = pick(1.5, 2)\nsecond = pick(2.5, 3)\n"
    new = (OVERLOADS_HEAD + "first = pick(1.5)\nsecond = pick(2.5, 3)\n").replace("pick", "choose")
    before = [
        call_error(11, 8, 20, NO_OVERLOADS.format(name="pick")),
        argument_error(11, 13, 16, "pick"),
        call_error(12, 9, 21, NO_OVERLOADS.format(name="pick")),
        argument_error(12, 14, 17, "pick"),
    ]
    after = [
        call_error(11, 8, 19, NO_OVERLOADS.format(name="choose") + ARGUMENT_TYPES),
        call_error(12, 9, 23, NO_OVERLOADS.format(name="choose")),
        argument_error(12, 16, 19, "choose"),
    ]
    split = split_findings(before, after, {"a.py": Change(old, new)})
    assert split == Split([0], [0, 1], {1: 2, 2: 3})


def test_words_a_change_wrote_in_another_file_explain_a_message() -> None:
    # A class renamed in lib.py: a caller's unchanged line now names the new name.
    lib = Change("class Old:\n    pass\n", "class New:\n    pass\n")
    before = [at(3, 4, 10, 'Type "Old" is not assignable to "int"', path="caller.py")]
    after = [at(3, 4, 10, 'Type "New" is not assignable to "int"', path="caller.py")]
    assert split_findings(before, after, {"lib.py": lib}).matched == {0: 0}
    # A word no change wrote is a new finding, also where nothing changed at all.
    other = [at(3, 4, 10, 'Type "float" is not assignable to "int"', path="caller.py")]
    assert split_findings(before, other, {"lib.py": lib}) == Split([0], [0], {})
    assert split_findings(before, other, {}) == Split([0], [0], {})


def test_the_closest_pair_wins_whatever_order_the_findings_came_in() -> None:
    # A rename, and a new call of the same code inside the old one's range that starts where
    # it starts (a receiver's call): the old finding stays with the one at its own range.
    old = "value = make(1).pick(1.5, 2)\n"
    new = old.replace("pick", "choose").replace("make(1)", "make()")
    before = [call_error(0, 8, 28, NO_OVERLOADS.format(name="pick"))]
    outer = call_error(0, 8, 30, NO_OVERLOADS.format(name="choose"))
    inner = call_error(0, 8, 14, NO_OVERLOADS.format(name="make"))
    change = {"a.py": Change(old, new)}
    # The inner one first, as a check's order (line, column, end) puts it.
    assert split_findings(before, [inner, outer], change) == Split([0], [], {1: 0})
    assert split_findings(before, [outer, inner], change) == Split([1], [], {0: 0})


MESSAGES = st.sampled_from(["m 1", "m 2", "name a", "name b"])
FINDINGS = st.builds(
    lambda line, column, width, message, severity: at(
        line, column, column + width, message, severity=severity
    ),
    st.integers(0, 3),
    st.integers(0, 12),
    st.integers(0, 6),
    MESSAGES,
    st.sampled_from([ERROR, WARNING]),
)
TEXT = "".join(f"name_{n} = a + b  # {n}\n" for n in range(4))


@given(st.lists(FINDINGS, max_size=8), st.lists(FINDINGS, max_size=8), st.booleans())
def test_every_finding_is_introduced_matched_or_resolved_once(
    before: list[Finding], after: list[Finding], changed: bool
) -> None:
    change = {"a.py": Change(TEXT, TEXT.replace("a + b", "b + a"))} if changed else {}
    split = split_findings(before, after, change)
    assert sorted([*split.introduced, *split.matched]) == list(range(len(after)))
    assert len(set(split.matched.values())) == len(split.matched)
    assert sorted([*split.resolved, *split.matched.values()]) == list(range(len(before)))
    for number, old_number in split.matched.items():
        assert before[old_number].severity >= after[number].severity


@given(st.text(alphabet="ab\n\r", max_size=12))
def test_line_starts_are_those_of_every_kind_of_line_break(text: str) -> None:
    """The fast split on ``\n`` gives the starts the pattern of every line break gives."""
    starts = [0, *(match.end() for match in changes._BREAK.finditer(text))]
    assert changes._line_starts(text) == starts
    plain = text.replace("\r", "")
    assert changes._line_starts(plain) == [0, *(at + 1 for at, c in enumerate(plain) if c == "\n")]


def _no_exact_survivors(*_args: object) -> dict[int, int]:
    return {}


@given(
    st.lists(FINDINGS, max_size=10),
    st.lists(FINDINGS, max_size=10),
    st.sampled_from([None, "a + b", "name_1", "\n"]),
)
def test_exact_survivors_paired_first_change_no_answer(
    before: list[Finding], after: list[Finding], changed: str | None
) -> None:
    """The exact survivors, paired before the passes, are the pairs the first pass would make
    first: the same answer as the passes alone, duplicates and equal findings included."""
    change = {"a.py": Change(TEXT, TEXT.replace(changed, "b + a"))} if changed else {}
    quick = split_findings(before + before[:2], after + before[:3], change)
    with mock.patch.object(changes, "_exact_survivors", _no_exact_survivors):
        slow = split_findings(before + before[:2], after + before[:3], change)
    assert quick == slow


@given(st.lists(FINDINGS, max_size=8), st.permutations(range(8)))
def test_the_same_findings_in_any_order_are_all_old(
    findings: list[Finding], order: list[int]
) -> None:
    shuffled = [findings[number] for number in order if number < len(findings)]
    split = split_findings(findings, shuffled, {})
    assert split.introduced == []
    assert split.resolved == []


@given(st.lists(FINDINGS, max_size=8), FINDINGS, st.booleans())
def test_a_finding_in_words_no_one_wrote_is_introduced(
    before: list[Finding], like: Finding, changed: bool
) -> None:
    # However it overlaps the findings before, a message with a word that none of them has
    # and no change wrote is new.
    change = {"a.py": Change(TEXT, TEXT.replace("a + b", "b + a"))} if changed else {}
    fresh = like._replace(message=like.message + " unheard")
    split = split_findings(before, [fresh], change)
    assert split.introduced == [0]


KEYED = st.builds(
    lambda finding, path, server: finding._replace(path=path, server=server),
    FINDINGS,
    st.sampled_from(["a.py", "b.py"]),
    st.sampled_from(["srv", "other"]),
)


@given(st.lists(KEYED, max_size=12), st.lists(KEYED, max_size=12), st.booleans())
def test_a_split_a_path_and_server_at_a_time_gives_the_answer_of_one_split(
    before: list[Finding], after: list[Finding], changed: bool
) -> None:
    """The rule pairs findings of one path and server only: split a key at a time, with the
    change's files read once for all (``shared``), the answer is that of one split. The
    words written in b.py explain a message in a.py across the keys."""
    change = {"b.py": Change(TEXT, TEXT.replace("name_1", "name b"))} if changed else {}
    whole = split_findings(before, after, change)
    shared = changes.ChangedFiles(change)
    introduced: list[int] = []
    resolved: list[int] = []
    matched: dict[int, int] = {}
    for key in {(f.path, f.server) for f in [*before, *after]}:
        olds = [n for n, f in enumerate(before) if (f.path, f.server) == key]
        news = [n for n, f in enumerate(after) if (f.path, f.server) == key]
        part = split_findings(
            [before[n] for n in olds], [after[n] for n in news], change, shared=shared
        )
        introduced += (news[n] for n in part.introduced)
        resolved += (olds[n] for n in part.resolved)
        matched.update((news[n], olds[o]) for n, o in part.matched.items())
    assert (sorted(introduced), sorted(resolved), matched) == (
        whole.introduced,
        whole.resolved,
        whole.matched,
    )


def test_an_error_and_a_warning_at_one_place_both_stay_old_in_any_order() -> None:
    """Equally close pairs of the same severity are made first: a warning never takes the
    error an identical error after needs (hypothesis found it)."""
    error = Finding("a.py", "srv", "src", "E1", 4, 0, 0, 0, 0, "m 1")
    warning = error._replace(severity=3)
    split = split_findings([error, warning], [warning, error], {})
    assert split.introduced == []
    assert split.resolved == []
    assert split.matched == {0: 1, 1: 0}


MOVES = [
    ("file:///tmp/since-x/tree", "file:///home/me/repo"),
    ("/tmp/since-x/tree", "/home/me/repo"),
]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "Cycle detected in import chain\n  /tmp/since-x/tree/pkg/a.py\n"
            "  /tmp/since-x/tree/b.py",
            "Cycle detected in import chain\n  /home/me/repo/pkg/a.py\n  /home/me/repo/b.py",
        ),
        (
            '"file:///tmp/since-x/tree/a%20b.py" is unused',
            '"file:///home/me/repo/a%20b.py" is unused',
        ),
        ("in /tmp/since-x/tree", "in /home/me/repo"),
        ("(/tmp/since-x/tree): no", "(/home/me/repo): no"),
        # Another folder that only begins like the root, and a message that names none.
        ("/tmp/since-x/tree2/a.py", "/tmp/since-x/tree2/a.py"),
        ("x is not defined", "x is not defined"),
    ],
)
def test_a_message_about_a_copy_names_the_repository(message: str, expected: str) -> None:
    assert changes.moved_roots(message, MOVES) == expected


def test_a_root_moved_is_the_same_message_to_the_rule() -> None:
    before = [at(0, 0, 1, changes.moved_roots("cycle: /tmp/since-x/tree/a.py", MOVES))]
    after = [at(0, 0, 1, "cycle: /home/me/repo/a.py")]
    assert split_findings(before, after, {}) == Split([], [], {0: 0})
