"""What an edit costs follows the edit, not what the session has open: with every file of a
60-module tree open, an edit of a module nothing imports asks the servers about that module
alone (counted in a trace of every message), and one of a module everything imports asks
about its importers, opened for the question and closed after."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import Workspace
from tests.integration.conftest import find_server

pytestmark = pytest.mark.real_server

MODULES = 60


def tree(root: Path) -> None:
    """``core.py``, imported by every ``mod_N.py``; ``leaf.py``, imported by nothing."""
    (root / "core.py").write_text("def base(x: int) -> int:\n    return x\n", encoding="utf-8")
    for number in range(MODULES - 2):
        (root / f"mod_{number}.py").write_text(
            f"from core import base\n\nvalue_{number}: int = base({number})\n", encoding="utf-8"
        )
    (root / "leaf.py").write_text("def alone() -> int:\n    return 1\n", encoding="utf-8")


def asked(trace: Path, since: int) -> list[tuple[str, str]]:
    """Each (method, file name) the workspace sent from line ``since`` of the trace on."""
    found = []
    for line in trace.read_text(encoding="utf-8").splitlines()[since:]:
        entry: dict[str, Any] = json.loads(line)
        message = entry["message"]
        if entry["direction"] != "send" or "method" not in message:
            continue
        document = (message.get("params") or {}).get("textDocument") or {}
        found.append((message["method"], str(document.get("uri", "")).rpartition("/")[2]))
    return found


def lines(trace: Path) -> int:
    return len(trace.read_text(encoding="utf-8").splitlines())


async def test_an_edit_asks_about_what_it_can_break_whatever_is_open(tmp_path: Path) -> None:
    find_server("basedpyright-langserver")
    root = tmp_path / "tree"
    root.mkdir()
    tree(root)
    trace = tmp_path / "trace.jsonl"
    async with Workspace(root, servers=["basedpyright"], trace=trace, trust=True) as ws:
        report = await ws.diagnostics()  # every file of the tree open, its answers final
        assert report.complete
        assert len([u for u, _ in ws.open_files.items()]) == MODULES
        mark = lines(trace)
        delta = await ws.edit("leaf.py", "def alone() -> int:\n    return 2\n")
        assert (delta.complete, delta.checked, delta.introduced) == (True, ["leaf.py"], [])
        pulls = [name for method, name in asked(trace, mark) if method == "textDocument/diagnostic"]
        # The side before was known; after the edit, leaf.py alone (again if the server
        # asked for a refresh meanwhile): a handful at most, never the 60 open files.
        assert set(pulls) == {"leaf.py"}
        assert len(pulls) <= 3

        # core.py is imported by every module: they are the edit's affected set.
        mark = lines(trace)
        delta = await ws.edit("core.py", "def base(x: int) -> str:\n    return str(x)\n")
        assert delta.complete
        assert len(delta.checked) == MODULES - 1
        assert len([item for item in delta.introduced if item.path.startswith("mod_")]) == (
            MODULES - 2
        )
        sent = asked(trace, mark)
        assert ("textDocument/diagnostic", "leaf.py") not in sent


async def test_files_opened_for_the_question_are_closed_after(tmp_path: Path) -> None:
    """With only the edited file open, its importers are opened to be asked, and closed
    again: the servers are left with the files they had."""
    find_server("basedpyright-langserver")
    root = tmp_path / "tree"
    root.mkdir()
    tree(root)
    trace = tmp_path / "trace.jsonl"
    async with Workspace(root, servers=["basedpyright"], trace=trace, trust=True) as ws:
        await ws.open("core.py")
        delta = await ws.edit("core.py", "def base(x: int) -> str:\n    return str(x)\n")
        assert delta.complete
        assert len(delta.introduced) == MODULES - 2
        assert sorted(ws.paths.relative(known.path) for _, known in ws.open_files.items()) == [
            "core.py"
        ]
        sent = asked(trace, 0)
        opened = {name for method, name in sent if method == "textDocument/didOpen"}
        closed = {name for method, name in sent if method == "textDocument/didClose"}
        assert opened - {"core.py"} == closed
        assert "leaf.py" not in opened


async def test_a_rename_checks_the_files_that_name_it(tmp_path: Path) -> None:
    """A rename's server renamed every use it found: a file that imports a changed module
    but names neither the old name nor the new is not checked; one that does is."""
    find_server("basedpyright-langserver")
    root = tmp_path / "tree"
    root.mkdir()
    (root / "core.py").write_text(
        "def base(x: int) -> int:\n    return x\n\n\ndef other() -> int:\n    return 1\n",
        encoding="utf-8",
    )
    (root / "user.py").write_text("from core import base\n\nb = base(1)\n", encoding="utf-8")
    (root / "bystander.py").write_text("from core import other\n\no = other()\n")
    (root / "clash.py").write_text(
        "from core import *\n\n\ndef renamed() -> str:\n    return ''\n", encoding="utf-8"
    )
    async with Workspace(root, servers=["basedpyright"], trust=True) as ws:
        plan = await ws.rename("core.py#base", "renamed")
        assert plan.names == ("base", "renamed")
        applied = await ws.apply(plan)
        assert applied.delta.complete
        # clash.py names the new name (and now redefines it): checked; bystander.py is not.
        assert applied.delta.checked == ["clash.py", "core.py", "user.py"]
