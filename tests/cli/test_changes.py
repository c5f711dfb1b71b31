"""What did my change break? (changes.md) on the command line, with basedpyright and ruff:
``check --new-since REV`` against a temporary worktree of the revision, and the deltas that
``rename --write`` and ``fix --write`` print by the one rule."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.conftest import need, no_traceback, run, snapshot, tool_env, write

pytestmark = pytest.mark.real_server


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout


def commit_all(root: Path, message: str = "base") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def worktrees(root: Path) -> int:
    """How many worktrees git knows of in the repository (1: the main one alone)."""
    return git(root, "worktree", "list", "--porcelain").count("worktree ")


BASEDPYRIGHT = {
    "pyproject.toml": '[tool.adecore-lsp]\nservers = ["basedpyright"]\n\n'
    '[tool.basedpyright]\ntypeCheckingMode = "standard"\n'
}
"""basedpyright in its standard mode: errors only where the tests make them."""

LIB = "def area(width: int, height: int) -> int:\n    return width * height\n"
CALLER = (
    'from lib import area\n\n\ndef floor() -> int:\n    return area(2, 3)\n\n\nlabel: int = "old"\n'
)
"""``label`` is an error before any change: an old finding that must never be reported."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository checked by basedpyright, committed clean but for one old error."""
    need("basedpyright")
    root = write(tmp_path / "repo", {**BASEDPYRIGHT, "lib.py": LIB, "caller.py": CALLER})
    git(root, "init", "-q")
    commit_all(root)
    return root


def temp_env(tmp_path: Path) -> dict[str, str]:
    """A temporary folder of the run's own, to see that nothing is left in it."""
    folder = tmp_path / "tmp"
    folder.mkdir(exist_ok=True)
    return {"TMPDIR": str(folder)}


def test_a_signature_change_breaks_a_caller_in_an_untouched_file(
    repo: Path, tmp_path: Path
) -> None:
    # A parameter added: caller.py, never touched, now calls area with too few arguments.
    (repo / "lib.py").write_text(
        "def area(width: int, height: int, depth: int) -> int:\n"
        "    return width * height * depth\n",
        encoding="utf-8",
    )
    env = temp_env(tmp_path)
    ran = run("check", "--new-since", "HEAD", "--no-progress", cwd=repo, env=env)
    assert ran.status == 1, ran
    no_traceback(ran)
    lines = ran.out.splitlines()
    assert len(lines) == 2, ran.out
    assert lines[0].startswith("caller.py:5:12: error: "), ran.out
    assert "depth" in lines[0]
    assert "label" not in ran.out
    assert ":8:" not in ran.out
    assert lines[1] == "1 new error, 0 new warnings (0 resolved) since HEAD"
    assert worktrees(repo) == 1
    assert os.listdir(env["TMPDIR"]) == []
    # Nothing of the user's working tree or index was touched.
    assert git(repo, "status", "--porcelain") == " M lib.py\n"


def test_old_findings_are_ignored_and_resolved_ones_counted(repo: Path) -> None:
    # The old error fixed, a new one made elsewhere in the same file, an untracked file added.
    (repo / "caller.py").write_text(
        CALLER.replace('label: int = "old"', "label: int = 0") + "other: str = 1\n",
        encoding="utf-8",
    )
    (repo / "fresh.py").write_text('fresh: int = "new"\n', encoding="utf-8")
    text = run("check", "--new-since", "HEAD", "--no-progress", cwd=repo)
    assert text.status == 1, text
    found = [line.split(": error: ")[0] for line in text.out.splitlines()[:-1]]
    assert found == ["caller.py:9:14", "fresh.py:1:14"], text.out
    assert text.out.splitlines()[-1] == "2 new errors, 0 new warnings (1 resolved) since HEAD"

    document = json.loads(run("check", "--new-since", "HEAD", "--format", "json", cwd=repo).out)
    assert document["since"] == "HEAD"
    assert document["complete"] is True
    assert [(d["path"], d["line"]) for d in document["diagnostics"]] == [
        ("caller.py", 9),
        ("fresh.py", 1),
    ]
    assert [(d["path"], d["line"], d["severity"]) for d in document["resolved"]] == [
        ("caller.py", 8, "error")
    ]


