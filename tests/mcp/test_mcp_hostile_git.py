"""The MCP server on a stranger's repository whose git configuration names programs: its
``diagnostics`` of the whole root runs none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import need
from tests.hostile_repo import hostile_repository, markers

from .harness import Client, structured

pytestmark = pytest.mark.real_server


def test_diagnostics_run_no_program_the_git_configuration_names(tmp_path: Path) -> None:
    need("ruff")
    config = '[tool.adecore-lsp]\nservers = ["ruff"]\n'
    files = {"pyproject.toml": config, "app.py": "import os\n", "pkg/util.py": "import re\n"}
    root = hostile_repository(tmp_path / "repo", files, tmp_path / "m")
    client = Client.stdio("--root", root)
    try:
        whole = structured(client.call("diagnostics"))
        folder = structured(client.call("diagnostics", {"paths": ["pkg"]}))
    finally:
        client.close()
    assert sorted((item["path"], item["code"]) for item in whole["items"]) == [
        ("app.py", "F401"),
        ("pkg/util.py", "F401"),
    ]
    assert [item["path"] for item in folder["items"]] == ["pkg/util.py"]
    assert markers(tmp_path / "m") == []
