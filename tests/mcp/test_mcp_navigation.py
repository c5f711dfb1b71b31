"""Navigation through the MCP server, timed and ordered as an agent needs it.

``references`` on a warm server waits for no timer: a server that reports work-done progress
for each of its answers (as basedpyright does, "Finding references") does not make the next
call wait out a settle window. Scripted (``scripted_lsp.py``) and with basedpyright.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import find_server

from .harness import Client, structured

SCRIPTED = Path(__file__).with_name("scripted_lsp.py")

SETTLE = 3.0
"""The scripted server's settle window: what a call would wait after the last one's progress."""

WARM_BOUND = 1.0
"""A warm references call answers within this (the server's own time is milliseconds)."""

USES = "def f() -> int:\n    return 1\n\n\nf()\nf()\n"


def place(line: int, start: int, end: int) -> dict[str, Any]:
    return {
        "uri": "$ROOT/a.py",
        "range": {
            "start": {"line": line, "character": start},
            "end": {"line": line, "character": end},
        },
    }


def scripted_root(root: Path, config: dict[str, Any], settle: float = SETTLE) -> Path:
    """A root whose ``.py`` files go to the scripted server with ``config``, declared ready
    by its registration of pulls (as basedpyright is), with a settle window of ``settle``."""
    command = json.dumps([sys.executable, str(SCRIPTED), json.dumps(config)])
    (root / "adecore-lsp.toml").write_text(
        'servers = ["scripted"]\n[server.scripted]\n'
        f"command = {command}\n"
        'languages = { ".py" = "python" }\n'
        'readiness = "registration"\n'
        'ready_registration = "textDocument/diagnostic"\n'
        f"settle = {settle}\n",
        encoding="utf-8",
    )
    (root / "a.py").write_text(USES, encoding="utf-8")
    return root.resolve()


@pytest.fixture
def progressing(tmp_path: Path) -> Iterator[Client]:
    """A client of a server that reports progress while it answers each references call."""
    config = {
        "register_pulls": True,
        "references": [place(4, 0, 1), place(5, 0, 1)],
        "symbols": {"a.py": []},
    }
    root = scripted_root(tmp_path, config)
    session = Client.stdio("--root", root, "--trust")
    try:
        yield session
    finally:
        session.close()


def timed(client: Client, name: str, arguments: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    began = time.monotonic()
    result = client.call(name, arguments)
    return time.monotonic() - began, structured(result)


def test_warm_references_wait_for_no_settle_window(progressing: Client) -> None:
    _first, found = timed(progressing, "references", {"target": "a.py:1:5"})
    assert [(item["line"], item["column"]) for item in found["items"]] == [(5, 1), (6, 1)]
    for _ in range(2):
        took, again = timed(progressing, "references", {"target": "a.py:1:5"})
        assert again["items"] == found["items"]
        assert took < WARM_BOUND, f"a warm references call took {took:.2f} s"


@pytest.mark.real_server
def test_warm_references_with_basedpyright_wait_for_no_timer(tmp_path: Path) -> None:
    """basedpyright reports "Finding references" for each call, and its settle window is
    1.5 s: the second call used to wait that long after the first."""
    find_server("basedpyright-langserver")
    (tmp_path / "lib.py").write_text(USES, encoding="utf-8")
    (tmp_path / "use.py").write_text("from lib import f\n\nf()\n", encoding="utf-8")
    client = Client.stdio("--root", tmp_path.resolve(), "--server", "basedpyright")
    try:
        structured(client.call("diagnostics", {}))  # analysed: its pulls reported progress
        _first, found = timed(client, "references", {"target": "lib.py#f"})
        assert {(item["path"], item["line"]) for item in found["items"]} == {
            ("lib.py", 5),
            ("lib.py", 6),
            ("use.py", 1),
            ("use.py", 3),
        }
        for _ in range(2):
            took, again = timed(client, "references", {"target": "lib.py#f"})
            assert again["items"] == found["items"]
            assert took < WARM_BOUND, f"a warm references call took {took:.2f} s"
    finally:
        client.close()