def test_nothing_new_exits_0_in_every_format(repo: Path) -> None:
    # The old error's line rewritten (its message unchanged), a function added above it.
    (repo / "caller.py").write_text(
        "def helper() -> None:\n    pass\n\n\n" + CALLER.replace('"old"', '"old"  # still wrong'),
        encoding="utf-8",
    )
    for form in ("text", "json", "jsonl", "github", "sarif"):
        ran = run("check", "--new-since", "HEAD", "--format", form, "--no-progress", cwd=repo)
        assert ran.status == 0, (form, ran)
        if form == "text":
            assert ran.out == "0 new errors, 0 new warnings (0 resolved) since HEAD\n"
        elif form in ("jsonl", "github"):
            assert ran.out == ""
        elif form == "sarif":
            assert all(run_["results"] == [] for run_ in json.loads(ran.out)["runs"])
        else:
            assert json.loads(ran.out)["diagnostics"] == []


OVERLOADS = (
    "from typing import overload\n\n\n@overload\ndef pick(x: int, y: int) -> int: ...\n"
    "@overload\ndef pick(x: str, y: str) -> str: ...\n"
    "def pick(x: int | str, y: int | str) -> int | str:\n    return x\n\n\n"
    "first = pick(1.5, 2)\nsecond = pick(2.5, 3)\n"
)
"""Two calls of an overloaded function with an argument of the wrong type: each an old "no
overloads" error (reportCallIssue) with its argument's error (reportArgumentType) beside it."""


def test_a_call_newly_short_of_an_argument_inside_its_old_error_is_new(repo: Path) -> None:
    write(repo, {"overloads.py": OVERLOADS})
    commit_all(repo, "overloads")
    # basedpyright reports the call newly short of an argument as one "no overloads" error
    # over the same call, on the same line, its message a line longer (the argument types).
    (repo / "overloads.py").write_text(
        OVERLOADS.replace("pick(1.5, 2)", "pick(1.5)"), encoding="utf-8"
    )
    new = (
        'overloads.py:12:9: error: No overloads for "{name}" match the provided arguments '
        "Argument types: (float) [basedpyright reportCallIssue]"
    )
    ran = run("check", "--new-since", "HEAD", "overloads.py", "--no-progress", cwd=repo)
    assert ran.status == 1, ran
    assert ran.out.splitlines() == [
        new.format(name="pick"),
        "1 new error, 0 new warnings (2 resolved) since HEAD",
    ]
    # Both of that call's old errors are resolved, the other call's stay old.
    # Renamed as well: the other call's old errors, which now name the new name, stay old.
    (repo / "overloads.py").write_text(
        OVERLOADS.replace("pick(1.5, 2)", "pick(1.5)").replace("pick", "choose"),
        encoding="utf-8",
    )
    renamed = run("check", "--new-since", "HEAD", "overloads.py", "--no-progress", cwd=repo)
    assert renamed.status == 1, renamed
    assert renamed.out.splitlines() == [
        new.format(name="choose"),
        "1 new error, 0 new warnings (2 resolved) since HEAD",
    ]


def test_paths_limit_both_sides_and_renames_are_followed(repo: Path) -> None:
    git(repo, "mv", "caller.py", "moved.py")
    ran = run("check", "--new-since", "HEAD", "moved.py", "--no-progress", cwd=repo)
    assert ran.status == 0, ran  # the old error moved with its file
    assert ran.out == "0 new errors, 0 new warnings (0 resolved) since HEAD\n"


def test_outside_git_an_unknown_revision_and_a_baseline_exit_2(repo: Path, tmp_path: Path) -> None:
    plain = write(tmp_path / "plain", {**BASEDPYRIGHT, "a.py": "x = 1\n"})
    outside = run("check", "--new-since", "HEAD", cwd=plain)
    assert outside.status == 2, outside
    assert "not in a git repository" in outside.err
    unknown = run("check", "--new-since", "no-such-branch", cwd=repo)
    assert unknown.status == 2, unknown
    assert "unknown revision 'no-such-branch'" in unknown.err
    both = run("check", "--new-since", "HEAD", "--baseline", "x.json", cwd=repo)
    assert both.status == 2, both
    assert "--new-since and --baseline" in both.err
    for ran in (outside, unknown, both):
        no_traceback(ran)
        assert ran.out == ""
    assert worktrees(repo) == 1


def revision_written(folder: Path) -> bool:
    """Whether a check's copy of the revision (in the temporary ``folder``) has its files."""
    return any(folder.glob("adecore-lsp-since-*/tree/lib.py"))


