"""git runs nothing a repository names (``docs/security.md``): every git command the library
runs, on a repository whose configuration names a program for every knob git has, leaves
no marker, and the answers stay right; only ``workspace/disk/git.py`` starts git."""

from __future__ import annotations

import ast
import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from adecore_lsp.environment import using
from adecore_lsp.workspace.checks.revisions import commit_of, repository_top
from adecore_lsp.workspace.disk import git as git_runner
from adecore_lsp.workspace.disk.listing import root_files
from adecore_lsp.workspace.disk.revision_tree import moves, texts_at, write_revision
from tests.hostile_repo import commit_all, git, hostile_repository, markers

SOURCE = Path(__file__).resolve().parent.parent / "src" / "adecore_lsp"

FILES = {
    "pyproject.toml": '[tool.adecore-lsp]\nservers = ["ruff"]\n',
    "app.py": "import os\n",
    "lib.py": "def area(width):\n    return width * width\n",
    "pkg/run.sh": "#!/bin/sh\necho run\n",
}

DISARMED = (
    *("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"),
    *("-c", "filter.evil.clean=", "-c", "filter.other.clean=", "-c", "filter.proc.process="),
    *("-c", "filter.proc.required=false"),
)
"""What the test's own git needs to change the hostile repository without running it."""


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return hostile_repository(tmp_path / "repo", FILES, tmp_path / "markers")


def ran(hostile: Path) -> list[str]:
    return markers(hostile.parent / "markers")


def test_only_the_git_module_starts_git() -> None:
    """No module but ``workspace/disk/git.py`` names the git program (a ``"git"`` argument or a
    lookup of it): every git command goes through the one safe runner."""
    naming = []
    for path in sorted(SOURCE.rglob("*.py")):
        if path == SOURCE / "workspace" / "disk" / "git.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == "git":
                naming.append(f"{path.relative_to(SOURCE)}:{node.lineno}")
    assert naming == []


def test_the_library_lists_files_without_running_the_repositorys_programs(
    hostile: Path,
) -> None:
    listed = [path.relative_to(hostile).as_posix() for path in root_files(hostile, bool)]
    assert listed == [
        *(".gitattributes", "app.py", "lib.py", "notes.txt", "pkg/run.sh", "pyproject.toml")
    ]
    assert ran(hostile) == []


def test_what_changed_since_a_revision_runs_nothing_and_is_right(hostile: Path) -> None:
    (hostile / "app.py").write_text("import os\nimport sys\n", encoding="utf-8")  # changed
    (hostile / "pyproject.toml").unlink()  # deleted
    git(hostile, *DISARMED, "mv", "lib.py", "geometry.py")  # renamed, in the index
    (hostile / "fresh.py").write_text("x = 1\n", encoding="utf-8")  # untracked
    top = repository_top(hostile)
    commit = commit_of(top, "HEAD")
    found = moves(top, commit, [hostile])
    assert found.renamed == {"geometry.py": "lib.py"}
    assert found.added == {"fresh.py"}
    assert found.changed == {"app.py", "pyproject.toml", "geometry.py", "fresh.py"}
    assert ran(hostile) == []
    # Nothing of the user's index moved: git mv's rename is all it holds.
    status = git(hostile, *DISARMED, "status", "--porcelain", "--untracked-files=no")
    assert sorted(status.splitlines()) == [
        " D pyproject.toml",
        " M app.py",
        "R  lib.py -> geometry.py",
    ]


def test_the_revisions_files_are_written_as_committed(hostile: Path, tmp_path: Path) -> None:
    """A checkout would have run the smudge and process filters: the files written are the
    committed bytes, with the executable bit and links as committed."""
    os.symlink("lib.py", hostile / "link.py")
    (hostile / "pkg" / "run.sh").chmod(0o755)
    git(hostile, *DISARMED, "add", "-A")
    git(hostile, *DISARMED, "commit", "-q", "-m", "link")
    top = repository_top(hostile)
    commit = commit_of(top, "HEAD")
    folder = tmp_path / "copy"
    folder.mkdir()
    written = write_revision(top, commit, folder, [hostile], threading.Event())
    names = [path.relative_to(folder).as_posix() for path in written]
    assert names == [
        *(".gitattributes", "app.py", "lib.py", "link.py", "notes.txt", "pkg/run.sh"),
        "pyproject.toml",
    ]
    for name, text in FILES.items():
        assert (folder / name).read_text(encoding="utf-8") == text
    assert os.readlink(folder / "link.py") == "lib.py"
    assert (folder / "pkg" / "run.sh").stat().st_mode & stat.S_IXUSR
    assert not (folder / "app.py").stat().st_mode & stat.S_IXUSR
    assert not (folder / ".git").exists()
    texts = texts_at(top, commit, ["app.py", "nowhere.py", "notes.txt"], [hostile])
    assert texts == {"app.py": b"import os\n", "notes.txt": b"notes\n"}
    assert ran(hostile) == []


