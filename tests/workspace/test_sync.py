"""``adecore_lsp.sync.Workspace``: the workspace without ``await``, in a script and inside a
running event loop (as in Jupyter), with ruff."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import TargetNotFoundError, sync
from adecore_lsp.workspace.workspace import Workspace as AsyncWorkspace
from tests.workspace.conftest import write

pytestmark = pytest.mark.real_server

APP = "import os\n\n\ndef main() -> None:\n    pass\n"


def test_in_a_plain_script(tmp_path: Path) -> None:
    """A script that never heard of asyncio: diagnostics, then the servers end with it."""
    write(tmp_path, {"app.py": APP})
    script = textwrap.dedent(
        f"""
        from adecore_lsp.sync import Workspace

        with Workspace({str(tmp_path)!r}, servers=["ruff"]) as ws:
            report = ws.diagnostics(["app.py"])
            print(report.complete, [d.code for d in report.items])
            pid = ws.running[0].pid
        import os
        try:
            os.kill(pid, 0)
            print("still running")
        except ProcessLookupError:
            print("stopped")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["True ['F401']", "stopped"]


async def test_inside_a_running_loop(tmp_path: Path) -> None:
    """Called from a coroutine, as a notebook cell is: the loop of the caller keeps running."""
    write(tmp_path, {"app.py": APP})
    ws = sync.Workspace(tmp_path, servers=["ruff"])
    try:
        report = ws.diagnostics(["app.py"])
        assert report.complete
        assert [d.code for d in report.items] == ["F401"]
        # Errors reach the caller's thread with their own types.
        with pytest.raises(ValueError, match="has 5 lines"):
            ws.hover("app.py:9")
        with pytest.raises(TargetNotFoundError):
            ws.resolve("app.py#main")  # ruff gives no document symbols
    finally:
        ws.close()
    ws.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        ws.diagnostics(["app.py"])


ASYNC_ONLY = {
    # The facade's own end: close() (close(path) closes a file, as the async one does).
    "aclose",
    # What the library's command line, daemon and MCP server drive a workspace with: the
    # servers of a path and their handles, the disk's state between commands, asking the
    # servers directly, and the listeners of their progress bars.
    "adopt",
    "announce",
    "ask",
    "collecting",
    "file",
    "files_of",
    "first_answer",
    "handles_for",
    "notebook",
    "on_progress",
    "place",
    "root_files",
    "started",
    "sync_disk",
    "takes",
    # A workspace like this one on a revision's checkout, for new_since's revision side.
    "twin",
    "watch_tree",
    "which",
    "write",
}
"""The async Workspace's public names the facade leaves out, on purpose: a new public name
of the async Workspace fails the test below until the facade has it or it is listed here."""


def _public(cls: type) -> dict[str, Any]:
    return {name: value for name, value in inspect.getmembers(cls) if not name.startswith("_")}


def test_the_facade_has_every_method_of_the_async_workspace() -> None:
    """Same names, and for each method the same parameters (names, kinds, defaults)."""
    asynchronous, facade = _public(AsyncWorkspace), _public(sync.Workspace)
    assert asynchronous.keys() >= ASYNC_ONLY, "ASYNC_ONLY names what is no longer there"
    missing = sorted(asynchronous.keys() - ASYNC_ONLY - facade.keys())
    assert missing == [], f"adecore_lsp.sync.Workspace lacks {missing}"
    for name in sorted(asynchronous.keys() - ASYNC_ONLY):
        theirs, ours = asynchronous[name], facade[name]
        assert isinstance(theirs, property) == isinstance(ours, property), name
        if isinstance(theirs, property) or not callable(theirs):
            continue
        expected = [
            (p.name, p.kind, p.default) for p in inspect.signature(theirs).parameters.values()
        ]
        found = [(p.name, p.kind, p.default) for p in inspect.signature(ours).parameters.values()]
        if name == "close":  # close(path) of a file, or close() of the whole facade
            expected[1] = (*expected[1][:2], None)
        assert found == expected, name
        assert inspect.iscoroutinefunction(theirs), name
        assert not inspect.iscoroutinefunction(ours), name


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_preview_edit_and_new_since_without_await(tmp_path: Path) -> None:
    """ruff sees a preview as an unsaved text and nothing is written; new_since compares
    the working tree with a git revision; a closed facade says so."""
    root = write(tmp_path / "repo", {"app.py": "x = 1\n", "old.py": "import os\n"})
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "one")
    app = root / "app.py"
    before = app.stat()
    with sync.Workspace(root, servers=["ruff"]) as ws:
        assert not ws.closed
        delta = ws.preview_edit("app.py", "import sys\n\nx = 1\n")
        assert [(d.path, d.code) for d in delta.introduced] == [("app.py", "F401")]
        assert delta.resolved == []
        assert delta.complete
        assert app.read_bytes() == b"x = 1\n"
        assert app.stat().st_mtime_ns == before.st_mtime_ns
        assert ws.diagnostics(["app.py"]).items == []  # the servers have the disk's text again
        write(root, {"app.py": "import json\n\nx = 1\n"})
        report = ws.new_since("HEAD", timeout=60)
        assert [(d.path, d.code) for d in report.items] == [("app.py", "F401")]
        assert report.resolved == []
        assert report.complete
    assert ws.closed
    with pytest.raises(RuntimeError, match="closed"):
        ws.preview_edit("app.py", "y = 2\n")