def test_ctrl_c_removes_the_revisions_files_and_exits_130(repo: Path, tmp_path: Path) -> None:
    (repo / "lib.py").write_text(LIB + "\nbroken: int = 'x'\n", encoding="utf-8")
    env = tool_env(temp_env(tmp_path))
    folder = Path(env["TMPDIR"])
    process = subprocess.Popen(
        [sys.executable, "-m", "adecore_lsp", "check", "--new-since", "HEAD", "--no-progress"],
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while (
            not revision_written(folder) and process.poll() is None and time.monotonic() < deadline
        ):
            time.sleep(0.02)
        assert process.poll() is None, "the check ended before the revision's files were seen"
        os.kill(process.pid, signal.SIGINT)
        _out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err
    assert "Traceback" not in err.decode()
    assert worktrees(repo) == 1
    assert os.listdir(env["TMPDIR"]) == []
    assert git(repo, "status", "--porcelain") == " M lib.py\n"


# -- deltas of rename --write and fix --write ----------------------------------------------------


def test_a_rename_over_an_old_error_introduces_nothing(tmp_path: Path) -> None:
    need("basedpyright")
    root = write(
        tmp_path / "project",
        {
            **BASEDPYRIGHT,
            "calc.py": "def compute(value: int) -> int:\n    return value * 2\n",
            "use.py": 'from calc import compute\n\nresult = compute("three")\n',
        },
    )
    before = run("check", "use.py", "--no-progress", cwd=root)
    assert before.status == 1, before
    assert "use.py:3:18: error: " in before.out, before.out
    ran = run(
        "rename", "calc.py#compute", "double", "--write", "--server", "basedpyright", cwd=root
    )
    assert ran.status == 0, ran
    assert "(introduced)" not in ran.out
    assert "0 findings introduced, 0 resolved" in ran.err
    assert (root / "use.py").read_text(encoding="utf-8") == (
        'from calc import double\n\nresult = double("three")\n'
    )
    # The error is still there, under the new name: it was old, not introduced.
    after = run("check", "use.py", "--no-progress", cwd=root)
    assert after.status == 1, after
    assert "use.py:3:17: error: " in after.out


def test_fix_write_keeps_an_unrelated_warning_on_a_rewritten_line_old(tmp_path: Path) -> None:
    # `l` is ambiguous (E741, a warning with no fix); the unused import on its line goes.
    root = write(
        tmp_path / "project",
        {
            "pyproject.toml": '[tool.adecore-lsp]\nservers = ["ruff"]\n\n'
            '[tool.ruff.lint]\nselect = ["E7", "F"]\n',
            "a.py": "l = 1; import sys\n",
        },
    )
    before = snapshot(root)
    ran = run("fix", "--write", "a.py", "--format", "json", cwd=root)
    assert ran.status == 0, ran
    document = json.loads(ran.out)
    assert document["written"] == ["a.py"]
    assert document["introduced"] == []
    assert sorted(d["code"] for d in document["resolved"]) == ["E702", "F401"]
    assert document["complete"] is True
    assert document["reason"] is None
    assert snapshot(root)["a.py"] != before["a.py"]
    assert (root / "a.py").read_text(encoding="utf-8").rstrip() == "l = 1"
    check = run("check", "a.py", "--no-progress", cwd=root)
    assert check.out.startswith("a.py:1:1: warning: Ambiguous variable name"), check.out


def test_fix_asks_the_server_that_offers_a_fix_all(tmp_path: Path) -> None:
    # basedpyright first: it has no source.fixAll, so ruff's is taken.
    need("basedpyright")
    root = write(
        tmp_path / "project",
        {
            "pyproject.toml": '[tool.adecore-lsp]\nservers = ["basedpyright", "ruff"]\n',
            "a.py": "import os\nimport sys\n\nprint(os.sep)\n",
        },
    )
    ran = run("fix", "--write", "a.py", "--no-progress", cwd=root)
    assert ran.status == 0, ran
    assert (root / "a.py").read_text(encoding="utf-8") == "import os\n\nprint(os.sep)\n"
    assert "-import sys\n" in ran.out


def test_a_side_that_did_not_finish_exits_3(repo: Path) -> None:
    (repo / "lib.py").write_text(LIB + "\nbroken: int = 'x'\n", encoding="utf-8")
    ran = run("check", "--new-since", "HEAD", "--timeout", "0.05", "--no-progress", cwd=repo)
    assert ran.status == 3, ran
    no_traceback(ran)
    assert "incomplete" in ran.err
    # stdout alone does not read as "nothing new": its summary says the run was not whole.
    summary = ran.out.splitlines()[-1]
    assert re.match(
        r"\d+ new errors?, \d+ new warnings? \(\d+ resolved\) since HEAD; incomplete: ", summary
    )
    assert "not final (timeout)" in summary
    assert worktrees(repo) == 1


def test_the_revisions_side_sees_what_git_ignores(repo: Path, tmp_path: Path) -> None:
    from adecore_lsp.workspace.checks.revisions import _link_ignored

    (repo / ".venv" / "lib").mkdir(parents=True)
    (repo / "compile_commands.json").write_text("[]", encoding="utf-8")
    tree = tmp_path / "tree"
    (tree / "compile_commands.json").parent.mkdir(parents=True)
    (tree / "compile_commands.json").write_text("[1]", encoding="utf-8")  # the revision's own
    _link_ignored(repo, tree)
    assert (tree / ".venv").is_symlink()
    assert (tree / ".venv").resolve() == (repo / ".venv").resolve()
    assert not (tree / "compile_commands.json").is_symlink()  # kept: the revision has one
    assert not (tree / "node_modules").exists()


CYCLE = {
    "pyproject.toml": '[tool.adecore-lsp]\nservers = ["basedpyright"]\n\n'
    '[tool.basedpyright]\ntypeCheckingMode = "standard"\nreportImportCycles = "error"\n',
    "pkg/__init__.py": "",
    "pkg/a.py": "from pkg import b\n\n\ndef first() -> int:\n    return b.second()\n",
    "pkg/b.py": "from pkg import a\n\n\ndef second() -> int:\n    return 1\n\n\n"
    "def third() -> int:\n    return a.first()\n",
}
"""An import cycle, which basedpyright reports naming its files by their full paths."""


def cycle_repo(tmp_path: Path) -> Path:
    need("basedpyright")
    root = write(tmp_path / "repo", CYCLE)
    git(root, "init", "-q")
    commit_all(root)
    return root


def cycle_message(document: dict[str, object], key: str = "diagnostics") -> list[str]:
    items = document[key]
    assert isinstance(items, list)
    return [item["message"] for item in items if item["code"] == "reportImportCycles"]


def test_an_import_cycle_a_change_left_alone_is_not_new(tmp_path: Path) -> None:
    """basedpyright names the cycle's files by path, the revision's under its temporary
    folder: compared as the same message, a comment changed introduces nothing, and no
    temporary path is printed."""
    root = cycle_repo(tmp_path)
    env = temp_env(tmp_path)
    plain = run("check", "--format", "json", "--daemon", "off", cwd=root)
    assert cycle_message(json.loads(plain.out)) == [
        "Cycle detected in import chain\n  pkg/a.py\n  pkg/b.py"
    ]
    with (root / "pkg" / "a.py").open("a", encoding="utf-8") as file:
        file.write("# a comment\n")
    since = ("check", "--new-since", "HEAD", "--no-progress", "--daemon", "off")
    text = run(*since, cwd=root, env=env)
    assert text.status == 0, text
    assert text.out == "0 new errors, 0 new warnings (0 resolved) since HEAD\n"
    # Only the revision's side names its temporary folder, and only ``resolved`` (json)
    # prints its findings: none there, and none in any message.
    ran = run(*since, "--format", "json", cwd=root, env=env)
    assert ran.status == 0, ran
    assert json.loads(ran.out)["resolved"] == []
    assert env["TMPDIR"] not in ran.out + ran.err
    assert "adecore-lsp-since" not in ran.out + ran.err  # the temporary folder's name
    # A cycle broken: the revision's cycle is resolved, named by the repository's paths.
    (root / "pkg" / "b.py").write_text("def second() -> int:\n    return 1\n", encoding="utf-8")
    ran = run(*since, "--format", "json", cwd=root, env=env)
    assert ran.status == 0, ran
    document = json.loads(ran.out)
    assert cycle_message(document) == []
    assert cycle_message(document, "resolved") == [
        "Cycle detected in import chain\n  pkg/a.py\n  pkg/b.py"
    ]
    assert env["TMPDIR"] not in ran.out + ran.err
    assert os.listdir(env["TMPDIR"]) == []
