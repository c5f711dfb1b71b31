"""The delta pairs the findings that stayed as they were in files the change did not touch
before the rule runs: the same answer as the rule alone, for a fraction of the work (an edit
on a large tree has thousands of findings, nearly all in untouched files)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adecore_lsp.protocol.workspace import changes as changes_module
from adecore_lsp.protocol.workspace.changes import Change, split_findings
from adecore_lsp.workspace.checks import delta
from adecore_lsp.workspace.model import Diagnostic, Severity

OLD = "".join(f"line {n}\n" for n in range(40))
NEW = OLD.replace("line 7\n", "line 7 changed\nline 7b\n")


def diagnostic(path: str, line: int, message: str, severity: Any = "warning") -> Diagnostic:
    return Diagnostic(path, line, 1, line, 5, severity, message, "src", "C1", "server")


def findings(seed: int) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """Findings before and after a change of ``a.py``, in ``a.py`` and two untouched files:
    most stay, some go, some come, some change severity or message, some twice alike."""
    rng = random.Random(seed)
    before: list[Diagnostic] = []
    after: list[Diagnostic] = []
    for path in ("a.py", "b.py", "c.py"):
        for _ in range(60):
            line = rng.randrange(1, 40)
            item = diagnostic(path, line, f"message {rng.randrange(5)}")
            fate = rng.random()
            before.append(item)
            if fate < 0.7:
                after.append(item)
            elif fate < 0.8:
                after.append(diagnostic(path, line, item.message, "error"))
            elif fate < 0.85:
                after.extend([item, replace(item)])
            elif fate < 0.9:
                after.append(diagnostic(path, line, "another message"))
        after.append(diagnostic(path, rng.randrange(1, 40), "new"))
    rng.shuffle(after)
    return before, after


def by_rule_alone(
    before: list[Diagnostic], after: list[Diagnostic], changes: dict[str, Change]
) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
    result = split_findings(
        [delta.finding(item) for item in before],
        [delta.finding(item) for item in after],
        delta._per_cell(changes),
    )
    return (
        [after[n] for n in result.introduced],
        [before[n] for n in result.resolved],
        [after[n] for n in sorted(result.matched)],
    )


def key(item: Diagnostic) -> tuple[object, ...]:
    return (item.path, item.line, item.severity, item.message)


@pytest.mark.parametrize("seed", range(20))
def test_pairing_first_gives_the_rules_answer(seed: int) -> None:
    before, after = findings(seed)
    changes = {"a.py": Change(OLD, NEW)}
    paired = delta.split(before, after, changes)
    alone = by_rule_alone(before, after, changes)
    for mine, rules in zip(paired, alone, strict=True):
        assert sorted(map(key, mine)) == sorted(map(key, rules))
    # Each list keeps the order it is documented to have: introduced and unchanged that of
    # the findings after, resolved that of the findings before.
    introduced, resolved, unchanged = paired
    after_at = {id(item): number for number, item in enumerate(after)}
    before_at = {id(item): number for number, item in enumerate(before)}
    for found, at in ((introduced, after_at), (unchanged, after_at), (resolved, before_at)):
        places = [at[id(item)] for item in found]
        assert places == sorted(places)


def rule_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many findings (both sides) each call of the rule is given, from now on."""
    seen: list[int] = []
    rule = split_findings

    def counted(olds: Any, news: Any, changes: Any, **options: Any) -> Any:
        seen.append(len(olds) + len(news))
        return rule(olds, news, changes, **options)

    monkeypatch.setattr(delta, "split_findings", counted)
    return seen


def test_the_rule_sees_only_what_did_not_stay_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    before, after = findings(0)
    seen = rule_sizes(monkeypatch)
    delta.split(before, after, {"a.py": Change(OLD, NEW)})
    touched = sum(1 for item in [*before, *after] if item.path == "a.py")
    untouched_changed = len(before) + len(after) - touched
    # The changed file's findings all go through the rule; of the others, only those that
    # did not stay the same in every field (a fraction), a path at a time.
    assert touched <= sum(seen) < touched + untouched_changed / 2


