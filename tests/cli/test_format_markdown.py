"""``format`` of Markdown as ``ruff format`` formats it: the Python code blocks of every
``*.md`` file it finds (ruff's server formats a document of language ``markdown``), file for
file, in ``format``, ``format --check`` and ``format --write``; ``check`` lints none of them,
as ``ruff check`` does not."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import need, no_traceback, run, snapshot, write
from tests.integration.conftest import VENV_BIN

pytestmark = pytest.mark.real_server

UNFORMATTED_BLOCK = "```python\nx = {'a':1,\n  'b':2}\n```\n"
FILES = {
    "pyproject.toml": '[tool.adecore-lsp]\nservers = ["ruff"]\n',
    "app.py": "x = {'a':1}\n",
    "clean.py": "y = 1\n",
    "README.md": f"# Demo\n\nSome text  with  spaces.\n\n{UNFORMATTED_BLOCK}\n"
    "```console\n$ x  =  1\n```\n",
    "docs/guide.md": f"Guide\n\n{UNFORMATTED_BLOCK}",
    "docs/clean.md": "# Clean\n\n```python\nx = 1\n```\n",
    "docs/prose.md": "No code at all,  just   prose.\n",
    # Not Markdown to ruff: `ruff format` finds *.md only.
    "docs/notes.markdown": f"Notes\n\n{UNFORMATTED_BLOCK}",
    "docs/notes.txt": f"Notes\n\n{UNFORMATTED_BLOCK}",
    # Left out by .gitignore, as ruff leaves it out.
    ".gitignore": "generated/\n",
    "generated/out.md": UNFORMATTED_BLOCK,
}


def ruff_format(root: Path, *args: str) -> tuple[int, list[str]]:
    """``ruff format --check`` in ``root``: its exit status and the files it would change."""
    ran = subprocess.run(
        [str(VENV_BIN / "ruff"), "format", "--check", "--output-format", "concise", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    names = sorted({line.split(":")[0] for line in ran.stdout.splitlines() if ": " in line})
    return ran.returncode, names


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git work tree: ruff leaves out what .gitignore ignores there only (outside git it
    formats ``generated/`` too)."""
    need("ruff")
    root = write(tmp_path / "project", FILES)
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    return root


def would_change(root: Path, *args: str) -> tuple[int, list[str]]:
    ran = run("format", "--check", "--format", "json", "--daemon", "off", *args, cwd=root)
    no_traceback(ran)
    return ran.status, sorted(json.loads(ran.out)["changed_files"])


def test_format_check_names_the_files_ruff_format_names(project: Path) -> None:
    expected = (1, ["README.md", "app.py", "docs/guide.md"])
    assert ruff_format(project) == expected
    assert would_change(project) == expected
    # A folder, a file named, a Markdown file alone.
    assert ruff_format(project, "docs") == would_change(project, "docs") == (1, ["docs/guide.md"])
    assert ruff_format(project, "README.md") == would_change(project, "README.md")
    assert ruff_format(project, "docs/clean.md") == would_change(project, "docs/clean.md")
    assert would_change(project, "docs/clean.md") == (0, [])


def test_format_write_writes_what_ruff_format_writes(project: Path, tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    shutil.copytree(project, theirs)  # with its .git: ruff reads .gitignore there too
    subprocess.run([str(VENV_BIN / "ruff"), "format", "."], cwd=theirs, check=True, timeout=60)
    shutil.rmtree(theirs / ".ruff_cache", ignore_errors=True)
    ran = run("format", "--write", "--daemon", "off", cwd=project)
    no_traceback(ran)
    assert ran.status == 0, ran
    assert "3 files changed" in ran.err
    assert snapshot(project) == snapshot(theirs)
    assert 'x = {"a": 1, "b": 2}' in (project / "README.md").read_text(encoding="utf-8")
    assert "$ x  =  1" in (project / "README.md").read_text(encoding="utf-8")  # not Python
    assert would_change(project) == (0, [])


def test_check_lints_no_markdown(project: Path) -> None:
    ran = run("check", "--format", "json", "--daemon", "off", cwd=project)
    no_traceback(ran)
    assert sorted(json.loads(ran.out)["files"]) == ["app.py", "clean.py"]
    # A Markdown file alone is nothing to check (ruff check: "No Python files found").
    alone = run("check", "README.md", "--daemon", "off", cwd=project)
    assert alone.status == 2, alone
    assert "nothing to check" in alone.err


async def test_a_file_the_server_registers_no_formatting_for_is_left_alone(project: Path) -> None:
    """Only a server that registers formatting for a file's language is asked: ruff made to
    take ``.txt`` files as ``plaintext`` for formatting (its server formats Python and
    Markdown) leaves them as they are, and the workspace keeps none of them open."""
    from dataclasses import replace

    from adecore_lsp import Registry, Workspace

    ruff = replace(Registry.default().get("ruff"), format_languages={".txt": "plaintext"})
    async with Workspace(project, servers=[ruff]) as ws:
        plan = await ws.format(["docs/notes.txt", "app.py"])
        assert plan.changed_files == ["app.py"]
        assert [uri for uri, _file in ws.open_files.items()] == [ws.paths.uri(project / "app.py")]
