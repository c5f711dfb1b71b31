"""Many calls at once on one workspace, as the MCP server over HTTP and the daemon make them.

Once wrong: with 330 concurrent ``diagnostics()`` calls and files changing on disk among
them, pyrefly's answers came back ``complete=False, reason="timeout"`` long before the
deadline (a file final a moment earlier got another report for its version while the
others were read, and was taken as timed out instead of waited for again).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from adecore_lsp import Workspace
from tests.integration.conftest import find_server
from tests.workspace.conftest import write

pytestmark = pytest.mark.real_server


@pytest.mark.parametrize("server", ["pyrefly", "ruff"])
async def test_330_concurrent_calls_with_edits_are_all_complete(
    tmp_path: Path, server: str
) -> None:
    find_server(server)
    files = {f"m{i}.py": f"import os\nx = {i}\n" for i in range(10)}
    root = write(tmp_path / "proj", files)
    names = sorted(files)

    async def call(k: int) -> tuple[bool, object, float]:
        if k % 30 == 0:
            with open(root / names[k % 10], "a") as file:
                file.write(f"y{k} = 1\n")
        began = time.monotonic()
        report = await ws.diagnostics([names[k % 10]], timeout=60)
        return report.complete, report.files, time.monotonic() - began

    async with Workspace(root, servers=[server]) as ws:
        await ws.diagnostics(names, timeout=60)
        answers = await asyncio.gather(*(call(k) for k in range(330)))
    incomplete = [(files, took) for complete, files, took in answers if not complete]
    assert incomplete == []
