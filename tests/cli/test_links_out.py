"""A pull request that commits ``creds.py -> ~/.aws/credentials`` makes the command line read
nothing outside the root: a listing of the root (git's and the walk's) leaves out every
file whose real path lies outside it and says how many on stderr; a file or folder named
that leads out is refused, named; ``--new-since`` leaves them out on the revision's side
too; and no word of an outside file reaches stdout or stderr in any format, with ruff and
basedpyright (through the daemon: ``tests/daemon/test_links_out.py``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.conftest import Ran, need, no_traceback, run
from tests.links_out import INSIDE, LEFT_OUT, NAMED, commit, leaked, stranger_with_links

pytestmark = pytest.mark.real_server

SERVERS = ("ruff", "basedpyright")
FORMATS = ("text", "json", "jsonl", "sarif", "github")


def check(root: Path, server: str, *args: str) -> Ran:
    ran = run("check", "--server", server, "--root", root, "--no-progress", *args, cwd=root)
    no_traceback(ran)
    assert leaked(ran.out, ran.err) == [], ran
    return ran


def left_out_line(count: int, names: tuple[str, ...]) -> str:
    many = "s" * (count != 1)
    links = "links" if count != 1 else "a link"
    return f"{count} file{many} left out: {links} out of the root, never read ({', '.join(names)})"


@pytest.mark.parametrize("git", [True, False], ids=["git", "walk"])
@pytest.mark.parametrize("server", SERVERS)
def test_the_whole_root_leaves_links_out_in_every_format(
    tmp_path: Path, server: str, git: bool
) -> None:
    need(server)
    root = stranger_with_links(tmp_path, git=git)
    for form in FORMATS:
        ran = check(root, server, "--format", form)
        assert ran.status == 1, ran
        assert left_out_line(3, LEFT_OUT) in ran.err
        if form == "json":
            assert sorted(json.loads(ran.out)["files"]) == ["a.py", INSIDE, "sub/b.py"]
    # --quiet says it too: a file left out must not look checked.
    quiet = check(root, server, "--quiet", "--format", "json")
    assert left_out_line(3, LEFT_OUT) in quiet.err
    # A folder holding a link counts it; the current folder likewise.
    folder = check(root, server, "sub")
    assert left_out_line(1, ("sub/creds2.py",)) in folder.err
    ran = run("check", "--server", server, "--root", root, "--no-progress", cwd=root / "sub")
    assert leaked(ran.out, ran.err) == [], ran
    assert "creds2.py" in ran.err, ran


@pytest.mark.parametrize("server", SERVERS)
def test_a_path_named_that_leads_out_is_refused_naming_it(tmp_path: Path, server: str) -> None:
    need(server)
    root = stranger_with_links(tmp_path, git=True)
    for name in NAMED:
        ran = check(root, server, "--format", "github", name)
        assert ran.status == 2, ran
        assert ran.out == ""
        assert f"{name} leads out of the root through a symbolic link" in ran.err
    for args in (("format",), ("fix",), ("format", "--write"), ("fix", "--write")):
        ran = run(*args, "--server", "ruff", "--root", root, "creds.py", cwd=root)
        assert ran.status == 2, ran
        assert leaked(ran.out, ran.err) == [], ran
    # A link to a file inside the root is read as ever.
    inside = check(root, server, "--format", "json", INSIDE)
    assert inside.status == 1, inside
    assert list(json.loads(inside.out)["files"]) == [INSIDE], inside


def test_format_and_fix_of_the_root_leave_links_out(tmp_path: Path) -> None:
    need("ruff")
    root = stranger_with_links(tmp_path, git=False)
    outside = (tmp_path / "outside" / "credentials").read_bytes()
    for command in ("format", "fix"):
        ran = run(command, "--server", "ruff", "--root", root, "--write", cwd=root)
        no_traceback(ran)
        assert ran.status in (0, 1), ran
        assert leaked(ran.out, ran.err) == []
        assert left_out_line(3, LEFT_OUT) in ran.err
    assert (tmp_path / "outside" / "credentials").read_bytes() == outside


@pytest.mark.parametrize("server", SERVERS)
def test_new_since_leaves_links_out_on_both_sides(tmp_path: Path, server: str) -> None:
    """The revision holds the links; the working tree replaced ``creds.py`` by a file of its
    own: the revision's ``creds.py`` (a link out of its copy) is never read, so none of the
    outside file's findings comes back as "resolved"."""
    need(server)
    root = stranger_with_links(tmp_path, git=True)
    (root / "creds.py").unlink()
    (root / "creds.py").write_text("value = not_defined_here\n", encoding="utf-8")
    (root / "sub" / "new.py").symlink_to(tmp_path / "outside" / "dir" / "secret.py")
    for form in FORMATS:
        ran = check(root, server, "--new-since", "HEAD", "--format", form)
        assert ran.status == 1, ran
        if form == "json":
            report = json.loads(ran.out)
            assert report["resolved"] == []
            assert {item["path"] for item in report["diagnostics"]} == {"creds.py"}
    commit(root, "the same links, committed")
    again = check(root, server, "--new-since", "HEAD~1", "--format", "json")
    assert again.status == 1, again
    assert json.loads(again.out)["resolved"] == [], again
    named = check(root, server, "--new-since", "HEAD", "sub/new.py")
    assert named.status == 2, named
    assert "sub/new.py leads out of the root" in named.err, named


def test_an_index_that_lists_a_file_in_a_linked_folder_is_not_followed(tmp_path: Path) -> None:
    """git lists what the index holds, and an index comes with the repository: one naming
    ``linkdir/secret.py`` while ``linkdir`` is a link out leaves that file out."""
    need("ruff")
    root = stranger_with_links(tmp_path, git=True)
    (root / "linkdir").unlink()
    (root / "linkdir").mkdir()
    (root / "linkdir" / "secret.py").write_text("x = 1\n", encoding="utf-8")
    commit(root, "a folder")
    (root / "linkdir" / "secret.py").unlink()
    os.rmdir(root / "linkdir")
    (root / "linkdir").symlink_to(tmp_path / "outside" / "dir", target_is_directory=True)
    ran = check(root, "ruff", "--format", "json")
    assert "linkdir/secret.py" in ran.err
    assert "linkdir/secret.py" not in json.loads(ran.out)["files"]
