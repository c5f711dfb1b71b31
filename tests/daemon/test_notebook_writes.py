"""Notebooks written and changed between commands through the daemon, whose ruff keeps them
open: each write ends final (exit 0), and each check after a change of some cells reports
every cell as the notebook now is, as ``ruff check`` does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import need, tool_env, write
from tests.cli.test_notebook_writes import CONFIG, _many, check_many_fixed
from tests.daemon.conftest import Daemon
from tests.integration.conftest import VENV_BIN

pytestmark = pytest.mark.real_server

COUNT = 20


def _ruffs_findings(root: Path) -> list[tuple[str, int, int, int, str]]:
    """``ruff check``'s own findings of the notebooks: path, cell, line, column, code."""
    ran = subprocess.run(
        [str(VENV_BIN / "ruff"), "check", "--no-cache", "--output-format", "json", "."],
        cwd=root,
        env=tool_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return sorted(
        (item["filename"].removeprefix(f"{root}/"), item["cell"], *_place(item), item["code"])
        for item in json.loads(ran.stdout)
    )


def _place(item: dict[str, object]) -> tuple[int, int]:
    location = item["location"]
    assert isinstance(location, dict)
    return location["row"], location["column"]


def test_writes_and_changes_of_cells_between_commands(daemon: Daemon, tmp_path: Path) -> None:
    need("ruff")
    root = write(tmp_path / "p", CONFIG)
    _many(root, COUNT)
    check_many_fixed(root, COUNT, daemon.run("fix", "--write", "--no-progress", cwd=root))

    # Cell 3 no longer defines `value`, which cell 4 uses: only cell 3 changed.
    for number in range(COUNT):
        path = root / f"nb{number:03}.ipynb"
        path.write_text(path.read_text().replace('"value = ', '"amount = '), encoding="utf-8")
    checked = daemon.run("check", "--format", "json", cwd=root)
    assert checked.status == 3, checked  # r.ipynb: no installed server takes it
    document = json.loads(checked.out)
    ours = sorted(
        (d["path"], d["cell"], d["line"], d["column"], d["code"]) for d in document["diagnostics"]
    )
    assert ours == _ruffs_findings(root)
    assert ("nb000.ipynb", 4, 1, 7, "F821") in ours
    assert [path for path, status in document["files"].items() if not status["complete"]] == [
        "r.ipynb"
    ]

    # All the notebooks as they were first: fixed again, each write final.
    _many(root, COUNT)
    check_many_fixed(root, COUNT, daemon.run("fix", "--write", "--no-progress", cwd=root))
