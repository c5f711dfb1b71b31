"""Every Python example in the README and the docs runs, as a whole program."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def examples() -> list[pytest.ParameterSet]:
    found = []
    for path in DOCS:
        text = path.read_text()
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            name = f"{path.relative_to(ROOT)}:{line}"
            found.append(pytest.param(match.group(1), id=name))
    return found


@pytest.mark.real_server
@pytest.mark.parametrize("code", examples())
def test_example_runs(code: str, tmp_path: Path) -> None:
    """The example exits 0 with the project's servers on PATH, within a bound."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run(
        [sys.executable, "-X", "dev", "-W", "error", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_docs_have_examples() -> None:
    """The guide carries runnable examples (so the test above cannot pass on nothing)."""
    assert len(examples()) >= 5


def test_the_readme_names_every_dependency_pyproject_installs() -> None:
    """The README's list of dependencies is what ``pyproject.toml`` installs (once wrong: it
    said two, and three were installed)."""
    from adecore_lsp.workspace.servers.project_config import load_toml

    project = load_toml(ROOT / "pyproject.toml")["project"]
    names = [re.split(r"[<>=;\[ ]", spec, maxsplit=1)[0] for spec in project["dependencies"]]
    readme = (ROOT / "README.md").read_text()
    paragraph = next(part for part in readme.split("\n- ") if part.startswith("**Typed and small"))
    listed = set(re.findall(r"`([a-z][a-z0-9-]*)`", paragraph))
    assert set(names) <= listed, sorted(set(names) - listed)
    extras = project["optional-dependencies"]
    for extra in ("python", "mcp"):
        assert f"adecore-lsp[{extra}]" in paragraph
        assert extras[extra]
