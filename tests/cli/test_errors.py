"""Errors a person can act on, and the exit statuses that go with them.

A usage error or a failure of the tool or a server exits 2 with one message on stderr that
says what to do; an answer that cannot be trusted (a wait timed out) exits 3 and names the
files; no Python traceback without ``--debug``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import SCRIPTED, Ran, installed, need, no_traceback, run, run_all, write

pytestmark = pytest.mark.real_server

APP = """\
from lib import Greeter, make


def main() -> None:
    print(make().greet("world"))
    Greeter().shout("x")
"""
LIB = """\
class Greeter:
    def greet(self, name: str) -> str:
        return "hello " + name

    def shout(self, name: str) -> str:
        return self.greet(name).upper()


def make() -> Greeter:
    return Greeter()
"""
FILES = {
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0"\n',
    "app.py": APP,
    "lib.py": LIB,
    "other.py": "class Greeter:\n    pass\n",
}


def scripted(mode: str) -> str:
    """The ``--command`` of the scripted server in ``mode``, as one shell-like string."""
    return f"{sys.executable} {SCRIPTED} {mode}"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("errors"), FILES)


def _failed(ran: Ran, *needles: str) -> str:
    """A failure: status 2, nothing on stdout, no traceback, and each needle on stderr."""
    assert ran.status == 2, ran
    assert ran.out == "", ran
    no_traceback(ran)
    for needle in needles:
        assert needle in ran.err, (needle, ran.err)
    assert "adecore-lsp: error: " in ran.err
    return ran.err


# -- bad targets (basedpyright) ------------------------------------------------------------------


@pytest.fixture(scope="module")
def targets(project: Path) -> dict[str, Ran]:
    need("basedpyright")
    server = ("--server", "basedpyright", "--no-progress")
    jobs = {
        "ambiguous": ("hover", "Greeter", *server),
        "nothing": ("hover", "Nothing", *server),
        "no symbol": ("definition", "app.py#Nope", *server),
        "past the end": ("hover", "app.py:99", *server),
        "past the line": ("hover", "app.py:1:99", *server),
        "debug": ("hover", "app.py:99", *server, "--debug"),
    }
    return run_all(jobs, cwd=project, workers=2)


def test_an_ambiguous_name_lists_the_candidates(targets: dict[str, Ran]) -> None:
    err = _failed(targets["ambiguous"], "Greeter", "2 symbols")
    assert "lib.py#Greeter" in err
    assert "lib.py:1:7" in err
    assert "other.py#Greeter" in err
    assert "other.py:1:7" in err


def test_a_name_that_matches_nothing(targets: dict[str, Ran]) -> None:
    _failed(targets["nothing"], "Nothing")


def test_a_file_without_that_symbol(targets: dict[str, Ran]) -> None:
    _failed(targets["no symbol"], "app.py", "Nope")


def test_a_line_past_the_end_says_how_many_lines_the_file_has(targets: dict[str, Ran]) -> None:
    _failed(targets["past the end"], "app.py:99", "app.py has 6 lines")


def test_a_column_past_the_end_of_the_line(targets: dict[str, Ran]) -> None:
    err = _failed(targets["past the line"], "app.py:1:99")
    assert f"{len(APP.splitlines()[0])} columns" in err


def test_debug_shows_the_traceback(targets: dict[str, Ran]) -> None:
    ran = targets["debug"]
    assert ran.status == 2, ran
    assert ran.out == ""
    assert "Traceback (most recent call last)" in ran.err
    assert "app.py has 6 lines" in ran.err


# -- servers that are missing, crash or keep silent ---------------------------------------------


def _no_zuban() -> None:
    if installed("zuban"):
        pytest.skip("zuban is installed here: it cannot stand for a missing server")


def test_a_registry_server_not_installed_gives_its_install_hint(project: Path) -> None:
    _no_zuban()
    ran = run("check", "--server", "zuban", "app.py", cwd=project)
    _failed(ran, "zuban", "not installed", "pip install zuban")


def test_doctor_of_a_missing_server_says_why(project: Path) -> None:
    _no_zuban()
    ran = run("doctor", "zuban", cwd=project)
    assert ran.status == 2, ran
    no_traceback(ran)
    [line] = ran.out.splitlines()
    assert line.startswith("zuban ")
    assert "FAILED" in line
    assert "pip install zuban" in line
    rows = json.loads(run("doctor", "zuban", "--format", "json", cwd=project).out)
    assert rows[0]["ok"] is False
    assert "pip install zuban" in rows[0]["error"]


def test_a_command_that_does_not_exist(project: Path) -> None:
    ran = run("check", "--command", "no-such-lsp --stdio", "app.py", cwd=project)
    _failed(ran, "no-such-lsp", "not installed")


def test_an_unknown_server_id_lists_the_known_ones(project: Path) -> None:
    ran = run("check", "--server", "nope-such-server", "app.py", cwd=project)
    _failed(ran, "nope-such-server", "ruff", "basedpyright")


def test_a_server_that_crashes_at_start_exits_2_with_its_last_stderr_lines(
    project: Path,
) -> None:
    ran = run("check", "--command", scripted("crash-at-start"), "app.py", cwd=project)
    _failed(
        ran,
        "scripted-lsp: loading the project",
        "scripted-lsp: fatal: the index is corrupt (scripted crash)",
    )


def test_a_silent_server_times_out_exits_3_and_names_the_files(project: Path) -> None:
    command = ("--command", scripted("silent"), "--timeout", "0.5")
    runs = run_all(
        {
            "text": ("check", *command, "app.py", "lib.py"),
            "json": ("check", *command, "app.py", "lib.py", "--format", "json"),
        },
        cwd=project,
    )
    text = runs["text"]
    assert text.status == 3, text
    no_traceback(text)
    assert "incomplete" in text.err
    assert "timeout" in text.err
    assert "app.py" in text.err
    assert "lib.py" in text.err
    # stdout keeps its shape, and alone it does not read as a clean check: no file counted
    # as checked, the incompleteness said.
    assert text.out.splitlines()[-1] == (
        "0 errors, 0 warnings in 0 files (python 1.0); incomplete: 2 of 2 files not final (timeout)"
    )
    as_json = runs["json"]
    assert as_json.status == 3, as_json
    document = json.loads(as_json.out)
    assert document["complete"] is False
    assert document["reason"] == "timeout"
    assert document["files"] == {
        "app.py": {"complete": False, "reason": "timeout"},
        "lib.py": {"complete": False, "reason": "timeout"},
    }
    assert "app.py" in as_json.err
    assert "lib.py" in as_json.err


def test_the_summary_counts_only_the_files_whose_diagnostics_are_final() -> None:
    """Files skipped or unfinished are not counted as checked, and the line says so."""
    from adecore_lsp.cli.reports import summary
    from adecore_lsp.workspace.model import FileStatus

    files = {
        "a.py": FileStatus(True),
        "b.py": FileStatus(True),
        "c.txt": FileStatus(False, "unsupported"),
        "d.py": FileStatus(False, "timeout"),
        "e.py": FileStatus(False, "timeout"),
    }
    assert summary(1, 2, files, [("ruff", "0.9")]) == (
        "1 error, 2 warnings in 2 files (ruff 0.9); incomplete: 3 of 5 files not final "
        "(timeout, no installed server takes it)\n"
    )
    finished = {"a.py": FileStatus(True)}
    assert summary(0, 0, finished, []) == "0 errors, 0 warnings in 1 file\n"


# -- usage errors ------------------------------------------------------------------------------


def test_a_file_that_does_not_exist(project: Path) -> None:
    ran = run("check", "--server", "ruff", "missing.py", cwd=project)
    _failed(ran, "missing.py")


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--timeout", "0", "app.py"),
        ("check", "--timeout", "soon", "app.py"),
        ("check", "--format", "xml", "app.py"),
        ("check", "--min-severity", "fatal", "app.py"),
        ("no-such-command",),
        ("check", "--no-such-option"),
        ("hover",),
        ("references", "app.py:1", "--context", "-1"),
    ],
)
def test_usage_errors_exit_2_with_the_usage_on_stderr(project: Path, args: tuple[str, ...]) -> None:
    ran = run(*args, cwd=project)
    assert ran.status == 2, ran
    assert ran.out == ""
    assert "usage: adecore-lsp" in ran.err
    no_traceback(ran)


def test_no_command_prints_the_help_on_stderr_and_exits_2(project: Path) -> None:
    ran = run(cwd=project)
    assert ran.status == 2, ran
    assert ran.out == ""
    assert "usage: adecore-lsp" in ran.err


def test_a_root_that_is_not_a_folder(project: Path) -> None:
    ran = run("check", "--server", "ruff", "--root", "app.py", "app.py", cwd=project)
    _failed(ran, "--root", "not a folder")
