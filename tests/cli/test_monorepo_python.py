"""A uv workspace of two packages with basedpyright (b imports a through ``extraPaths``, each
with its own ``[tool.pyright]``), used as a person at a terminal uses it: the root of a
command is the repository, from its root and from inside a package; each package is checked
as basedpyright checks it there; references, callers and renames reach every package, or say
they could not (exit 3); no absolute path reaches stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import Ran, need, no_traceback, run, tool_env, write

pytestmark = pytest.mark.real_server

ALPHA = (
    "def greet(name: str) -> str:\n"
    '    return "hello " + name\n'
    "\n"
    "\n"
    "def twice(name: str) -> str:\n"
    "    return greet(name) + greet(name)\n"
    "\n"
    "\n"
    "def loose(value):\n"
    "    return value\n"
)
"""a's module: ``loose`` has no annotations, which a's strict configuration reports."""

UV_TREE = {
    "pyproject.toml": '[project]\nname = "root"\nversion = "0"\n'
    '[tool.uv.workspace]\nmembers = ["packages/*"]\n',
    "packages/a/pyproject.toml": '[project]\nname = "alpha"\nversion = "0"\n'
    '[tool.pyright]\ntypeCheckingMode = "strict"\n',
    "packages/a/src/alpha/__init__.py": ALPHA,
    "packages/a/src/alpha/more.py": 'from alpha import greet\n\nx = greet("a")\n',
    "packages/b/pyproject.toml": '[project]\nname = "beta"\nversion = "0"\n'
    'dependencies = ["alpha"]\n'
    '[tool.pyright]\ntypeCheckingMode = "basic"\nextraPaths = ["../a/src"]\n',
    "packages/b/src/beta/__init__.py": (
        'from alpha import greet\n\nprint(greet("b"))\ny = greet("c")\n\n\n'
        "def loose(value):\n    return value\n"
    ),
    "packages/b/src/beta/other.py": 'import alpha\n\nz = alpha.greet("d")\ncount: int = z\n',
}
"""A uv workspace: a strict, b basic; b's other.py has an error in either mode."""

USES = [
    ("packages/a/src/alpha/__init__.py", 6, 12),
    ("packages/a/src/alpha/__init__.py", 6, 26),
    ("packages/a/src/alpha/more.py", 1, 19),
    ("packages/a/src/alpha/more.py", 3, 5),
    ("packages/b/src/beta/__init__.py", 1, 19),
    ("packages/b/src/beta/__init__.py", 3, 7),
    ("packages/b/src/beta/__init__.py", 4, 5),
    ("packages/b/src/beta/other.py", 3, 11),
]
"""Every use of ``greet`` (its declaration aside), as basedpyright finds them: rooted at a,
a's four; rooted at b with a's file open, b's four (and a's declaration)."""


@pytest.fixture
def uv(tmp_path: Path) -> Path:
    need("basedpyright")
    root = write(tmp_path / "repo", UV_TREE)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root.resolve()


def places(ran: Ran) -> list[tuple[str, int, int]]:
    assert ran.status == 0, ran
    return [(p["path"], p["line"], p["column"]) for p in json.loads(ran.out)]


def no_machine_path(ran: Ran, root: Path) -> None:
    assert str(root) not in ran.out, ran.out
    assert root.as_uri() not in ran.out, ran.out
    no_traceback(ran)


