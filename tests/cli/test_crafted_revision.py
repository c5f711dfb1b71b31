"""``check --new-since REV`` where REV is a crafted tree (written with ``git hash-object
--literally``, as no checkout would make it) creates nothing outside its own folder: a name
held twice (a link to a folder outside, and a folder of that name holding a link) or a path
listed twice is refused, naming it, and the folder outside stays empty; a revision whose
root is a link out of the copy is never followed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import need, no_traceback, run
from tests.links_out import commit, leaked, stranger_with_links

pytestmark = pytest.mark.real_server

AUTHOR = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(root: Path, *args: str, data: bytes = b"") -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args],
        input=data,
        capture_output=True,
        check=True,
        env={**os.environ, **AUTHOR},
    )
    return done.stdout.decode().strip()


def blob(root: Path, data: bytes) -> str:
    return git(root, "hash-object", "-w", "--stdin", data=data)


def tree(root: Path, entries: list[tuple[str, str, str]]) -> str:
    """A tree object of ``entries`` (mode, name, id) as given, duplicates and all: git's own
    commands would refuse to write it, ``hash-object --literally`` does not."""
    body = b"".join(
        mode.encode() + b" " + name.encode() + b"\0" + bytes.fromhex(oid)
        for mode, name, oid in entries
    )
    return git(root, "hash-object", "-t", "tree", "--literally", "-w", "--stdin", data=body)


def crafted(root: Path, entries: list[tuple[str, str, str]]) -> str:
    return git(root, "commit-tree", tree(root, entries), "-m", "crafted")


@pytest.fixture
def repository(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("import os\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    commit(root, "start")
    outside = tmp_path / "outside"
    outside.mkdir()
    return root.resolve(), outside


def since(root: Path, rev: str) -> tuple[int, str, str]:
    ran = run("check", "--server", "ruff", "--new-since", rev, "--format", "json", cwd=root)
    no_traceback(ran)
    return ran.status, ran.out, ran.err


def test_a_name_twice_plants_no_link_outside(repository: tuple[Path, Path]) -> None:
    need("ruff")
    root, outside = repository
    a_py = blob(root, b"import os\n")
    planted = blob(root, b"/etc/passwd")
    inner = tree(root, [("120000", "planted", planted)])
    to_outside = blob(root, os.fsencode(outside))
    # "x" as a link to the folder outside, then "x" as a folder holding a link.
    rev = crafted(
        root, [("100644", "a.py", a_py), ("120000", "x", to_outside), ("40000", "x", inner)]
    )
    status, out, err = since(root, rev)
    assert status == 2, (out, err)
    assert "the revision holds 'x' both as a file and as a folder" in err
    assert list(outside.iterdir()) == []


def test_a_path_twice_is_refused(repository: tuple[Path, Path]) -> None:
    need("ruff")
    root, outside = repository
    first, second = blob(root, b"import os\n"), blob(root, b"import sys\n")
    inner_one = tree(root, [("100644", "b.py", first)])
    inner_two = tree(root, [("100644", "b.py", second)])
    rev = crafted(root, [("40000", "pkg", inner_one), ("40000", "pkg", inner_two)])
    status, out, err = since(root, rev)
    assert status == 2, (out, err)
    assert "the revision holds 'pkg/b.py' twice" in err
    assert list(outside.iterdir()) == []


def test_a_revision_whose_root_is_a_link_out_is_not_followed(tmp_path: Path) -> None:
    """The root is ``pkg`` of the repository; at the revision ``pkg`` was a link to a
    folder outside, whose files must never be checked as the revision's, nor have the
    root's ``.venv`` linked into them."""
    need("ruff")
    stranger = stranger_with_links(tmp_path / "s", git=False)
    outside = stranger.parent / "outside" / "dir"
    top = tmp_path / "top"
    (top / "pkg" / ".venv").mkdir(parents=True)
    (top / "pkg" / "secret.py").write_text("value = not_defined_here\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    commit(top, "start")
    rev = crafted(top, [("120000", "pkg", blob(top, os.fsencode(outside)))])
    for named in ((), ("secret.py",)):
        ran = run(
            *("check", "--server", "ruff", "--root", top / "pkg", "--new-since", rev),
            *("--format", "json", *named),
            cwd=top / "pkg",
        )
        no_traceback(ran)
        assert leaked(ran.out, ran.err) == [], ran
        report = json.loads(ran.out)
        assert report["resolved"] == []
        assert [item["code"] for item in report["diagnostics"]] == ["F821"]
    assert sorted(path.name for path in outside.iterdir()) == ["secret.py"]
