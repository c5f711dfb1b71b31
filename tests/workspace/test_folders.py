"""``Workspace(root, folders=...)``: a server of the whole repository (ruff) starts with the
workspace's folders, and is told of a package's folder (``workspace/didChangeWorkspaceFolders``)
when a file of it is first opened, instead of anything being started: ruff then checks that
file with its package's settings, as ``ruff check`` run there does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import Workspace, sync
from tests.integration.conftest import find_server
from tests.workspace.conftest import write

pytestmark = pytest.mark.real_server

CODE = "from typing import List\nimport os\n\n\ndef f(x: List[int]) -> List[int]:\n    return x\n"

TREE = {
    "packages/a/pyproject.toml": "[tool.ruff]\nline-length = 88\n",
    "packages/a/x.py": CODE,
    "packages/b/pyproject.toml": '[tool.ruff.lint]\nselect = ["UP", "F"]\n',
    "packages/b/x.py": CODE,
}
"""b's ruff settings select pyupgrade's rules: its findings differ from the defaults."""


def ruff_check(folder: Path) -> list[tuple[int, int, str]]:
    """What ``ruff check`` finds run in ``folder``: line, column and code."""
    done = subprocess.run(
        [find_server("ruff"), "check", "--output-format", "json", "--no-cache", "."],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return sorted(
        (item["location"]["row"], item["location"]["column"], item["code"])
        for item in json.loads(done.stdout)
    )


def sent(trace: Path, method: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    return [
        line["message"]["params"]
        for line in lines
        if line["direction"] == "send" and line["message"].get("method") == method
    ]


async def test_a_package_outside_the_folders_is_told_and_checked_with_its_settings(
    tmp_path: Path,
) -> None:
    root = write(tmp_path / "repo", TREE).resolve()
    trace = tmp_path / "trace.jsonl"
    async with Workspace(root, servers=["ruff"], folders=["packages/a"], trace=trace) as ws:
        report = await ws.diagnostics(["packages/b/x.py"])
        ours = sorted((d.line, d.column, d.code) for d in report.items)
        assert len(ws.running) == 1  # one ruff: b joined it, nothing was started for it
        assert ws.running[0].root == str(root)
    assert ours == ruff_check(root / "packages/b")
    assert ours[0] == (1, 1, "UP035")  # b's own rule, which the defaults do not select
    (initialize,) = sent(trace, "initialize")
    assert initialize["workspaceFolders"] == [{"uri": (root / "packages/a").as_uri(), "name": "a"}]
    assert sent(trace, "workspace/didChangeWorkspaceFolders") == [
        {"event": {"added": [{"uri": (root / "packages/b").as_uri(), "name": "b"}], "removed": []}}
    ]


async def test_files_of_the_folders_given_need_no_telling(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", TREE).resolve()
    trace = tmp_path / "trace.jsonl"
    folders = ["packages/a", "packages/b"]
    async with Workspace(root, servers=["ruff"], folders=folders, trace=trace) as ws:
        report = await ws.diagnostics(["packages/a/x.py", "packages/b/x.py"])
    assert report.complete
    assert sent(trace, "workspace/didChangeWorkspaceFolders") == []
    assert [folder["name"] for folder in sent(trace, "initialize")[0]["workspaceFolders"]] == [
        "a",
        "b",
    ]
    b = sorted((d.line, d.column, d.code) for d in report.items if d.path.startswith("packages/b"))
    assert b == ruff_check(root / "packages/b")


def test_folders_outside_the_root_or_that_are_no_folders_are_refused(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", TREE)
    with pytest.raises(ValueError, match="outside the root"):
        Workspace(root, folders=[tmp_path])
    with pytest.raises(ValueError, match="is not a folder"):
        Workspace(root, folders=["packages/a/x.py"])
    with pytest.raises(ValueError, match="a list of folders"):
        Workspace(root, folders="packages/a")


def test_the_sync_facade_takes_folders(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", TREE)
    with sync.Workspace(root, servers=["ruff"], folders=["packages/a"]) as ws:
        report = ws.diagnostics(["packages/b/x.py"])
    assert sorted((d.line, d.column, d.code) for d in report.items) == ruff_check(
        root / "packages/b"
    )
