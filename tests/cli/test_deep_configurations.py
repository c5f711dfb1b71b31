"""A configuration nested 100,000 deep (issue 35): a repository cannot turn a review bot's
``check`` into a failure with one. Such a configuration is named on stderr and its tool's
defaults apply, as for any other broken configuration, and every file is still checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import need, no_traceback, run, write

pytestmark = pytest.mark.real_server

DEEP = 100_000


def deep_json() -> str:
    return '{"compilerOptions": {"strict": true}, "x": ' + "[" * DEEP + "]" * DEEP + "}\n"


def deep_toml(table: str) -> str:
    return f"[{table}]\nx = " + "[" * DEEP + "]" * DEEP + "\n"


def findings(out: str) -> list[tuple[str, str]]:
    return [(d["path"], d["severity"]) for d in json.loads(out)["diagnostics"]]


def test_a_deep_pyright_configuration_is_named_and_every_file_checked(tmp_path: Path) -> None:
    need("basedpyright")
    root = write(
        tmp_path / "repo",
        {
            "a.py": 'x: int = "a"\n',
            "pkg/pyrightconfig.json": deep_json(),
            "pkg/b.py": 'y: int = "b"\n',
        },
    )
    (root / ".git").mkdir()
    ran = run("check", "--server", "basedpyright", "--format", "json", "--no-progress", cwd=root)
    no_traceback(ran)
    assert ran.status == 1, ran
    assert ("a.py", "error") in findings(ran.out)
    assert ("pkg/b.py", "error") in findings(ran.out)
    assert json.loads(ran.out)["complete"] is True
    [said] = [line for line in ran.err.splitlines() if "nested too deeply" in line]
    assert said.startswith("adecore-lsp: warning: pkg/pyrightconfig.json: nested too deeply")


def test_a_deep_tsconfig_is_named_and_the_files_checked(tmp_path: Path) -> None:
    need("tsc")
    root = write(tmp_path / "repo", {"a.ts": 'const x: number = "a";\nexport { x };\n'})
    (root / "tsconfig.json").write_text(deep_json(), encoding="utf-8")
    ran = run("check", "--server", "tsc", "--format", "json", "--no-progress", cwd=root)
    no_traceback(ran)
    assert ran.status == 1, ran
    assert findings(ran.out) == [("a.ts", "error")]
    assert "tsconfig.json: nested too deeply" in ran.err


def test_a_deep_ty_toml_is_named_and_the_files_checked(tmp_path: Path) -> None:
    need("ty")
    root = write(tmp_path / "repo", {"a.py": 'x: int = "a"\n', "ty.toml": deep_toml("src")})
    (root / ".git").mkdir()
    ran = run("check", "--server", "ty", "--format", "json", "--no-progress", cwd=root)
    no_traceback(ran)
    assert "ty.toml is not valid TOML: nested too deeply" in ran.err
    # ty's server reads its defaults too (its command line refuses the file).
    assert ran.status == 1, ran
    assert findings(ran.out) == [("a.py", "error")]


def test_a_deep_pyproject_toml_is_a_broken_configuration_not_a_traceback(
    tmp_path: Path,
) -> None:
    """``pyproject.toml`` holds adecore-lsp's own configuration too: one that cannot be
    read is an error naming it (exit 2), as an invalid TOML file always was."""
    root = write(tmp_path / "repo", {"a.py": "import os\n", "pyproject.toml": deep_toml("tool.x")})
    ran = run("check", "--no-progress", cwd=root)
    no_traceback(ran)
    assert ran.status == 2, ran
    assert "pyproject.toml: not valid TOML: nested too deeply to be read" in ran.err
    assert "internal error" not in ran.err
