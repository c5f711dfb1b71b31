"""Parallel hooks of one session (agents run tools in parallel): eight ``PostToolUse`` calls at
once each add what they saw to the session's state, none overwriting another's, so that the
stop names every error the turn introduced."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import need, run
from tests.cli.test_hook_affected import FIXTURES, hook_out
from tests.hostile_repo import git

pytestmark = pytest.mark.real_server

FILES = 8


def hook(root: Path, env: dict[str, str], event: str, given: dict[str, Any]) -> str:
    return hook_out(root, env, event, given, timeout=240)


@pytest.mark.parametrize("daemon", ["on", "off"])
def test_eight_hooks_at_once_lose_nothing_of_the_turn(tmp_path: Path, daemon: str) -> None:
    need("basedpyright")
    root = tmp_path / "project"
    root.mkdir()
    (root / "adecore-lsp.toml").write_text('servers = ["basedpyright"]\n', encoding="utf-8")
    for number in range(FILES):
        (root / f"m{number}.py").write_text("value: int = 1\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    (tmp_path / "runtime").mkdir(mode=0o700)
    env = {
        "ADECORE_LSP_RUNTIME_DIR": str(tmp_path / "runtime"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "ADECORE_LSP_DAEMON": daemon,
    }
    # The agent's eight edits land together, ten errors in all; then their hooks run at once.
    inputs = []
    for number in range(FILES):
        path = root / f"m{number}.py"
        broken = 'value: int = "x"\n' + ("other: str = 2\n" if number < 2 else "")
        path.write_text(broken, encoding="utf-8")
        data: dict[str, Any] = json.loads(
            (FIXTURES / "claude-code__PostToolUse.json").read_text(encoding="utf-8")
        )
        data.update(session_id="parallel", cwd=str(root), tool_name="Write")
        data["tool_input"] = {"file_path": str(path), "content": broken}
        inputs.append(data)
    try:
        with ThreadPoolExecutor(FILES) as pool:
            list(pool.map(lambda given: hook(root, env, "PostToolUse", given), inputs))
        stop: dict[str, Any] = json.loads(
            (FIXTURES / "claude-code__Stop.json").read_text(encoding="utf-8")
        )
        stop.update(session_id="parallel", cwd=str(root), stop_hook_active=False)
        said = json.loads(hook(root, env, "Stop", stop))
        assert said["decision"] == "block"
        assert said["reason"].startswith("adecore-lsp: the edits of this turn introduced 10 errors")
        for number in range(FILES):
            assert f"m{number}.py:1:" in said["reason"]
    finally:
        run("daemon", "stop", cwd=root, env=env)
