"""A daemon killed during a command that writes (issue 35): its caller says what is on disk,
never "run it again" for a set that was written.

The daemon tells its caller each set before it replaces a file; when the connection ends
without an exit status the caller finishes or undoes what the dead daemon left (as the next
command would) and looks at each file."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp.daemon.after_loss import on_disk
from adecore_lsp.write_journal import digest, journal_folder
from tests.cli.conftest import tool_env, write
from tests.daemon.conftest import alive, start_foreground, wait_until
from tests.workspace.test_scripted import SCRIPT as SCRIPTED_SERVER

SCRIPTED = f"{sys.executable} {SCRIPTED_SERVER}"


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


def test_a_daemon_killed_right_after_the_write_leaves_a_caller_that_says_it_was_written(
    daemon_folder: Path, tmp_path: Path
) -> None:
    project = write(tmp_path / "p", {"a.txt": "one\n", "b.txt": "two\n"})
    # The server publishes the files' first diagnostics, and none after the write: the
    # command then waits for them (up to its timeout), and the daemon is killed meanwhile.
    config = {
        "rename": {
            "documentChanges": [edit_of("$ROOT/a.txt", "ONE"), edit_of("$ROOT/b.txt", "TWO")]
        },
        "diagnostics": [{"delay": 0, "versions": [1], "items": []}],
    }
    env = {"SCRIPTED_SERVER": json.dumps(config)}
    daemon = start_foreground(daemon_folder, env=env)
    assert daemon.process is not None
    client = subprocess.Popen(
        [sys.executable, "-m", "adecore_lsp", "--daemon", "on", "--command", SCRIPTED,
         "rename", "a.txt:1:1", "ONE", "--write", "--timeout", "30", "--no-progress"],
        cwd=project,
        env=tool_env({**daemon.env, **env}),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_until(
            lambda: (project / "b.txt").read_text() == "TWO\n" or client.poll() is not None,
            30,
            "the write",
        )
        assert client.poll() is None, client.communicate()
        daemon.process.send_signal(signal.SIGKILL)
        out, err = client.communicate(timeout=30)
    finally:
        if client.poll() is None:
            client.kill()
    said = err.decode()
    assert out == b""  # the diff was to come from the daemon
    assert client.returncode == 3, said
    assert "after the files were written: 2 files changed (a.txt, b.txt)" in said
    assert "run it again" not in said
    assert (project / "a.txt").read_text() == "ONE\n"
    assert (project / "b.txt").read_text() == "TWO\n"
    daemon.process.wait(timeout=10)
    pids = [pid for pid in daemon.seen_pids if pid != daemon.process.pid]
    for pid in pids:
        wait_until(lambda pid=pid: not alive(pid), 10, f"the end of {pid}")


# -- what is said, from the sets the daemon told -------------------------------------------


def record(root: Path, *steps: dict[str, Any]) -> dict[str, Any]:
    return {"version": 1, "root": str(root), "steps": list(steps)}


def write_step(path: Path, old: bytes | None, new: bytes) -> dict[str, Any]:
    return {"op": "write", "target": str(path), "temp": "", "old": digest(old), "new": digest(new)}


def test_every_file_written(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "new a\n", "sub/b.py": "new b\n"})
    told = record(
        tmp_path,
        write_step(tmp_path / "a.py", b"old a\n", b"new a\n"),
        write_step(tmp_path / "sub/b.py", b"old b\n", b"new b\n"),
    )
    said, status = on_disk([told], str(tmp_path))
    assert status == 3
    assert "after the files were written: 2 files changed (a.py, sub/b.py)" in said


def test_nothing_written(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "old a\n"})
    told = record(tmp_path, write_step(tmp_path / "a.py", b"old a\n", b"new a\n"))
    said, status = on_disk([told], str(tmp_path / "elsewhere"))
    assert status == 2
    assert "before any file was written: nothing was written; run it again" in said


def test_some_written_some_not_some_changed_since(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "new a\n", "b.py": "old b\n", "c.py": "theirs\n", "gone.py": "x"})
    (tmp_path / "moved.py").write_text("m")
    told = record(
        tmp_path,
        write_step(tmp_path / "a.py", b"old a\n", b"new a\n"),
        write_step(tmp_path / "b.py", b"old b\n", b"new b\n"),
        write_step(tmp_path / "c.py", b"old c\n", b"new c\n"),
        {"op": "delete", "target": str(tmp_path / "gone.py"), "aside": ""},
        {"op": "rename", "old": str(tmp_path / "was.py"), "new": str(tmp_path / "moved.py")},
        {"op": "mkdir", "target": str(tmp_path / "folder")},
    )
    said, status = on_disk([told], str(tmp_path))
    assert status == 2
    assert "while writing the files; written: a.py, was.py, moved.py" in said
    assert "not written: b.py, gone.py" in said
    assert "changed since: c.py" in said


def test_a_complete_set_the_dead_daemon_left_is_finished_first(tmp_path: Path) -> None:
    """A daemon killed between its last check and its first replacement left a complete
    journal: the caller finishes the set, as the next command would, and says so."""
    write(tmp_path, {"a.py": "old\n"})
    temp = tmp_path / ".a.py.x.adecore-tmp"
    temp.write_text("new\n")
    step = write_step(tmp_path / "a.py", b"old\n", b"new\n") | {"temp": str(temp)}
    told = record(tmp_path.resolve(), step)
    folder = journal_folder(tmp_path.resolve())
    folder.mkdir(parents=True)
    (folder / "x.json").write_bytes(json.dumps(told).encode() + b"\ncomplete\n")
    said, status = on_disk([told], str(tmp_path))
    assert status == 3, said
    assert (tmp_path / "a.py").read_text() == "new\n"
    assert not temp.exists()


@pytest.mark.parametrize("steps", [[], [{"op": "mkdir", "target": "/x"}]])
def test_a_set_of_no_file_wrote_nothing(tmp_path: Path, steps: list[dict[str, Any]]) -> None:
    said, status = on_disk([record(tmp_path, *steps)], str(tmp_path))
    assert status == 2
    assert "nothing was written" in said
