"""changes.md with ruff: preview_edit writes nothing, new_since compares with a revision in a
temporary worktree and leaves none behind."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from adecore_lsp import Workspace


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root / "old.py", "import os\n")
    write(root / "keep.py", "x = 1\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "one")
    return root


async def test_preview_edit_leaves_the_file_and_the_servers_as_they_were(repo: Path) -> None:
    path = repo / "keep.py"
    stat = path.stat()
    async with Workspace(repo, servers=["ruff"]) as ws:
        delta = await ws.preview_edit("keep.py", "import sys\n\nx = 1\n")
        assert [d.code for d in delta.introduced] == ["F401"]
        assert delta.complete
        assert path.read_bytes() == b"x = 1\n"
        assert path.stat().st_mtime_ns == stat.st_mtime_ns
        report = await ws.diagnostics(["keep.py"])
        assert report.items == []


async def test_new_since_reports_only_what_the_working_tree_added(repo: Path) -> None:
    write(repo / "keep.py", "import sys\n\nx = 1\n")  # a new finding
    write(repo / "old.py", "import os  # still unused\n")  # an old one, its line rewritten
    write(repo / "fresh.py", "import json\n")  # untracked: added
    async with Workspace(repo, servers=["ruff"]) as ws:
        report = await ws.new_since("HEAD")
    assert sorted((d.path, d.code) for d in report.items) == [
        ("fresh.py", "F401"),
        ("keep.py", "F401"),
    ]
    assert report.resolved == []
    assert report.complete
    assert git(repo, "worktree", "list").count("\n") == 1


async def test_new_since_counts_resolved_and_follows_renames(repo: Path) -> None:
    git(repo, "mv", "old.py", "moved.py")
    write(repo / "keep.py", "x = 1\n")
    async with Workspace(repo, servers=["ruff"]) as ws:
        report = await ws.new_since("HEAD")
        assert report.items == []
        write(repo / "moved.py", "y = 2\n")
        report = await ws.new_since("HEAD")
    assert report.items == []
    assert [(d.path, d.code) for d in report.resolved] == [
        ("old.py", "F401")
    ]  # git -M sees a new file


async def test_new_since_outside_git_or_with_an_unknown_revision_says_so(
    repo: Path, tmp_path: Path
) -> None:
    async with Workspace(repo, servers=["ruff"]) as ws:
        with pytest.raises(ValueError, match="unknown revision 'nope'"):
            await ws.new_since("nope")
    plain = tmp_path / "plain"
    write(plain / "a.py", "x = 1\n")
    async with Workspace(plain, servers=["ruff"]) as ws:
        with pytest.raises(ValueError, match="not in a git repository"):
            await ws.new_since("HEAD")
    assert not any(name.startswith("adecore-lsp-since-") for name in os.listdir(tmp_path))


async def test_an_edit_made_from_an_older_text_is_refused_and_writes_nothing(repo: Path) -> None:
    from adecore_lsp import EditConflictError
    from adecore_lsp.workspace.checks import changes

    async with Workspace(repo, servers=["ruff"]) as ws:
        write(repo / "keep.py", "x = 2\n")  # someone else's change, after the text was read
        with pytest.raises(EditConflictError, match=r"keep\.py"):
            await changes.edit(ws, "keep.py", "x = 3\n", save=True, expected="x = 1\n")
    assert (repo / "keep.py").read_text() == "x = 2\n"


async def test_new_since_on_warm_servers_gives_the_worktrees_answer(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adecore_lsp.workspace.checks import warm_revision

    write(repo / "keep.py", "import sys\n\nx = 1\n")  # a new finding
    write(repo / "old.py", "import os  # still unused\n")  # an old one, its line rewritten
    used: list[int] = []
    real = warm_revision.in_place

    async def counted(*args: object, **kwargs: object) -> object:
        used.append(1)
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(warm_revision, "in_place", counted)
    async with Workspace(repo, servers=["ruff"]) as ws:
        cold = await ws.new_since("HEAD")  # no server runs yet: through a worktree
        assert used == []
        warm = await ws.new_since("HEAD")  # the same servers, the old texts given unsaved
        assert used == [1]
        # Afterwards the servers have the disk's texts again.
        now = await ws.diagnostics(["keep.py", "old.py"])
    assert [(d.path, d.code) for d in cold.items] == [("keep.py", "F401")]
    assert [(d.path, d.code, d.line) for d in warm.items] == [
        (d.path, d.code, d.line) for d in cold.items
    ]
    assert warm.resolved == cold.resolved == []
    assert warm.complete
    assert sorted((d.path, d.line) for d in now.items) == [("keep.py", 1), ("old.py", 1)]
    assert (repo / "keep.py").read_text() == "import sys\n\nx = 1\n"
    assert git(repo, "worktree", "list").count("\n") == 1
