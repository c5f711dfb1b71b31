"""The delta pairs the findings that stayed as they were in files the change did not touch
before the rule runs: the same answer as the rule alone, for a fraction of the work (an edit
on a large tree has thousands of findings, nearly all in untouched files)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from adecore_lsp.protocol.workspace.changes import Change, split_findings
from adecore_lsp.workspace.checks import delta
from adecore_lsp.workspace.model import Diagnostic

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


def test_the_rule_sees_only_what_did_not_stay_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    before, after = findings(0)
    seen: list[int] = []
    rule = split_findings

    def counted(olds: Any, news: Any, changes: Any) -> Any:
        seen.append(len(olds) + len(news))
        return rule(olds, news, changes)

    monkeypatch.setattr(delta, "split_findings", counted)
    delta.split(before, after, {"a.py": Change(OLD, NEW)})
    touched = sum(1 for item in [*before, *after] if item.path == "a.py")
    untouched_changed = len(before) + len(after) - touched
    # The changed file's findings all go through the rule; of the others, only those that
    # did not stay the same in every field (a fraction).
    assert touched <= seen[0] < touched + untouched_changed / 2
