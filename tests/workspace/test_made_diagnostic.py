"""A check's findings are made without the frozen dataclass's ``__init__`` (for speed): each
is the same ``Diagnostic`` in every respect a user can see."""

from __future__ import annotations

import dataclasses

import pytest

from adecore_lsp import Diagnostic
from adecore_lsp.workspace.disk.units import made


def test_made_is_the_dataclass_with_the_same_fields() -> None:
    raw = {"range": {}, "message": "m"}
    fast = made("a.py", 1, 2, 3, 4, "warning", "m", "src", "E1", "ruff", True, raw, 5)
    slow = Diagnostic(
        path="a.py",
        line=1,
        column=2,
        end_line=3,
        end_column=4,
        severity="warning",
        message="m",
        source="src",
        code="E1",
        server="ruff",
        stale=True,
        raw=raw,
        cell=5,
    )
    assert fast == slow
    assert hash(fast) == hash(slow)
    assert repr(fast) == repr(slow)
    assert str(fast) == str(slow)
    assert dataclasses.asdict(fast) == dataclasses.asdict(slow)
    # Every field is set, and nothing else: a field added to Diagnostic must be added here.
    assert list(vars(fast)) == [field.name for field in dataclasses.fields(Diagnostic)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.line = 9  # type: ignore[misc]
    assert dataclasses.replace(fast, line=9).line == 9
