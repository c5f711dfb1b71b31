"""What an MCP ``edit`` asks of the language servers, counted on a scripted server that logs
every message: the diagnostics known final for the current texts are not pulled again for
the side before the edit, and the file the edit wrote is announced to the servers once (the
next look at the root's files does not announce it again, which made every server judge its
other files afresh and basedpyright refresh all its pulls)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from adecore_lsp.workspace.files.disk_sync import TREE_INTERVAL

from .harness import Client, structured, text
from .test_mcp_navigation import scripted_root

OTHER = "from a import f\n\nf()\n"


@pytest.fixture
def logged(tmp_path: Path) -> Iterator[tuple[Client, Path]]:
    log = tmp_path / "received.log"
    config = {"register_pulls": True, "watch": True, "log": str(log), "symbols": {}}
    (tmp_path / "root").mkdir()
    root = scripted_root(tmp_path / "root", config)
    (root / "b.py").write_text(OTHER, encoding="utf-8")
    session = Client.stdio("--root", root, "--trust")
    try:
        yield session, log
    finally:
        session.close()


def received(log: Path, since: int) -> list[str]:
    """The messages the server logged from line ``since`` on."""
    return log.read_text(encoding="utf-8").splitlines()[since:]


def test_the_side_before_an_edit_takes_the_final_answers_it_has(
    logged: tuple[Client, Path],
) -> None:
    client, log = logged
    checked = structured(client.call("diagnostics", {"paths": ["a.py", "b.py"]}))
    assert checked["complete"] is True
    mark = len(received(log, 0))
    edit = {"path": "a.py", "edits": [{"old": "return 1", "new": "return 2"}]}
    found = structured(client.call("edit", edit))
    assert (found["applied"], found["complete"]) == (True, True)
    pulls = [line for line in received(log, mark) if line.startswith("textDocument/diagnostic")]
    # Only the side after the edit asks: both files' answers before it were final.
    assert sorted(pulls) == ["textDocument/diagnostic a.py", "textDocument/diagnostic b.py"]


def test_a_file_the_edit_wrote_is_announced_once(logged: tuple[Client, Path]) -> None:
    client, log = logged
    structured(client.call("diagnostics", {"paths": ["a.py", "b.py"]}))
    mark = len(received(log, 0))
    edit = {"path": "a.py", "edits": [{"old": "return 1", "new": "return 2"}]}
    structured(client.call("edit", edit))
    time.sleep(TREE_INTERVAL + 0.2)  # the next call looks at the root's files again
    structured(client.call("diagnostics", {"paths": ["b.py"]}))
    watched = [line for line in received(log, mark) if "didChangeWatchedFiles" in line]
    assert watched == ["workspace/didChangeWatchedFiles a.py"]


def test_dependents_the_deadline_does_not_allow_are_named_not_reached(tmp_path: Path) -> None:
    """An edit whose dependents are not all checked within the call's time answers within
    it: written, ``complete: false``, each file it could not check named in ``not_reached``
    (never taken as clean), the others checked."""
    config = {"register_pulls": True, "symbols": {}, "hold_pulls": {"late.py": 2}}
    (tmp_path / "root").mkdir()
    root = scripted_root(tmp_path / "root", config)
    (root / "core.py").write_text("def f() -> int:\n    return 1\n", encoding="utf-8")
    (root / "quick.py").write_text("from core import f\n\nf()\n", encoding="utf-8")
    (root / "late.py").write_text("import core\n\ncore.f()\n", encoding="utf-8")
    session = Client.stdio("--root", root, "--trust", "--timeout", "2")
    try:
        edit = {"path": "core.py", "edits": [{"old": "return 1", "new": "return 2"}]}
        # Answered (the server never answers late.py's pull after the edit): within the
        # call's bound, or the client's wait would have failed the call.
        found = structured(session.call("edit", edit, timeout=2 * 2 + 5))
        assert (found["applied"], found["complete"], found["reason"]) == (True, False, "timeout")
        assert found["not_reached"] == ["late.py"]
        assert found["checked"] == ["core.py", "quick.py"]
        assert (root / "core.py").read_text(encoding="utf-8").endswith("return 2\n")
        said = session.call("edit", {"path": "core.py", "edits": [{"old": "2", "new": "3"}]})
        assert "not reached in time: late.py" in text(said)
    finally:
        session.close()
