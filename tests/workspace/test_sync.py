"""``adecore_lsp.sync.Workspace``: the workspace without ``await``, in a script and inside a
running event loop (as in Jupyter), with ruff."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adecore_lsp import TargetNotFoundError, sync
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