# -- files changed by known edits (a rename, an edit tool's text edits) ------------------------

LINES = ["def f(a, b):\n", "    return a + b\n", "\n", "x = f(1, 2)  # é\n", "y = f(x, x)\r\n"]


@st.composite
def edited(draw: st.DrawFn) -> tuple[Change, list[Diagnostic], list[Diagnostic]]:
    """A file changed by a few edits (within a line, across lines, adding or removing lines),
    and findings before and after it: some the same in every field (on lines the edits
    touched or not, some multi-line, some past a line's end), some moved, gone or new."""
    old = "".join(draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=8)))
    cuts = sorted(draw(st.lists(st.integers(0, len(old)), max_size=6)))
    edits: list[tuple[int, int, str]] = []
    at = 0
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if start >= at:
            edits.append((start, end, draw(st.sampled_from(["", "g", "f2", "\n", "z\nw", "é"]))))
            at = end + 1
    new, shift = old, 0
    for start, end, text in edits:
        new = new[: start + shift] + text + new[end + shift :]
        shift += len(text) - (end - start)
    lines = old.count("\n") + 2

    def finding(message: str) -> Diagnostic:
        line = draw(st.integers(1, lines))
        end_line = draw(st.integers(line, min(lines, line + 1)))
        column = draw(st.integers(1, 20))
        end_column = draw(st.integers(1, 20)) if end_line > line else column + 1
        severity: Severity = draw(st.sampled_from(["error", "warning"]))
        return Diagnostic("a.py", line, column, end_line, end_column, severity, message, "s")

    before = [
        finding(draw(st.sampled_from(["m f", "m g"]))) for _ in range(draw(st.integers(0, 8)))
    ]
    after = [item for item in before if draw(st.booleans())]
    after += [finding(draw(st.sampled_from(["m f", "m f2", "m z"]))) for _ in range(3)]
    after = draw(st.permutations(after))
    return Change(old, new, edits), before, list(after)


@given(edited())
def test_a_change_of_known_edits_paired_first_gives_the_rules_answer(
    case: tuple[Change, list[Diagnostic], list[Diagnostic]],
) -> None:
    """Findings the same before and after, on lines the edits left in place, are paired
    before the rule: the answer is the rule's alone, every list in its order."""
    change, before, after = case
    assert delta.split(before, after, {"a.py": change}) == by_rule_alone(
        before, after, {"a.py": change}
    )


def test_a_renames_findings_off_its_lines_never_reach_the_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = "".join(f"value_{n} = compute({n})\n" for n in range(50))
    at = [number for number in range(len(old)) if old.startswith("compute", number)]
    edits = [(start, start + len("compute"), "double") for start in at[:5]]
    partial = old
    for start, end, text in reversed(edits):
        partial = partial[:start] + text + partial[end:]
    found = [diagnostic("a.py", line, f"message {line}") for line in range(1, 51)]
    seen = rule_sizes(monkeypatch)
    introduced, resolved, unchanged = delta.split(
        found, found, {"a.py": Change(old, partial, edits)}
    )
    assert (introduced, resolved, len(unchanged)) == ([], [], 50)
    # The five lines the edits touched go through the rule, the 45 others do not.
    assert seen == [10]


# -- a split a file at a time, as each file's answer comes in -------------------------------------


def two_servers(seed: int) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """:func:`findings` with every other finding by a second server (a.py renamed to z.py
    after the change)."""
    before, after = findings(seed)
    before = [replace(item, server="other") if n % 2 else item for n, item in enumerate(before)]
    after = [replace(item, server="other") if n % 3 else item for n, item in enumerate(after)]
    after = [replace(item, path="z.py") if item.path == "a.py" else item for item in after]
    return before, after


