"""An edit's check works on each file's answer as it comes in: its findings converted and
split against the side before while the server works on the other files, so that what is
left after the last answer is the last file's share, not every file's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import Workspace
from adecore_lsp.workspace.checks import checking, delta
from tests.integration.conftest import find_server

pytestmark = pytest.mark.real_server

CALLERS = 12


def tree(root: Path) -> None:
    """``core.py``, called by every ``mod_N.py``."""
    (root / "core.py").write_text("def base(x: int) -> int:\n    return x\n", encoding="utf-8")
    for number in range(CALLERS):
        (root / f"mod_{number}.py").write_text(
            f"from core import base\n\nvalue_{number}: int = base({number})\n", encoding="utf-8"
        )


async def test_each_files_findings_are_split_as_its_answer_comes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    find_server("basedpyright-langserver")
    tree(tmp_path)
    splits: list[tuple[str, str]] = []  # (when, path)
    when = ["as the answers come"]
    inner_split, inner_final = delta.Splitter._split, delta.Splitter.split

    def counted(self: delta.Splitter, before: Any, after: Any) -> Any:
        splits.append((when[0], (after or before)[0].path))
        return inner_split(self, before, after)

    def final(self: delta.Splitter, before: Any, after: Any) -> Any:
        when[0] = "after the last answer"
        try:
            return inner_final(self, before, after)
        finally:
            when[0] = "as the answers come"

    async with Workspace(tmp_path, servers=["basedpyright"], trust=True) as ws:
        assert (await ws.diagnostics()).complete
        monkeypatch.setattr(delta.Splitter, "_split", counted)
        monkeypatch.setattr(delta.Splitter, "split", final)
        # Every caller now passes an int where a str is wanted.
        result = await ws.edit("core.py", "def base(x: str) -> str:\n    return x\n")
    assert result.complete
    broken = sorted({item.path for item in result.introduced})
    assert broken == sorted(f"mod_{number}.py" for number in range(CALLERS))
    # Each caller's findings were split when its answer came, none again at the end.
    assert {path for moment, path in splits if moment == "as the answers come"} >= set(broken)
    assert [path for moment, path in splits if moment == "after the last answer"] == []


async def test_a_checks_findings_are_given_as_each_file_is_final(tmp_path: Path) -> None:
    """``on_found`` is given each file's findings, in the report's order, before the check
    ends; the report holds the very findings given (converted once)."""
    find_server("basedpyright-langserver")
    tree(tmp_path)
    (tmp_path / "core.py").write_text("def base(x: str) -> str:\n    return x\n")
    async with Workspace(tmp_path, servers=["basedpyright"], trust=True) as ws:
        await ws.diagnostics()  # (the workspace's edit loop is made by an edit or a check)
        delta_of_nothing = await ws.edit("core.py", (tmp_path / "core.py").read_text())
        assert delta_of_nothing.introduced == []
        given: dict[Path, list[Any]] = {}
        files = sorted(tmp_path.glob("mod_*.py"))
        report = await checking.files_diagnostics(
            ws, files, 30.0, on_found=lambda path, found: given.__setitem__(path, found)
        )
    assert report.complete
    assert sorted(given) == files
    for path, found in given.items():
        assert found == sorted(found, key=checking.report_order)
        mine = [item for item in report.items if item.path == path.name]
        assert mine
        assert all(a is b for a, b in zip(found, mine, strict=True))