def test_conversions_are_not_applied_either(tmp_path: Path) -> None:
    """End-of-line and ``ident`` conversions run no program, but the revision's side is the
    committed content all the same: one rule, nothing a configuration can bend."""
    root = tmp_path / "plain"
    root.mkdir()
    (root / ".gitattributes").write_text("*.txt text eol=crlf ident\n", encoding="utf-8")
    (root / "a.txt").write_text("$Id$\nline\n", encoding="utf-8")
    git(root, "init", "-q")
    commit_all(root)
    folder = tmp_path / "copy"
    folder.mkdir()
    write_revision(root, commit_of(root, "HEAD"), folder, [], threading.Event())
    assert (folder / "a.txt").read_bytes() == b"$Id$\nline\n"
    assert git(root, "cat-file", "blob", "HEAD:a.txt") == "$Id$\nline\n"  # as committed


@pytest.mark.parametrize("name", ["..", ".GIT", "sub/.."])
def test_a_crafted_tree_cannot_write_outside_the_folder(tmp_path: Path, name: str) -> None:
    root = tmp_path / "crafted"
    root.mkdir()
    git(root, "init", "-q")
    blob = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"], cwd=root, input=b"evil\n", capture_output=True
        )
        .stdout.decode()
        .strip()
    )
    tree = _mktree(root, f"100644 blob {blob}\t{name.rsplit('/', 1)[-1]}\n")
    if "/" in name:
        tree = _mktree(root, f"040000 tree {tree}\t{name.split('/')[0]}\n")
    commit = git(root, "commit-tree", tree, "-m", "crafted").strip()
    folder = tmp_path / "copy" / "tree"
    folder.mkdir(parents=True)
    with pytest.raises(ValueError, match="a path git would not check out"):
        write_revision(root, commit, folder, [], threading.Event())
    assert sorted(p.name for p in (tmp_path / "copy").rglob("*")) == ["tree"]


def _mktree(root: Path, listing: str) -> str:
    return (
        subprocess.run(
            ["git", "mktree"], cwd=root, input=listing.encode(), capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )


def test_a_git_inside_the_repository_is_never_run(hostile: Path) -> None:
    """An activated ``.venv`` of the repository holding a ``git`` first on ``PATH``."""
    shim = hostile / ".venv" / "bin" / "git"
    shim.parent.mkdir(parents=True)
    shim.write_text(f'#!/bin/sh\ntouch "{hostile.parent / "markers" / "git-shim"}"\nexit 1\n')
    shim.chmod(0o755)
    path = os.pathsep.join([str(shim.parent), os.environ.get("PATH", "")])
    with using({**os.environ, "PATH": path}):
        listed = [p.relative_to(hostile).as_posix() for p in root_files(hostile, bool)]
        assert repository_top(hostile / "pkg") == hostile
    assert "app.py" in listed
    assert not any(name.startswith(".venv") for name in listed)
    assert ran(hostile) == []


def test_without_git_the_files_are_still_found_and_new_since_says_why(hostile: Path) -> None:
    with using({**os.environ, "PATH": str(hostile.parent / "nothing")}):
        listed = [p.relative_to(hostile).as_posix() for p in root_files(hostile, bool)]
        with pytest.raises(ValueError, match="needs git, which is not installed"):
            repository_top(hostile)
    assert "app.py" in listed


def test_only_read_only_plumbing_runs(hostile: Path) -> None:
    for args in (["checkout", "HEAD"], ["diff"], ["status"], ["worktree", "list"]):
        with pytest.raises(git_runner.GitError, match="not a command the library runs"):
            git_runner.run(hostile, *args)
    with pytest.raises(git_runner.GitError, match="--filters is not run"):
        git_runner.run(hostile, "cat-file", "--filters", "HEAD:app.py")
    with pytest.raises(git_runner.GitError, match="GIT_DIR is not set"):
        git_runner.run(hostile, "ls-files", extra={"GIT_DIR": str(hostile)})
    assert ran(hostile) == []


def test_a_partial_clone_fetches_nothing(tmp_path: Path) -> None:
    """A promisor remote whose URL is a program (``ext::``), allowed by the repository's own
    configuration: the missing object is not fetched, and the program does not run."""
    origin = tmp_path / "origin"
    origin.mkdir()
    (origin / "a.py").write_text("x = 1\n", encoding="utf-8")
    git(origin, "init", "-q")
    commit_all(origin)
    (origin / "a.py").write_text("x = 2\n", encoding="utf-8")
    commit_all(origin, "two")
    git(origin, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", "--no-checkout", origin.as_uri(), "clone")
    marker = tmp_path / "fetched"
    git(clone, "config", "remote.origin.url", f"ext::sh -c touch% {marker}")
    git(clone, "config", "protocol.allow", "always")
    git(clone, "config", "protocol.ext.allow", "always")
    first = commit_of(clone, "HEAD~1")
    with pytest.raises(ValueError, match="could not fetch"):
        texts_at(clone, first, ["a.py"], [])
    assert not marker.exists()
