"""``check`` of a folder covers, per server, the files that server's own command line checks
there: made projects with include, exclude and ignore for each Python type checker and
tsconfigs with files, include, exclude, extends and references, each compared with the
tool's own run on the same tree (the files and the findings); a file named is checked
anyway; ``servers`` and ``doctor`` name the configuration that decided.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from .conftest import NPM_BIN, Ran, need, no_traceback, run, run_jobs, tool_env, write

pytestmark = pytest.mark.real_server

BAD = 'x: int = "s"\n'
"""A type error every Python checker reports, on line 1, column 10."""

Finding = tuple[str, int, int]
"""A finding's path (relative to the root), line and column (1-based)."""


def tool(argv: Sequence[str | Path], cwd: Path) -> str:
    """A checker's own command line, run as a user runs it (its exit status says findings)."""
    done = subprocess.run(
        [str(arg) for arg in argv],
        cwd=cwd,
        env=tool_env({"NO_COLOR": "1"}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout


def ours(ran: Ran) -> tuple[set[str], set[Finding]]:
    """The files our check covered and its errors and warnings, from ``--format json``."""
    assert ran.status in (0, 1), ran.err
    document = json.loads(ran.out)
    found = {
        (d["path"], d["line"], d["column"])
        for d in document["diagnostics"]
        if d["severity"] in ("error", "warning")
    }
    return set(document["files"]), found


def check(root: Path, server: str, *paths: str) -> Ran:
    return run("check", "--server", server, "--format", "json", "--no-progress", *paths, cwd=root)


# -- basedpyright --------------------------------------------------------------------------------

PYTHON_TREE = {
    "top.py": BAD,
    "src/pkg/__init__.py": "",
    "src/pkg/a.py": BAD,
    "src/pkg/ex_gen.py": BAD,
    "src/pkg/ign.py": BAD,
    "src/pkg/.hidden/h.py": BAD,
    "src/pkg/node_modules/n.py": BAD,
    "src/env/pyvenv.cfg": "home = /usr\n",
    "src/env/lib/e.py": BAD,
    "tests/test_t.py": BAD,
    "typing_tests/tt.py": BAD,
    "scripts/s.py": BAD,
}


def basedpyright(root: Path, *files: str) -> set[Finding]:
    out = json.loads(tool(["basedpyright", "--outputjson", *files], root))
    return {
        (
            Path(d["file"]).relative_to(root).as_posix(),
            d["range"]["start"]["line"] + 1,
            d["range"]["start"]["character"] + 1,
        )
        for d in out["generalDiagnostics"]
        if d["severity"] in ("error", "warning")
    }


def test_basedpyright_checks_what_its_command_line_checks(tmp_path: Path) -> None:
    """Once wrong: every file of the tree went to basedpyright (8 findings here where its
    own command line has 2: the excluded file, the hidden folder, the environment ...)."""
    need("basedpyright")
    root = write(
        tmp_path / "p",
        {
            **PYTHON_TREE,
            "pyproject.toml": (
                '[project]\nname = "p"\n\n[tool.pyright]\n'
                'include = ["src", "typing_tests"]\nexclude = ["src/pkg/ex_*"]\n'
                'ignore = ["src/pkg/ign.py"]\n'
            ),
        },
    )
    theirs = basedpyright(root)
    assert theirs == {("src/pkg/a.py", 1, 10), ("typing_tests/tt.py", 1, 10)}
    files, found = ours(check(root, "basedpyright"))
    assert found == theirs
    assert files == {"src/pkg/__init__.py", "src/pkg/a.py", "typing_tests/tt.py"}
    # A folder: the scope within it.
    files, found = ours(check(root, "basedpyright", "src"))
    assert (files, found) == ({"src/pkg/__init__.py", "src/pkg/a.py"}, {("src/pkg/a.py", 1, 10)})


PATHS_TREE = {
    "pyproject.toml": (
        '[tool.pyright]\ninclude = ["src"]\nexclude = ["src/pkg/ex_*", "examples"]\n'
    ),
    "src/pkg/a.py": BAD,
    "src/pkg/ex_gen.py": BAD,
    "scripts/s.py": BAD,
    "tests/test_a.py": BAD,
    "examples/e.py": BAD,
}


@pytest.mark.parametrize(
    ("given", "checked"),
    [
        # Paths given replace include (tests/ is checked though include names only src) ...
        (["tests"], {"tests/test_a.py"}),
        (["scripts/s.py", "src"], {"scripts/s.py", "src/pkg/a.py"}),
        # ... and exclude still holds, for a file named too ("0 files analysed").
        (["src/pkg/ex_gen.py"], set()),
        (["examples"], set()),
        (["examples/e.py"], set()),
    ],
)
def test_paths_given_mean_to_basedpyright_what_they_mean_to_its_command_line(
    tmp_path: Path, given: list[str], checked: set[str]
) -> None:
    """Once wrong: a file named was checked whatever excluded it (pydantic's
    ``check pydantic/mypy.py``: 977 findings where ``basedpyright pydantic/mypy.py`` analyses
    no file), and a folder given was cut down to ``include`` (flask's ``check tests``: 2
    errors against 114). Each run is compared with basedpyright's own on the same paths."""
    need("basedpyright")
    root = write(tmp_path / "p", PATHS_TREE)
    theirs = basedpyright(root, *given)
    assert {path for path, _line, _column in theirs} == checked
    ran = check(root, "basedpyright", *given)
    if not checked:
        assert ran.status == 2, ran.err
        assert "nothing to check" in ran.err
        assert (
            "left out by basedpyright's configuration (pyproject.toml [tool.pyright], exclude)"
            in ran.err
        )
        no_traceback(ran)
        return
    files, found = ours(ran)
    assert found == theirs
    assert files == checked


@pytest.mark.parametrize("server", ["ty", "pyrefly"])
def test_a_file_ty_or_pyrefly_leave_out_is_never_counted_clean(tmp_path: Path, server: str) -> None:
    """``ty check gen.py`` and ``pyrefly check gen.py`` check a file their configuration
    excludes, but their language servers answer an empty report for it (as ruff's does): no
    server checks it, so ``check gen.py`` says it is left out and why (exit 2), never
    "0 errors in 1 file"; the file the configuration keeps is checked as their command
    lines check it."""
    need(server)
    root = write(
        tmp_path / "p",
        {
            "pyproject.toml": (
                '[tool.ty.src]\nexclude = ["gen.py"]\n'
                '[tool.pyrefly]\nproject-excludes = ["gen.py"]\n'
            ),
            "gen.py": BAD,
            "kept.py": BAD,
        },
    )
    argv = [server, "check", "gen.py"]
    assert "gen.py" in tool(argv, root)
    ran = check(root, server, "gen.py")
    assert ran.status == 2, ran.err
    table = "[tool.ty.src], exclude" if server == "ty" else "[tool.pyrefly], project-excludes"
    assert f"left out by {server}'s configuration (pyproject.toml {table})" in ran.err
    ran = check(root, server)
    assert f"1 file left out by {server}'s configuration (pyproject.toml {table})" in ran.err
    files, found = ours(ran)
    assert (files, found) == ({"kept.py"}, {("kept.py", 1, 10)})


def test_basedpyright_reads_the_configuration_nearest_where_it_runs(tmp_path: Path) -> None:
    """basedpyright reads one configuration, the one nearest where it runs: from the
    repository, the root's decides for every file (a package's own pyrightconfig.json is
    not read); from the package, the package's (JSON with comments, extending a base).
    Once wrong: each file's nearest configuration decided, so a check from the root also
    checked what the package's own names (pydantic: 13 files and 339 findings its command
    line does not report)."""
    need("basedpyright")
    root = write(
        tmp_path / "repo",
        {
            "pyproject.toml": '[tool.basedpyright]\ninclude = ["src", "packages"]\n',
            "src/a.py": BAD,
            "other/o.py": BAD,
            "packages/b/pyrightconfig.json": (
                "{\n  // the package checks its lib, not its scripts\n"
                '  "extends": "../../base.json",\n  "include": ["lib"],\n}\n'
            ),
            "base.json": '{"exclude": ["**/gen"]}',
            "packages/b/lib/l.py": BAD,
            "packages/b/lib/gen/g.py": BAD,
            "packages/b/scripts/s.py": BAD,
        },
    )
    git(root, "init", "-q")  # one repository, one root: from the package too
    package = root / "packages" / "b"
    from_root = basedpyright(root)
    assert from_root == {
        ("src/a.py", 1, 10),
        ("packages/b/lib/l.py", 1, 10),
        ("packages/b/lib/gen/g.py", 1, 10),
        ("packages/b/scripts/s.py", 1, 10),
    }
    _files, found = ours(check(root, "basedpyright"))
    assert found == from_root
    in_package = {
        (f"packages/b/{path}", line, column) for path, line, column in basedpyright(package)
    }
    assert in_package == {("packages/b/lib/l.py", 1, 10)}
    _files, found = ours(check(package, "basedpyright"))
    assert found == in_package


def test_a_broken_configuration_is_said_and_the_defaults_apply(tmp_path: Path) -> None:
    """basedpyright itself reads a pyrightconfig.json it cannot parse as no configuration
    (its command line then checks every file, ``b.py`` too): so does the check, saying so
    on stderr."""
    need("basedpyright")
    root = write(
        tmp_path / "p",
        {"pyrightconfig.json": '{"include": ["src" "x"]}', "src/a.py": BAD, "b.py": BAD},
    )
    theirs = basedpyright(root)
    assert theirs == {("src/a.py", 1, 10), ("b.py", 1, 10)}
    ran = check(root, "basedpyright")
    assert ran.err.startswith(
        "adecore-lsp: warning: pyrightconfig.json: line 1 column 20: Expecting ',' delimiter; "
        "basedpyright scope: the tool's defaults"
    )
    assert ours(ran) == ({"src/a.py", "b.py"}, theirs)


# -- ruff ----------------------------------------------------------------------------------------

UNUSED = "import os\n"
"""ruff's F401 on line 1, column 8, under any configuration."""

RUFF_TREE = {
    "pyproject.toml": (
        '[tool.ruff]\nextend-exclude = ["examples/sample", "gen.py", "legacy"]\n'
        '[tool.ruff.lint]\nexclude = ["old_*.py"]\n'
    ),
    "pkg/a.py": UNUSED,
    "pkg/old_x.py": UNUSED,
    "build/b.py": UNUSED,  # ruff 0.17 walks a folder named build ...
    "dist/d.py": UNUSED,  # ... and its default excludes name dist
    "gen.py": UNUSED,
    "legacy/l.py": UNUSED,
    "examples/sample/pyproject.toml": "[tool.ruff]\nline-length = 100\n",
    "examples/sample/app.py": UNUSED,
}


def ruff_files(root: Path, cwd: Path, *paths: str) -> set[str]:
    """The files `ruff check` run in ``cwd`` with ``paths`` reports (root-relative)."""
    out = tool(["ruff", "check", "--no-cache", "--output-format", "json", *paths], cwd)
    return {Path(item["filename"]).relative_to(root).as_posix() for item in json.loads(out or "[]")}


@pytest.mark.parametrize(
    ("where", "given", "expected"),
    [
        ("", [], "same"),
        ("", ["examples/sample"], "same"),
        ("examples/sample", [], "same"),
        ("", ["pkg", "build"], "same"),
        # From examples/, ruff's walk judges examples/sample by the repository's
        # configuration, which excludes it: nothing is checked, by either.
        ("examples", [], "nothing"),
        # ruff's command line lints a file or folder named though its configuration
        # excludes it; its language server never lints such a file, so nothing does: it is
        # said to be left out (never counted clean).
        ("", ["gen.py"], "left out"),
        ("", ["legacy"], "left out"),
    ],
)
def test_ruff_checks_what_its_command_line_checks_run_there(
    tmp_path: Path, where: str, given: list[str], expected: str
) -> None:
    """Once wrong: every file went to the ruff server at the repository, which answers an
    empty report for a file its configuration excludes (and for a nested project whose
    own configuration it never read): those files were counted checked and clean."""
    need("ruff")
    root = write(tmp_path / "repo", RUFF_TREE)
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    cwd = root / where
    theirs = ruff_files(root, cwd, *given)
    ran = run("check", "--server", "ruff", "--format", "json", "--no-progress", *given, cwd=cwd)
    no_traceback(ran)
    if expected == "same":
        files, found = ours(ran)
        assert {path for path, _line, _column in found} == theirs
        assert files == theirs
        return
    assert bool(theirs) == (expected == "left out")
    assert ran.status == 2, ran.err
    assert "nothing to check" in ran.err
    assert "left out by ruff's configuration (pyproject.toml, extend-exclude)" in ran.err


def test_ruff_says_what_its_configuration_left_out(tmp_path: Path) -> None:
    need("ruff")
    root = write(tmp_path / "repo", RUFF_TREE)
    ran = run("check", "--server", "ruff", "--no-progress", cwd=root)
    assert ran.status == 0, ran.err  # warnings only
    assert ran.out.splitlines()[-1].startswith("0 errors, 2 warnings in 2 files (ruff ")
    assert set(ran.err.splitlines()) == {
        "3 files left out by ruff's configuration (pyproject.toml, extend-exclude)",
        "1 file left out by ruff's configuration (pyproject.toml, lint.exclude)",
        "1 file left out by ruff's default exclude",
    }


# -- pyrefly and ty --------------------------------------------------------------------------


def pyrefly(root: Path) -> set[Finding]:
    out = json.loads(tool(["pyrefly", "check", "--output-format", "json"], root) or "{}")
    return {(d["path"], d["line"], d["column"]) for d in out.get("errors", [])}


def ty(root: Path) -> set[Finding]:
    out = tool(["ty", "check", "--output-format", "concise"], root)
    found = re.findall(r"^(.+?):(\d+):(\d+): (?:error|warning)\[", out, flags=re.M)
    return {(path, int(line), int(column)) for path, line, column in found}


def test_pyrefly_and_ty_check_what_their_command_lines_check(tmp_path: Path) -> None:
    need("pyrefly")
    need("ty")
    trees = {
        "pyrefly": {
            "pyrefly.toml": (
                'project-includes = ["src", "typing_tests"]\nproject-excludes = ["**/ex_*"]\n'
            ),
        },
        # No configuration of its own: pyrefly reads the pyright table in its place (an
        # example's bare pyproject.toml is none: flask's examples have one each).
        "pyrefly-from-pyright": {
            "pyproject.toml": '[tool.pyright]\ninclude = ["src"]\nexclude = ["src/pkg/ign.py"]\n',
            "examples/demo/pyproject.toml": '[project]\nname = "demo"\n',
            "examples/demo/e.py": BAD,
        },
        "ty": {
            "pyproject.toml": (
                '[tool.ty.src]\ninclude = ["src", "tests", "typing_tests"]\n'
                'exclude = ["src/pkg/ex_*", "src/env/", "**/.hidden/", "!src/pkg/ex_gen.py"]\n'
            ),
        },
    }
    roots = {name: write(tmp_path / name, {**PYTHON_TREE, **tree}) for name, tree in trees.items()}
    server = {"pyrefly": "pyrefly", "pyrefly-from-pyright": "pyrefly", "ty": "ty"}
    runs = run_jobs(
        {
            name: (root, ("check", "--server", server[name], "--format", "json", "--no-progress"))
            for name, root in roots.items()
        }
    )
    expected = {
        # pyrefly leaves out no environment by its markers: only folders named venv.
        "pyrefly": {
            ("src/pkg/a.py", 1, 10),
            ("src/pkg/ign.py", 1, 10),
            ("src/env/lib/e.py", 1, 10),
            ("typing_tests/tt.py", 1, 10),
        },
        "pyrefly-from-pyright": {
            ("src/pkg/a.py", 1, 10),
            ("src/pkg/ex_gen.py", 1, 10),
            ("src/env/lib/e.py", 1, 10),
        },
        "ty": {
            ("src/pkg/a.py", 1, 10),
            ("src/pkg/ex_gen.py", 1, 10),
            ("src/pkg/ign.py", 1, 10),
            ("tests/test_t.py", 1, 10),
            ("typing_tests/tt.py", 1, 10),
        },
    }
    for name, root in roots.items():
        theirs = ty(root) if name == "ty" else pyrefly(root)
        assert theirs == expected[name], name
        files, found = ours(runs[name])
        assert found == theirs, name
        assert {path for path in files if path.endswith("__init__.py") is False} == {
            path for path, _line, _column in theirs
        }, name


# -- TypeScript ------------------------------------------------------------------------------

TS_BAD = 'const n: number = "s";\nexport { n };\n'
"""A type error on line 1, column 7 (TS2322)."""


def tsc(root: Path, project: str, native: bool) -> set[Finding]:
    program = NPM_BIN / "tsc" if native else NPM_BIN.parent / "typescript" / "bin" / "tsc"
    argv: list[str | Path] = [program, "--noEmit", "--pretty", "false", "-p", project]
    if not native:
        argv.insert(0, "node")
    out = tool(argv, root)
    found = re.findall(r"^(.+?)\((\d+),(\d+)\): error TS", out, flags=re.M)
    return {(Path(path).as_posix(), int(line), int(column)) for path, line, column in found}


TS_TREE = {
    "tsconfig.json": (
        "{\n  // a solution: no files of its own, its projects' files\n"
        '  "files": [],\n  "references": [{"path": "./packages/x/tsconfig.app.json"},'
        ' {"path": "packages/y"}],\n}\n'
    ),
    "tsconfig.base.json": (
        '{"compilerOptions": {"strict": true, "noEmit": true}, "exclude": ["**/gen"]}'
    ),
    "packages/x/tsconfig.app.json": (
        '{"extends": "../../tsconfig.base.json", "files": ["main.ts"], "include": ["src"],'
        ' "exclude": ["src/**/*.spec.ts"]}'
    ),
    "packages/x/main.ts": TS_BAD,
    "packages/x/src/a.ts": TS_BAD,
    "packages/x/src/a.spec.ts": TS_BAD,
    "packages/x/scripts/s.ts": TS_BAD,
    "packages/y/tsconfig.json": '{"extends": "../../tsconfig.base.json", "include": ["src"]}',
    "packages/y/src/b.ts": TS_BAD,
    "packages/y/src/gen/g.ts": TS_BAD,
    "packages/y/src/legacy.js": "const = ;\n",
    "loose.ts": TS_BAD,
}


@pytest.mark.parametrize("server", ["typescript-language-server", "tsc"])
def test_typescript_checks_what_tsc_checks_per_project(tmp_path: Path, server: str) -> None:
    """Once wrong: every .ts and .js file of the tree was opened (the spec file, the
    scripts, the generated file, a JavaScript file tsc never reads, a file outside every
    project), 8 findings where tsc has 3."""
    need(server)
    root = write(tmp_path / "repo", TS_TREE)
    native = server == "tsc"
    theirs = set()
    for project in ("packages/x/tsconfig.app.json", "packages/y"):
        theirs |= tsc(root, project, native)
    assert theirs == {
        ("packages/x/main.ts", 1, 7),
        ("packages/x/src/a.ts", 1, 7),
        ("packages/y/src/b.ts", 1, 7),
    }
    files, found = ours(check(root, server))
    assert found == theirs
    assert files == {path for path, _line, _column in theirs}


# -- what decided ------------------------------------------------------------------------------


def test_servers_and_doctor_name_the_configuration_that_decides(tmp_path: Path) -> None:
    need("ty")
    root = write(
        tmp_path / "p",
        {
            "pyproject.toml": '[tool.ty.src]\ninclude = ["src"]\n',
            "pyrightconfig.json": '{"include": ["lib"], "ignore": ["lib/gen"]}',
            "tsconfig.json": '{"include": ["web"], "references": [{"path": "./api"}]}',
            "api/tsconfig.json": "{}",
            "src/a.py": "",
        },
    )
    ran = run("servers", "--format", "json", cwd=root)
    no_traceback(ran)
    rows: dict[str, Any] = {row["id"]: row["scope"] for row in json.loads(ran.out)}
    assert rows["ruff"]["config"] is None  # ruff's defaults: no configuration of its own
    assert rows["ruff"]["include"] == ["*.py", "*.pyi", "*.ipynb", "**/pyproject.toml"]
    assert rows["ty"]["config"] == "pyproject.toml [tool.ty.src]"
    assert rows["ty"]["include"] == ["src"]
    assert rows["basedpyright"] == {
        "config": "pyrightconfig.json",
        "include": ["lib"],
        "exclude": ["**/node_modules", "**/__pycache__", "**/.*", "**/__editable__.*"],
        "ignore": ["lib/gen"],
        "error": None,
    }
    # pyrefly has no configuration of its own here: it reads pyright's.
    assert rows["pyrefly"]["config"] == "pyrightconfig.json"
    assert rows["tsc"]["config"] == "tsconfig.json"
    assert rows["tsc"]["references"] == ["api/tsconfig.json"]
    doctor = run("doctor", "ty", "--format", "json", cwd=root)
    [row] = json.loads(doctor.out)
    assert row["scope"]["config"] == "pyproject.toml [tool.ty.src]"
    text = run("doctor", "ty", cwd=root)
    assert text.out.rstrip().endswith("scope: pyproject.toml [tool.ty.src]")


# -- --new-since -----------------------------------------------------------------------------


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        timeout=60,
    )


def test_new_since_checks_each_sides_scope(tmp_path: Path) -> None:
    """Once wrong: an error written in a file the configuration leaves out (``scripts``)
    was reported as new; each side now checks what its own configuration names (the
    revision's included ``old``, whose error is then resolved)."""
    need("basedpyright")
    root = write(
        tmp_path / "repo",
        {
            "pyproject.toml": '[tool.pyright]\ninclude = ["src", "old"]\n',
            "src/a.py": "x: int = 1\n",
            "scripts/s.py": "y: int = 1\n",
            "old/o.py": BAD,
        },
    )
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    write(
        root,
        {
            "pyproject.toml": '[tool.pyright]\ninclude = ["src"]\n',
            "src/a.py": BAD,
            "scripts/s.py": 'y: int = "s"\n',
        },
    )
    ran = run(
        "check", "--new-since", "HEAD", "--server", "basedpyright", "--format", "json", cwd=root
    )
    assert ran.status == 1, ran.err
    document = json.loads(ran.out)
    assert [(d["path"], d["line"]) for d in document["diagnostics"]] == [("src/a.py", 1)]
    assert [(d["path"], d["line"]) for d in document["resolved"]] == [("old/o.py", 1)]
    assert set(document["files"]) == {"src/a.py"}
    # A folder given replaces include on both sides, as `basedpyright scripts` does ...
    folder = run("check", "--new-since", "HEAD", "--server", "basedpyright", "scripts", cwd=root)
    assert folder.status == 1, folder.err
    assert folder.out.startswith("scripts/s.py:1:10: error")
    # ... a file named is checked on both sides.
    named = run(
        "check", "--new-since", "HEAD", "--server", "basedpyright", "scripts/s.py", cwd=root
    )
    assert named.status == 1, named.err
    assert named.out.startswith("scripts/s.py:1:10: error")


def test_what_the_listing_leaves_aside_is_counted_with_why(tmp_path: Path) -> None:
    """Folders no checker reads and what ``.gitignore`` ignores are left out of a check and
    said on stderr, with the first few names: outside git (the walk) and inside (git's
    listing names no ignored file, but a committed folder no checker reads is said)."""
    need("ruff")
    root = write(
        tmp_path / "tree",
        {
            ".venv/lib/v.py": UNUSED,
            "node_modules/p/n.py": UNUSED,
            "build/b.py": UNUSED,
            "pkg/a.py": UNUSED,
            "gen.py": UNUSED,
            "notes.txt": "",
            ".gitignore": "build/\ngen.py\nnotes.txt\n",
        },
    )
    ran = run("check", "--server", "ruff", "--no-progress", cwd=root)
    assert ran.status == 0, ran.err
    assert ran.err.splitlines() == [
        "left out: 2 folders no checker reads (.venv/, node_modules/)",
        "left out: 1 folder and 1 file that .gitignore ignores (build/, gen.py)",
    ]
    write(root, {".gitignore": "build/\ngen.py\nnotes.txt\n.venv/\n"})
    git(root, "init", "-q")
    git(root, "add", "-f", "node_modules/p/n.py")
    ran = run("check", "--server", "ruff", "--no-progress", cwd=root)
    assert ran.err.splitlines() == ["left out: 1 folder no checker reads (node_modules/)"]
    quiet = run("check", "--server", "ruff", "--quiet", cwd=root)
    assert quiet.err == ""