def basedpyright_in(package: Path) -> set[tuple[str, int, int, str]]:
    """What ``basedpyright`` finds run inside ``package``: path (from the package), line,
    column and severity of its errors and warnings."""
    done = subprocess.run(
        ["basedpyright", "--outputjson"],
        cwd=package,
        env=tool_env({"NO_COLOR": "1"}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = set()
    for item in json.loads(done.stdout)["generalDiagnostics"]:
        if item["severity"] in ("error", "warning"):
            start = item["range"]["start"]
            path = Path(item["file"]).relative_to(package).as_posix()
            found.add((path, start["line"] + 1, start["character"] + 1, item["severity"]))
    return found


def test_each_package_is_checked_as_basedpyright_checks_it_there(uv: Path) -> None:
    """From the repository's root, a's strict findings and b's basic ones: each package as
    its own command line run inside it, one server process per package."""
    ran = run("check", "--server", "basedpyright", "--format", "json", "--no-progress", cwd=uv)
    assert ran.status == 1, ran
    document = json.loads(ran.out)
    assert document["complete"] is True
    for package in ("packages/a", "packages/b"):
        ours = {
            (d["path"][len(package) + 1 :], d["line"], d["column"], d["severity"])
            for d in document["diagnostics"]
            if d["path"].startswith(package + "/") and d["severity"] in ("error", "warning")
        }
        theirs = basedpyright_in(uv / package)
        assert ours == theirs, package
        assert theirs, package  # each package has findings of its own
    # a's strict mode reports loose(); b's basic mode does not report its own loose().
    assert any(d["path"] == "packages/a/src/alpha/__init__.py" for d in document["diagnostics"])
    assert not any(
        d["path"] == "packages/b/src/beta/__init__.py" and d["severity"] == "error"
        for d in document["diagnostics"]
    )


def test_references_reach_every_package_from_the_root_and_from_a_package(uv: Path) -> None:
    """The same places whether the command stands at the root or in b (before: from a's
    declaration only a's four uses, said complete)."""
    at_root = run(
        "references",
        "packages/a/src/alpha/__init__.py:1:5",
        "--server",
        "basedpyright",
        "--format",
        "json",
        "--no-progress",
        cwd=uv,
    )
    in_b = run(
        "references",
        "../a/src/alpha/__init__.py:1:5",
        "--server",
        "basedpyright",
        "--format",
        "json",
        "--no-progress",
        cwd=uv / "packages/b",
    )
    assert places(at_root) == USES
    assert places(in_b) == USES
    no_machine_path(at_root, uv)
    no_machine_path(in_b, uv)


def test_text_places_are_relative_to_where_the_user_stands(uv: Path) -> None:
    """From inside b, a's places print as ``../a/...``: a terminal opens them from there."""
    ran = run(
        "references",
        "src/beta/__init__.py:3:7",
        "--server",
        "basedpyright",
        "--no-progress",
        cwd=uv / "packages/b",
    )
    assert ran.status == 0, ran
    assert ran.out.splitlines() == [
        "../a/src/alpha/__init__.py:6:12: return greet(name) + greet(name)",
        "../a/src/alpha/__init__.py:6:26: return greet(name) + greet(name)",
        "../a/src/alpha/more.py:1:19: from alpha import greet",
        '../a/src/alpha/more.py:3:5: x = greet("a")',
        "src/beta/__init__.py:1:19: from alpha import greet",
        'src/beta/__init__.py:3:7: print(greet("b"))',
        'src/beta/__init__.py:4:5: y = greet("c")',
        'src/beta/other.py:3:11: z = alpha.greet("d")',
    ]
    no_machine_path(ran, uv)


def test_callers_reach_every_package(uv: Path) -> None:
    ran = run(
        "callers",
        "packages/a/src/alpha/__init__.py:1:5",
        "--server",
        "basedpyright",
        "--format",
        "json",
        "--no-progress",
        cwd=uv,
    )
    assert {path for path, _line, _column in places(ran)} == {
        "packages/a/src/alpha/__init__.py",
        "packages/a/src/alpha/more.py",
        "packages/b/src/beta/__init__.py",
        "packages/b/src/beta/other.py",
    }


def test_a_rename_written_from_a_package_renames_the_importers_too(uv: Path) -> None:
    """``rename --write`` from b renames a's declaration and every use in both packages; b
    still checks clean of new errors with basedpyright there (before: b's imports broke)."""
    before = basedpyright_in(uv / "packages/b")
    ran = run(
        "rename",
        "../a/src/alpha/__init__.py:1:5",
        "salute",
        "--write",
        "--server",
        "basedpyright",
        "--no-progress",
        cwd=uv / "packages/b",
    )
    assert ran.status == 0, ran
    for name in (
        "packages/a/src/alpha/__init__.py",
        "packages/a/src/alpha/more.py",
        "packages/b/src/beta/__init__.py",
        "packages/b/src/beta/other.py",
    ):
        text = (uv / name).read_text(encoding="utf-8")
        assert "greet" not in text, name
        assert "salute" in text, name
    assert basedpyright_in(uv / "packages/b") == before
    no_machine_path(ran, uv)


FLAKY = """\
import os
import sys

# basedpyright's language server, except in package b, where it dies at once.
if os.path.basename(os.getcwd()) == "b":
    sys.exit(3)
os.execvp("basedpyright-langserver", ["basedpyright-langserver", "--stdio"])
"""


def test_a_package_whose_server_fails_makes_the_answer_incomplete(uv: Path) -> None:
    """b's server cannot start: references give a's uses, say the answer is partial and
    exit 3; a rename is not written."""
    write(
        uv,
        {
            "flaky.py": FLAKY,
            "adecore-lsp.toml": (
                "[server.flaky]\n"
                f"command = [{json.dumps(sys.executable)}, {json.dumps(str(uv / 'flaky.py'))}]\n"
                'languages = { ".py" = "python" }\n'
                'roots = "configuration"\n'
                'root_markers = ["pyproject.toml[tool.pyright]"]\n'
                "pull_diagnostics = true\n"
                'readiness = "registration"\n'
                'ready_registration = "textDocument/diagnostic"\n'
            ),
        },
    )
    trusted = {"ADECORE_LSP_TRUST": "1"}
    target = "packages/a/src/alpha/__init__.py:1:5"
    ran = run(
        "references", target, "--server", "flaky", "--format", "json", "--no-progress",
        cwd=uv, env=trusted,
    )  # fmt: skip
    assert ran.status == 3, ran
    assert [place["path"] for place in json.loads(ran.out)] == [
        "packages/a/src/alpha/__init__.py",
        "packages/a/src/alpha/__init__.py",
        "packages/a/src/alpha/more.py",
        "packages/a/src/alpha/more.py",
    ]
    assert "the server of another package could not be asked" in ran.err
    original = (uv / "packages/b/src/beta/__init__.py").read_bytes()
    written = run(
        "rename", target, "salute", "--write", "--server", "flaky", "--no-progress",
        cwd=uv, env=trusted,
    )  # fmt: skip
    assert written.status == 3, written
    assert "nothing was written" in written.err
    assert (uv / "packages/b/src/beta/__init__.py").read_bytes() == original
    assert "greet" in (uv / "packages/a/src/alpha/__init__.py").read_text(encoding="utf-8")


TY_TREE = {
    **UV_TREE,
    "packages/a/pyproject.toml": UV_TREE["packages/a/pyproject.toml"] + "[tool.ty]\n",
    "packages/b/pyproject.toml": UV_TREE["packages/b/pyproject.toml"]
    + '[tool.ty.environment]\nextra-paths = ["../a/src"]\n',
}
"""The uv workspace with ty's own configuration in each package (one ty per package)."""


def test_ty_finds_every_use_and_a_rename_it_would_leave_half_done_is_refused(
    tmp_path: Path,
) -> None:
    """ty rooted at b finds b's uses but renames a's file alone: the references are whole,
    and the rename is refused naming b's uses, nothing written (before: a's files renamed,
    b's imports broken, said complete)."""
    need("ty")
    root = write(tmp_path / "repo", TY_TREE).resolve()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    target = "packages/a/src/alpha/__init__.py:1:5"
    found = run(
        "references", target, "--server", "ty", "--format", "json", "--no-progress", cwd=root
    )
    assert places(found) == USES
    before = {name: (root / name).read_bytes() for name in TY_TREE}
    ran = run("rename", target, "salute", "--write", "--server", "ty", "--no-progress", cwd=root)
    assert ran.status == 2, ran
    assert "the servers of the packages do not rename (packages/b/src/beta/" in ran.err
    assert ran.out == ""
    assert {name: (root / name).read_bytes() for name in TY_TREE} == before


def test_one_ruff_for_the_repository_with_each_packages_settings(uv: Path, tmp_path: Path) -> None:
    """ruff takes the whole repository in one process (before: one per pyproject.toml) and
    still applies each package's own settings, as ``ruff check`` run there does."""
    need("ruff")
    b_settings = UV_TREE["packages/b/pyproject.toml"] + '[tool.ruff.lint]\nselect = ["UP", "F"]\n'
    typed = "from typing import List\n\nx: List[int] = []\n"
    write(uv, {"packages/b/pyproject.toml": b_settings, "packages/b/src/beta/typed.py": typed})
    trace = tmp_path / "ruff.jsonl"
    ran = run(
        "check", "--server", "ruff", "--format", "json", "--no-progress", "--trace", trace,
        cwd=uv,
    )  # fmt: skip
    assert ran.status in (0, 1), ran
    initialize = [
        json.loads(line)["message"]["params"]["rootUri"]
        for line in trace.read_text(encoding="utf-8").splitlines()
        if json.loads(line)["message"].get("method") == "initialize"
    ]
    assert initialize == [uv.as_uri()]
    ours = {
        (d["path"], d["line"], d["column"], d["code"])
        for d in json.loads(ran.out)["diagnostics"]
        if d["path"].startswith("packages/b/")
    }
    done = subprocess.run(
        ["ruff", "check", "--output-format", "json", "--no-cache", "."],
        cwd=uv / "packages/b", env=tool_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    theirs = {
        (
            "packages/b/" + Path(item["filename"]).relative_to(uv / "packages/b").as_posix(),
            item["location"]["row"],
            item["location"]["column"],
            item["code"],
        )
        for item in json.loads(done.stdout)
    }
    assert ours == theirs
    assert ("packages/b/src/beta/typed.py", 1, 1, "UP035") in ours
