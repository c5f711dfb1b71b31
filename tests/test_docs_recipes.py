"""The shell recipes of docs/changes.md run as written, in a git repository whose pull
request (the working tree against ``origin/main``) breaks a caller it never touched."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import need, tool_env

pytestmark = pytest.mark.real_server

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "docs" / "changes.md"
SHELL = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)

JQ_STAND_IN = """#!{python}
import json, sys
# Only what the recipe asks: jq -r '.tool_input.file_path // empty'
value = json.load(sys.stdin).get("tool_input", {{}}).get("file_path")
print(value or "")
"""


def blocks() -> list[str]:
    return SHELL.findall(RECIPES.read_text(encoding="utf-8"))


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """``origin/main`` with a clean project; the working tree changes ``area``'s signature
    in src/app.py, which breaks src/use.py."""
    need("basedpyright")
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.adecore-lsp]\nservers = ["basedpyright"]\n\n'
        '[tool.basedpyright]\ntypeCheckingMode = "standard"\n',
        encoding="utf-8",
    )
    (root / "src" / "app.py").write_text(
        "def area(width: int, height: int) -> int:\n    return width * height\n",
        encoding="utf-8",
    )
    (root / "src" / "use.py").write_text(
        "from app import area\n\nprint(area(2, 3))\n", encoding="utf-8"
    )
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    git(root, "update-ref", "refs/remotes/origin/main", "HEAD")
    (root / "src" / "app.py").write_text(
        "def area(width: int, height: int, depth: int) -> int:\n"
        "    return width * height * depth\n",
        encoding="utf-8",
    )
    return root


def shell(
    script: str, cwd: Path, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", script],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_the_recipes_are_there() -> None:
    found = blocks()
    assert len(found) == 5, found
    assert "adecore-lsp --daemon on check --new-since HEAD --format json" in found[1]
    assert "check --new-since origin/main --format github" in found[3]
    assert "check --new-since origin/main --format sarif" in found[4]


def test_every_shell_recipe_runs_as_written(pull_request: Path, tmp_path: Path) -> None:
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    if shutil.which("jq") is None:
        stand_in = bin_folder / "jq"
        stand_in.write_text(JQ_STAND_IN.format(python=sys.executable), encoding="utf-8")
        stand_in.chmod(0o755)
    runtime = tmp_path / "runtime"
    env = tool_env({"ADECORE_LSP_RUNTIME_DIR": str(runtime), "TMPDIR": str(tmp_path)})
    env["PATH"] = os.pathsep.join([str(bin_folder), str(Path(sys.executable).parent), env["PATH"]])
    plain, hook_command, hook_script, github, sarif = blocks()
    try:
        whole = shell(plain, pull_request, env)
        assert whole.returncode == 1, whole
        assert whole.stdout.startswith("src/use.py:3:7: error: "), whole.stdout
        assert whole.stdout.endswith("1 new error, 0 new warnings (0 resolved) since HEAD\n")

        one_file = shell(hook_command.replace("src/app.py", "src/use.py"), pull_request, env)
        assert one_file.returncode == 1, one_file
        document = json.loads(one_file.stdout)
        assert [(d["path"], d["line"]) for d in document["diagnostics"]] == [("src/use.py", 3)]

        # The hook, given what Claude Code sends on stdin: exit 2 with the findings on
        # stderr for a file with an introduced error, 0 for a file with none.
        script = pull_request / "hook.sh"
        script.write_text(hook_script, encoding="utf-8")
        edit = {"tool_name": "Edit", "tool_input": {"file_path": "src/use.py"}}
        broke = shell("sh hook.sh", pull_request, env, json.dumps(edit))
        assert broke.returncode == 2, broke
        assert json.loads(broke.stderr)["diagnostics"][0]["path"] == "src/use.py"
        clean = {"tool_name": "Edit", "tool_input": {"file_path": "src/app.py"}}
        assert shell("sh hook.sh", pull_request, env, json.dumps(clean)).returncode == 0
        script.unlink()

        annotations = shell(github, pull_request, env)
        assert annotations.returncode == 1, annotations
        assert annotations.stdout.startswith("::error file=src/use.py,line=3,col=7,"), annotations
        scanned = shell(sarif, pull_request, env)
        assert scanned.returncode == 1, scanned
        results = json.loads((pull_request / "new-findings.sarif").read_text(encoding="utf-8"))
        assert [len(run["results"]) for run in results["runs"]] == [1]
    finally:
        subprocess.run(
            [sys.executable, "-m", "adecore_lsp", "daemon", "stop"],
            env=env,
            capture_output=True,
            timeout=60,
        )
