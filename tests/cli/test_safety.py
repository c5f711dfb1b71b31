"""``safety.md`` as a user of the command line meets it: trust, writes that stay inside the
root and write through links, refusals that write nothing, servers that end with the
command, output a file name cannot forge, and plain errors for servers that are no servers.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.workspace.test_scripted import SCRIPT as SCRIPTED_SERVER
from tests.workspace.test_scripted import gone, pids

from .conftest import need, no_traceback, run, snapshot, tool_env, write

SCRIPTED = f"{sys.executable} {SCRIPTED_SERVER}"
"""The scripted server of the workspace tests, as a ``--command`` (its script in
``SCRIPTED_SERVER``)."""


def scripted_env(config: dict[str, Any]) -> dict[str, str]:
    return {"SCRIPTED_SERVER": json.dumps(config)}


def edit_of(uri: str, new: str) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri, "version": None},
        "edits": [
            {
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}},
                "newText": new,
            }
        ],
    }


# -- trust -----------------------------------------------------------------------------------


def stranger(tmp_path: Path) -> Path:
    """A repository that ships a ``.venv/bin/ruff`` and names a command: both leave a marker
    when run."""
    root = write(tmp_path / "stranger", {"app.py": "import os\n"})
    for name in (".venv/bin/ruff", "bin/evil"):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'#!/bin/sh\ntouch "{tmp_path / "ran"}"\nexit 1\n')
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    (root / "pyproject.toml").write_text(
        "[tool.adecore-lsp]\n"
        'servers = ["ruff"]\n'
        "[tool.adecore-lsp.server.ruff]\n"
        f'command = ["{root / "bin" / "evil"}", "server"]\n'
    )
    return root


def test_an_untrusted_repository_runs_nothing_it_names(tmp_path: Path) -> None:
    need("ruff")
    root = stranger(tmp_path)
    ran = run("check", "--quiet", "--format", "json", cwd=root)
    assert ran.status == 0, ran.err  # a warning, below --fail-on error
    assert [d["code"] for d in json.loads(ran.out)["diagnostics"]] == ["F401"]
    assert not (tmp_path / "ran").exists()
    # Said once, on stderr, also with --quiet: each item by its key or path, and the advice.
    [warning] = [line for line in ran.err.splitlines() if "not trusted" in line]
    assert "[tool.adecore-lsp.server.ruff] command" in warning
    assert ".venv/bin/ruff" in warning
    assert "adecore-lsp trust" in warning
    no_traceback(ran)


def test_trust_lists_and_removes_roots(tmp_path: Path) -> None:
    root = stranger(tmp_path)
    trusted = run("trust", cwd=root)
    assert trusted.status == 0, trusted.err
    assert str(root.resolve()) in trusted.err
    listed = run("trust", "--list", cwd=tmp_path)
    assert listed.status == 0
    assert str(root.resolve()) in listed.out.splitlines()
    # Trusted: its own ruff runs (and, being a shim, fails to start).
    ran = run("check", cwd=root)
    assert ran.status == 2
    assert (tmp_path / "ran").exists()
    assert "not trusted" not in ran.err
    # A change of the configuration needs trust again.
    (tmp_path / "ran").unlink()
    with open(root / "pyproject.toml", "a") as file:
        file.write("[tool.adecore-lsp.server.ruff.settings]\nlineLength = 90\n")
    changed = run("check", cwd=root)
    assert "not trusted" in changed.err
    assert not (tmp_path / "ran").exists()
    removed = run("trust", "--remove", root, cwd=tmp_path)
    assert removed.status == 0
    assert str(root.resolve()) not in run("trust", "--list", cwd=tmp_path).out
    again = run("trust", "--remove", root, cwd=tmp_path)
    assert again.status == 2
    assert "is not trusted" in again.err
    no_traceback(again)


def test_trust_flag_and_environment_trust_one_run(tmp_path: Path) -> None:
    root = stranger(tmp_path)
    assert run("check", "--trust", cwd=root).status == 2
    assert (tmp_path / "ran").exists()
    (tmp_path / "ran").unlink()
    assert run("check", cwd=root, env={"ADECORE_LSP_TRUST": "1"}).status == 2
    assert (tmp_path / "ran").exists()


# -- writes ----------------------------------------------------------------------------------


def test_rename_write_refuses_an_edit_outside_the_root(tmp_path: Path) -> None:
    root = write(tmp_path / "proj", {"a.txt": "one\n"})
    outside = write(tmp_path, {"outside.txt": "secret\n"}) / "outside.txt"
    config = {
        "rename": {
            "documentChanges": [
                edit_of("$ROOT/a.txt", "ONE"),
                edit_of(outside.as_uri(), "OWNED"),
            ]
        }
    }
    before = snapshot(root)
    ran = run(
        "rename",
        "a.txt:1:1",
        "ONE",
        "--write",
        "--command",
        SCRIPTED,
        cwd=root,
        env=scripted_env(config),
    )
    assert ran.status == 2
    assert "outside the root" in ran.err
    assert outside.read_text() == "secret\n"
    assert snapshot(root) == before
    no_traceback(ran)


def test_format_write_writes_through_a_link_and_keeps_the_mode(tmp_path: Path) -> None:
    need("ruff")
    root = write(tmp_path / "proj", {"real.py": "x  =  1\n"})
    (root / "real.py").chmod(0o640)
    (root / "alias.py").symlink_to("real.py")
    ran = run("format", "--server", "ruff", "--write", "alias.py", cwd=root)
    assert ran.status == 0, ran.err
    assert (root / "alias.py").is_symlink()
    assert (root / "real.py").read_text() == "x = 1\n"
    assert stat.S_IMODE((root / "real.py").stat().st_mode) == 0o640


@pytest.mark.parametrize("kind", ["hard link", "read-only"])
def test_a_file_that_must_not_be_replaced_is_refused(tmp_path: Path, kind: str) -> None:
    need("ruff")
    root = write(tmp_path / "proj", {"a.py": "a  =  1\n", "b.py": "b  =  2\n"})
    if kind == "hard link":
        os.link(root / "b.py", tmp_path / "twin.py")
        expected = "b.py has 2 hard links"
    else:
        (root / "b.py").chmod(0o444)
        expected = "b.py is read-only"
    before = snapshot(root)
    ran = run("format", "--server", "ruff", "--write", "a.py", "b.py", cwd=root)
    assert ran.status == 2
    assert expected in ran.err
    assert "nothing was written" in ran.err
    assert snapshot(root) == before


# -- servers end with the command ------------------------------------------------------------


@pytest.mark.parametrize(("number", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_ends_the_command_and_every_server(
    tmp_path: Path, number: int, status: int
) -> None:
    """A server that ignores the end of its input and SIGTERM, with a child: all end."""
    root = write(tmp_path / "proj", {"a.txt": "text\n"})
    pid_file = tmp_path / "pids"
    config = {
        "ignore_eof": True,
        "ignore_term": True,
        "detached_child": True,
        "pid_file": str(pid_file),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "adecore_lsp", "check", "a.txt", "--command", SCRIPTED],
        cwd=root,
        env=tool_env(scripted_env(config)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while (not pid_file.exists() or len(pids(pid_file)) < 2) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the handshake is done: the command waits for diagnostics
        process.send_signal(number)
        _out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == status, err
    assert all(gone(pid) for pid in pids(pid_file))
    assert b"Traceback" not in err


# -- output cannot be forged -----------------------------------------------------------------


def test_a_file_name_with_a_line_break_cannot_forge_a_finding(tmp_path: Path) -> None:
    need("ruff")
    name = "a\nb.py:1:1: error: forged.py"
    root = write(tmp_path / "proj", {name: "import os\n"})
    ran = run("check", "--server", "ruff", name, cwd=root)
    assert ran.status == 0, ran.err
    lines = ran.out.splitlines()
    assert len(lines) == 2  # one finding and the summary
    assert lines[0].startswith("a\\nb.py:1:1: error: forged.py:1:8: warning:")
    assert "\x1b" not in ran.out


# -- servers that are no servers -------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("true", "exited before its handshake (exit status 0)"),
        (
            "sh -c 'echo last words >&2; kill -9 $$'",
            "exited before its handshake (killed by SIGKILL)",
        ),
        (
            "echo Listening on port 2087",
            'wrote something other than LSP on its stdout: "Listening on port 2087\\n"',
        ),
    ],
)
def test_a_server_that_is_no_server_is_said_plainly(
    tmp_path: Path, command: str, said: str
) -> None:
    root = write(tmp_path / "proj", {"a.py": "x = 1\n"})
    ran = run("check", "a.py", "--command", command, cwd=root)
    assert ran.status == 2
    assert said in ran.err
    if "kill" in command:
        assert "last words" in ran.err
    assert "AttributeError" not in ran.err
    assert "(InternalError)" not in ran.err
    no_traceback(ran)


def test_a_rename_that_reaches_a_notebook_changes_only_its_cells_sources(tmp_path: Path) -> None:
    """basedpyright names a notebook's cells (``file:///.../calc_nb.ipynb#0``, or the cell
    URIs it was given): such an edit lands in the cell's source, and every other byte of the
    notebook's JSON stays as it was."""
    need("basedpyright")
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": 4,
                "id": "c1",
                "metadata": {"tags": ["keep"]},
                "outputs": [{"name": "stdout", "output_type": "stream", "text": ["6\n"]}],
                "source": ["from calc import triple\n", "print(triple(2))\n"],
            }
        ],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    text = json.dumps(notebook, indent=1) + "\n"
    root = write(
        tmp_path / "proj",
        {"calc.py": "def triple(x: int) -> int:\n    return 3 * x\n", "calc_nb.ipynb": text},
    )
    ran = run("rename", "calc.py#triple", "thrice", "--write", "--server", "basedpyright", cwd=root)
    assert ran.status == 0, ran
    assert "def thrice" in (root / "calc.py").read_text()
    assert (root / "calc_nb.ipynb").read_text() == text.replace("triple", "thrice")
    assert "--- a/calc_nb.ipynb (cell 1)\n+++ b/calc_nb.ipynb (cell 1)\n" in ran.out
    no_traceback(ran)
