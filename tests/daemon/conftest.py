"""Helpers for the daemon's tests: ``adecore-lsp daemon run`` as a user (or systemd) runs it.

Each daemon has a runtime folder of its own (short, under ``/tmp``: a socket's path is at
most 107 bytes), and every command a test runs through it carries that folder in
``ADECORE_LSP_RUNTIME_DIR``. A daemon is stopped at the end of its test, and the test fails
when its process or any server it held is still alive then.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Ran, run, tool_env

START_WAIT = 30.0
"""Seconds a daemon may take to accept commands here (a loaded machine)."""


def short_folder() -> Path:
    """A new folder under ``/tmp`` with a short path (removed by the caller)."""
    return Path(tempfile.mkdtemp(prefix="adl-", dir="/tmp"))


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            state = file.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def watcher_of(daemon: int) -> int | None:
    """The pid of the watcher that daemon ``daemon`` started (while the daemon lives)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                command = file.read()
            with open(f"/proc/{entry}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        ours = b"adecore_lsp.daemon.watcher" in command and int(fields[1]) == daemon
        if ours and fields[0] not in (b"Z", b"X"):
            return int(entry)
    return None


def wait_until(condition: Any, timeout: float, what: str) -> None:
    """Poll ``condition()`` until true; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {timeout} s")
        time.sleep(0.05)


@dataclass
class Daemon:
    """A daemon's runtime folder, the commands run through it, and its process when the
    test started it in the foreground."""

    folder: Path
    process: subprocess.Popen[bytes] | None = None
    log: Path | None = None
    seen_pids: set[int] = field(default_factory=set)

    @property
    def env(self) -> dict[str, str]:
        return {"ADECORE_LSP_RUNTIME_DIR": str(self.folder)}

    def run(
        self,
        *args: str | os.PathLike[str],
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        mode: str = "on",
    ) -> Ran:
        """Run a command with ``--daemon MODE`` (``on`` by default) in this runtime folder."""
        return run("--daemon", mode, *args, cwd=cwd, env={**self.env, **(env or {})})

    def status(self) -> dict[str, Any]:
        ran = run("daemon", "status", "--format", "json", env=self.env)
        assert ran.status == 0, ran
        status: dict[str, Any] = json.loads(ran.out)
        for workspace in status["workspaces"]:
            self.seen_pids.update(s["pid"] for s in workspace["servers"] if s["pid"])
        if status["pid"]:
            self.seen_pids.add(status["pid"])
            watcher = watcher_of(status["pid"])
            if watcher is not None:
                self.seen_pids.add(watcher)  # it ends with the daemon too
        return status

    def server_pids(self) -> list[int]:
        return [
            server["pid"]
            for workspace in self.status()["workspaces"]
            for server in workspace["servers"]
            if server["pid"]
        ]


def start_foreground(folder: Path, *options: str, env: Mapping[str, str] | None = None) -> Daemon:
    """``daemon run OPTIONS`` as a child of the test, once it accepts commands."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    log = folder.parent / f"{folder.name}.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "adecore_lsp", "daemon", "run", *options],
            env=tool_env({"ADECORE_LSP_RUNTIME_DIR": str(folder), **(env or {})}),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )
    daemon = Daemon(folder, process, log)
    deadline = time.monotonic() + START_WAIT
    while not (folder / "daemon.sock").exists() or not daemon.status()["running"]:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the daemon did not start: {log.read_text(errors='replace')}")
        time.sleep(0.05)
    return daemon


def end(daemon: Daemon) -> None:
    """Stop the daemon (if it runs) and fail when it, or a server it held, lives on."""
    with contextlib.suppress(Exception):
        daemon.status()
    ran = run("daemon", "stop", env=daemon.env)
    assert ran.status == 0, ran
    if daemon.process is not None:
        try:
            daemon.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(daemon.process.pid, signal.SIGKILL)
            pytest.fail("the daemon did not exit after `daemon stop`")
    left = [pid for pid in daemon.seen_pids if alive(pid)]
    assert not left, f"processes left after `daemon stop`: {left}"


@pytest.fixture
def daemon_folder() -> Iterator[Path]:
    """A runtime folder of the test's own (not made yet)."""
    base = short_folder()
    try:
        yield base / "rt"
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def daemon(daemon_folder: Path) -> Iterator[Daemon]:
    """A daemon in the foreground, stopped after the test."""
    running = start_foreground(daemon_folder)
    try:
        yield running
    finally:
        end(running)
