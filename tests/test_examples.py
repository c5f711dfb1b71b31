"""The runnable examples: the README's main job and the wire-level walk-through."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import find_server

pytestmark = pytest.mark.real_server

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*arguments: str) -> str:
    result = subprocess.run(
        [sys.executable, "-X", "dev", "-W", "error", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_check_project_prints_the_sample_projects_diagnostics() -> None:
    """The main job lists ruff's three findings in the sample project, at the right columns."""
    find_server("ruff")
    output = run(str(EXAMPLES / "check_project.py"))
    assert output.splitlines() == [
        output.splitlines()[0],
        "app.py:3:8: F401 `os` imported but unused",
        "app.py:7:5: F841 Local variable `message` is assigned to but never used",
        "app.py:8:12: F821 Undefined name `mesage`",
        "3 diagnostics in 1 files",
    ]
    assert output.startswith("ruff ")


def test_check_project_in_a_folder_whose_name_needs_escaping(tmp_path: Path) -> None:
    """A project path with a space, + and brackets: the URIs are made and read properly."""
    find_server("ruff")
    project = tmp_path / "my proj+[x]"
    shutil.copytree(EXAMPLES / "sample_project", project)
    output = run(str(EXAMPLES / "check_project.py"), str(project))
    assert "app.py:8:12: F821 Undefined name `mesage`" in output
    assert output.splitlines()[-1] == "3 diagnostics in 1 files"


def test_check_project_with_another_server() -> None:
    """Any server command after -- does the same job (pyrefly counts utf-16)."""
    pyrefly = find_server("pyrefly")
    output = run(str(EXAMPLES / "check_project.py"), "--", pyrefly, "lsp")
    assert "app.py:8:12: unknown-name Could not find name `mesage`" in output


def test_server_capabilities_walks_the_handshake() -> None:
    """The wire-level example prints the server's name, encoding and features, exit code 0."""
    find_server("ruff")
    output = run(str(EXAMPLES / "server_capabilities.py"))
    assert output.startswith("server: ruff")
    assert "position encoding: utf-8" in output
    assert "  hoverProvider" in output
    assert output.rstrip().endswith("exit code: 0")