@pytest.mark.parametrize("seed", range(10))
def test_a_split_by_file_and_server_gives_the_rules_answer(seed: int) -> None:
    before, after = two_servers(seed)
    changes = {"z.py": Change(OLD, NEW)}
    renamed = {"a.py": "z.py"}
    result = split_findings(
        [delta.finding(item, renamed.get(item.path)) for item in before],
        [delta.finding(item) for item in after],
        delta._per_cell(changes),
    )
    alone = (
        [after[n] for n in result.introduced],
        [before[n] for n in result.resolved],
        [after[n] for n in sorted(result.matched)],
    )
    assert delta.split(before, after, changes, renamed) == alone


def keys_split(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Each (path, server) the splitter runs the rule's steps for, from now on."""
    seen: list[tuple[str, str]] = []
    inner = delta.Splitter._split

    def counted(self: delta.Splitter, before: Any, after: Any) -> Any:
        item = (after or before)[0]
        seen.append((self.moved.get(item.path, item.path), item.server))
        return inner(self, before, after)

    monkeypatch.setattr(delta.Splitter, "_split", counted)
    return seen


def by_key(items: list[Diagnostic], path: str, server: str) -> list[Diagnostic]:
    return [item for item in items if (item.path, item.server) == (path, server)]


def test_files_split_as_their_answers_came_are_not_split_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before, after = two_servers(1)
    changes, renamed = {"z.py": Change(OLD, NEW)}, {"a.py": "z.py"}
    whole = delta.split(before, after, changes, renamed)
    splitter = delta.Splitter(changes, renamed)
    splitter.expect(before)
    for path in ("z.py", "b.py"):
        for server in ("server", "other"):
            splitter.found(by_key(after, path, server))
    seen = keys_split(monkeypatch)
    assert splitter.split(before, after) == whole
    # Only c.py's findings, which no answer brought early, are split at the end.
    assert sorted(seen) == [("c.py", "other"), ("c.py", "server")]


def test_findings_that_changed_since_they_were_split_are_split_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before, after = two_servers(2)
    changes = {"a.py": Change(OLD, NEW)}
    splitter = delta.Splitter(changes)
    splitter.expect(before)
    early = by_key(after, "b.py", "server")
    splitter.found(early[:-1])  # an answer the server later replaced
    seen = keys_split(monkeypatch)
    assert splitter.split(before, after) == delta.split(before, after, changes)
    assert ("b.py", "server") in seen
    # Equal findings that are not the very ones split are split again too.
    splitter.found([replace(item) for item in early])
    seen.clear()
    assert splitter.split(before, after) == delta.split(before, after, changes)
    assert ("b.py", "server") in seen


def test_an_answer_given_again_is_not_split_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server asked again (its refresh) answers the same: the very findings given again
    are not split again."""
    before, after = two_servers(3)
    splitter = delta.Splitter({"a.py": Change(OLD, NEW)})
    splitter.expect(before)
    early = by_key(after, "b.py", "server")
    splitter.found(early)
    seen = keys_split(monkeypatch)
    splitter.found(list(early))
    assert seen == []


def test_the_changed_files_are_read_at_the_first_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The words the change wrote and each changed file's steady lines are read when the
    first answer comes (the servers still work on the others), whatever file it is about,
    and once."""
    read: list[str | None] = []
    written = changes_module._File.written

    def reading(self: Any) -> set[str]:
        read.append(self.new)
        return written(self)

    monkeypatch.setattr(changes_module._File, "written", reading)
    before, after = two_servers(4)
    splitter = delta.Splitter({"a.py": Change(OLD, NEW), "c.py": Change(OLD, NEW)})
    splitter.expect(before)
    assert (read, dict(splitter.steady)) == ([], {})
    splitter.found(by_key(after, "b.py", "server"))  # a file the change did not touch
    assert read == [NEW, NEW]
    assert set(splitter.steady) == {"a.py", "c.py"}
    splitter.found(by_key(after, "c.py", "server"))
    splitter.split(before, after)
    assert read == [NEW, NEW]
