"""The README's first command on a real ``git clone`` of this repository: its findings, byte
for byte as the README shows them. Once wrong: in the clone, the sample project lies in a git
work tree whose root configuration excludes it, and `check` printed "0 errors, 0 warnings in
1 file" (its own ``[tool.adecore-lsp]`` and ``[tool.ruff]`` were never read); the project's
tests copied the sample into a folder without ``.git``, so nothing caught it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import find_server

pytestmark = pytest.mark.real_server

PROJECT = Path(__file__).resolve().parents[2]


def readme_demo() -> list[str]:
    """The console block of the README that shows `adecore-lsp check`, without its prompt."""
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"```console\n\$ adecore-lsp check\n(.*?)```", text, re.DOTALL)
    assert found is not None, "the README shows `adecore-lsp check`"
    return found.group(1).splitlines()


def clone(target: Path) -> Path:
    """A ``git clone`` of this repository's committed files (the code under test is this
    checkout's, installed in the running environment)."""
    if not (PROJECT / ".git").exists():
        pytest.skip("this checkout is not a git work tree")
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(PROJECT), str(target)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return target


def program() -> str:
    """This environment's `adecore-lsp` console script (as the README runs it)."""
    found = shutil.which("adecore-lsp", path=os.path.dirname(sys.executable))
    assert found is not None, "the project is installed in this environment"
    return found


def test_the_readme_demo_prints_its_findings_in_a_fresh_clone(tmp_path: Path) -> None:
    find_server("ruff")
    root = clone(tmp_path / "adecore-lsp")
    sample = root / "examples" / "sample_project"
    env = {k: v for k, v in os.environ.items() if k != "ADECORE_LSP_TRUST"}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # no trust store: as a new user
    done = subprocess.run(
        [program(), "check"], cwd=sample, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.splitlines() == readme_demo(), done.stderr
    assert done.returncode == 1, done.stderr  # the sample project has its findings
    # The tool's own environment is not inside the clone: nothing it runs was ignored.
    assert "Traceback" not in done.stderr
    # From the repository's root the sample project is its own: `check examples/...`
    # gives the same findings, as `ruff check examples/sample_project` does there.
    named = subprocess.run(
        [program(), "check", "examples/sample_project"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert [line.replace("examples/sample_project/", "") for line in named.stdout.splitlines()] == (
        readme_demo()
    ), named.stderr
