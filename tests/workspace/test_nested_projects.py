"""A project nested in a repository (an example, a vendored package, a tool with its own
settings) is judged by its own configuration: its ``[tool.adecore-lsp]`` chooses the
servers of its files, its server tables configure them, and an untrusted one runs nothing
it names. Once wrong: the repository's root was the only project, so a nested project's
configuration was never read."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from adecore_lsp import Workspace
from tests.integration.conftest import find_server
from tests.workspace.conftest import write

pytestmark = pytest.mark.real_server

UNUSED = "import os\n"


def tree(root: Path, nested: str) -> Path:
    return write(
        root,
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "pyproject.toml": '[tool.ruff]\nextend-exclude = ["examples/sample"]\n',
            "top.py": UNUSED,
            "examples/sample/pyproject.toml": nested,
            "examples/sample/app.py": UNUSED,
        },
    )


async def test_a_nested_projects_servers_choose_for_its_own_files(tmp_path: Path) -> None:
    find_server("ruff")
    find_server("basedpyright-langserver")
    root = tree(tmp_path / "repo", '[tool.adecore-lsp]\nservers = ["ruff"]\n[tool.ruff]\n')
    async with Workspace(root, trust=False) as ws:
        nested = ws.server_choice.specs_for(root / "examples/sample/app.py")
        top = ws.server_choice.specs_for(root / "top.py")
        report = await ws.diagnostics(["examples/sample"])
    assert [spec.id for spec in nested] == ["ruff"]
    assert [spec.id for spec in top] == ["basedpyright"]  # the registry's first choice
    # ruff, told of the project's folder, lints it by the project's own configuration.
    assert [(d.server, d.path, d.code) for d in report.items] == [
        ("ruff", "examples/sample/app.py", "F401")
    ]
    assert report.complete


async def test_an_untrusted_nested_project_runs_nothing_it_names(tmp_path: Path) -> None:
    find_server("ruff")
    marker = tmp_path / "ran"
    evil = tmp_path / "evil-lsp"
    evil.write_text(f'#!/bin/sh\ntouch "{marker}"\nexit 1\n')
    evil.chmod(evil.stat().st_mode | stat.S_IXUSR)
    root = tree(
        tmp_path / "repo",
        "[tool.adecore-lsp]\n"
        'servers = ["ruff"]\n'
        "[tool.adecore-lsp.server.ruff]\n"
        f'command = ["{evil}"]\n'
        "[tool.ruff]\n",
    )
    said: list[str] = []
    async with Workspace(root, trust=None, on_untrusted=said.append) as ws:
        report = await ws.diagnostics(["examples/sample/app.py"])
    assert not marker.exists()
    assert [d.code for d in report.items] == ["F401"]  # the registry's ruff ran
    assert said == [
        "the project examples/sample is not trusted, so adecore-lsp ignored what it names: "
        "[tool.adecore-lsp.server.ruff] command; run `adecore-lsp trust examples/sample` "
        "(or pass --trust) to allow them"
    ]


async def test_a_nested_projects_own_settings_get_a_server_of_their_own(tmp_path: Path) -> None:
    """ruff takes its settings once, at its start: a project that sets them otherwise than
    the repository gets its own process, rooted at the project; the others share one."""
    find_server("ruff")
    root = tree(
        tmp_path / "repo",
        '[tool.adecore-lsp]\nservers = ["ruff"]\n'
        "[tool.adecore-lsp.server.ruff.settings.lint]\n"
        'ignore = ["F401"]\n'
        "[tool.ruff]\n",
    )
    write(root, {"plain/pyproject.toml": '[tool.adecore-lsp]\nservers = ["ruff"]\n'})
    write(root, {"plain/p.py": UNUSED})
    async with Workspace(root, servers=None, trust=False) as ws:
        nested = await ws.diagnostics(["examples/sample/app.py"])
        plain = await ws.diagnostics(["plain/p.py"])
        roots = sorted(h.root.relative_to(root).as_posix() for h in ws.started())
    assert nested.items == []  # the project's settings: F401 ignored
    assert [d.code for d in plain.items] == ["F401"]
    assert roots == [".", "examples/sample"]


async def test_a_nested_pyproject_that_is_not_toml_is_said_and_passed_over(
    tmp_path: Path,
) -> None:
    """Once wrong: build 1.6.1's sdist ships a test fixture whose ``pyproject.toml`` does
    not parse (its ruff configuration excludes that folder, so ``ruff check`` never reads
    it), and the check of the whole tree stopped on it (exit 2)."""
    find_server("ruff")
    root = write(
        tmp_path / "repo",
        {
            "pyproject.toml": '[tool.ruff]\nexclude = ["packages/bad-syntax"]\n',
            "top.py": UNUSED,
            "packages/bad-syntax/pyproject.toml": "[build-system]\nrequires = ['bad' 'syntax']\n",
        },
    )
    said: list[str] = []
    async with Workspace(root, servers=["ruff"], trust=False, on_untrusted=said.append) as ws:
        report = await ws.diagnostics()
    assert [(d.path, d.code) for d in report.items] == [("top.py", "F401")]
    assert report.complete
    assert said == [
        f"{root / 'packages/bad-syntax/pyproject.toml'}: not valid TOML: Unclosed array (at "
        "line 2, column 19); its folder is not read as a project of its own"
    ]
