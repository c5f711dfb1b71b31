"""This project's command line as two subjects: ``adecore-lsp-cli`` (``--daemon on``, the daemon
started by ``start``, keeping the language server warm for the calls after the first) and
``adecore-lsp-cli-cold`` (``--daemon off``: one fresh process, and server, per call).

Each warm subject has a daemon of its own: ``ADECORE_LSP_RUNTIME_DIR`` is a folder named after
the root, so ``daemon stop`` stops this subject's daemon and no other run's, and ``start`` can
stop one an earlier run left behind for the same root. No ``--trust``: the servers are the
project's own installs, outside the tree, and the registry finds them on ``PATH`` (the folder of
the harness's executable goes first), so nothing of the stranger's tree has to be run.

The helpers that say how adecore-lsp is given its server and a target are shared with the MCP
adapter (:mod:`fidelity.subjects.adecore_mcp`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

from fidelity.subject import (
    Error,
    NoAnswer,
    Question,
    Reply,
    Server,
    Subject,
    SubjectFailed,
    import_cycle,
)

REPO = Path(__file__).resolve().parents[3]
EXECUTABLE = str(REPO / ".venv" / "bin" / "adecore-lsp")
TIMEOUT = 60
"""adecore-lsp's own bound of every wait (``--timeout``)."""
CALL_LIMIT = 300.0
"""The adapter's bound of one call, well above adecore-lsp's own: a call past it is a failure."""


def executable() -> str:
    """The project's own ``adecore-lsp`` (its ``.venv``), else the one on ``PATH``."""
    if os.access(EXECUTABLE, os.X_OK):
        return EXECUTABLE
    return shutil.which("adecore-lsp") or EXECUTABLE


def server_options(server: Server) -> list[str]:
    """``--server ID`` for a registry server, ``--command ARGV`` for any other, and the bound."""
    if server.id == "scripted":
        chosen = ["--command", shlex.join(server.argv)]
    else:
        chosen = ["--server", server.id]
    return [*chosen, "--timeout", str(TIMEOUT)]


def environment(server: Server | None, runtime: Path | None = None) -> dict[str, str]:
    """This process's environment with the server's folder first on ``PATH`` (so the registry
    picks the very executable the harness names) and, for the warm subject, its daemon's
    folder."""
    env = dict(os.environ)
    env.pop("ADECORE_LSP_DAEMON", None)
    folder = os.path.dirname(server.argv[0]) if server and server.argv else ""
    if folder and server and server.id != "scripted":
        env["PATH"] = os.pathsep.join([folder, env.get("PATH", os.defpath)])
    if runtime is not None:
        env["ADECORE_LSP_RUNTIME_DIR"] = str(runtime)
    return env


def target(question: Question) -> str:
    """The question's position as adecore-lsp's target: ``path:LINE:COL``, 1-based."""
    return f"{question.path}:{question.line + 1}:{question.column + 1}"


def incomplete(data: dict[str, Any]) -> str | None:
    """An answer's own ``complete: false``, with its reason quoted; None when it is whole."""
    if data.get("complete") is False:
        return f"complete: false, reason: {data.get('reason')!r}"
    return None


def errors_of(items: list[dict[str, Any]]) -> frozenset[Error]:
    """The error-severity diagnostics of ``items`` (1-based) as 0-based places, import
    cycles left out (as on the truth's side)."""
    return frozenset(
        (str(item["path"]), int(item["line"]) - 1, int(item["column"]) - 1)
        for item in items
        if item.get("severity") == "error"
        and not import_cycle(item.get("code"), item.get("message"))
    )


async def run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes, str]:
    """Run ``argv`` to its end: its exit status, stdout and stderr; SubjectFailed past
    :data:`CALL_LIMIT` (its process group killed; a daemon it started lives in a session of its
    own and is left to ``stop``)."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), CALL_LIMIT)
    except asyncio.TimeoutError as error:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        raise NoAnswer(f"{argv[1]}: no answer in {CALL_LIMIT:.0f} s") from error
    return process.returncode or 0, out, err.decode("utf-8", "replace")


async def installed_version() -> str:
    """``adecore-lsp --version``, its last word."""
    _, out, err = await run([executable(), "--version"], Path("/"), dict(os.environ))
    words = (out.decode() or err).split()
    return words[-1] if words else "unknown"


def command_line(pid: int) -> bytes:
    """Process ``pid``'s command line (empty once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def processes(roots: list[int]) -> list[int]:
    """``roots`` and every process below them (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(stat.parent.name))
    found, todo = list(roots), list(roots)
    while todo:
        below = children.get(todo.pop(), [])
        found += below
        todo += below
    return found


class AdecoreCli(Subject):
    """``adecore-lsp`` through the daemon: one command a call, the server kept warm."""

    name = "adecore-lsp-cli"
    daemon = "on"

    def __init__(self) -> None:
        self.root = Path()
        self.server: Server | None = None
        self.env: dict[str, str] = {}
        self.runtime: Path | None = None

    async def start(self, root: Path, server: Server) -> None:
        """Remember the root and the server; stop a daemon an earlier run left for this root and
        start this subject's own (its servers start with the first command that needs them), so
        that :meth:`pids` names it from the start."""
        self.root = root.resolve()
        self.server = server
        if self.daemon == "on":
            digest = hashlib.sha1(str(self.root).encode()).hexdigest()[:12]
            self.runtime = Path("/tmp") / f"adecore-fidelity-{digest}"
            await self._stop_daemon()
        self.env = environment(server, self.runtime)
        if self.daemon == "on":
            status, _, err = await run([executable(), "daemon", "start"], self.root, self.env)
            if status != 0:
                raise SubjectFailed(f"daemon start: exit {status}: {err.strip()[-800:]}")

    async def _call(self, *words: str) -> tuple[int, bytes, str]:
        if self.server is None:
            raise SubjectFailed("not started")
        argv = [executable(), *words, "--root", str(self.root)]
        argv += [*server_options(self.server), "--daemon", self.daemon, "--no-progress"]
        status, out, err = await run(argv, self.root, self.env)
        if status == 2:
            raise SubjectFailed(f"exit 2: {err.strip()[-800:]}")
        if status not in (0, 1, 3):
            raise SubjectFailed(f"exit {status}: {err.strip()[-800:]}")
        return status, out, err

    @staticmethod
    def _flag(status: int, err: str, data: Any) -> str | None:
        said = incomplete(data) if isinstance(data, dict) else None
        if status == 3:
            words = " / ".join(line for line in err.strip().splitlines()[-3:])
            return f"exit 3 (incomplete): {words}" + (f"; {said}" if said else "")
        return said

    @staticmethod
    def _json(out: bytes) -> Any:
        try:
            return json.loads(out)
        except ValueError as error:
            raise SubjectFailed(f"stdout is not JSON: {out[:200]!r}") from error

    async def references(self, question: Question) -> Reply:
        """``references TARGET --format json``: a JSON array of places; exit 3 is incomplete."""
        status, out, err = await self._call("references", target(question), "--format", "json")
        items = self._json(out)
        places = frozenset((str(i["path"]), int(i["line"]) - 1) for i in items)
        return Reply(places=places, flagged=self._flag(status, err, None), size=len(out))

    async def diagnostics(self, paths: list[str]) -> Reply:
        """``check PATHS --min-severity error --format json`` (exit 1 is findings, not failure)."""
        words = ["check", *paths, "--min-severity", "error", "--format", "json"]
        status, out, err = await self._call(*words)
        data = self._json(out)
        errors = errors_of(data.get("diagnostics", []))
        return Reply(errors=errors, flagged=self._flag(status, err, data), size=len(out))

    async def rename(self, question: Question, new_name: str) -> Reply:
        """``rename TARGET NEW --write --format json`` (exit 1: it introduced errors)."""
        words = ["rename", target(question), new_name, "--write", "--format", "json"]
        status, out, err = await self._call(*words)
        data = self._json(out)
        return Reply(flagged=self._flag(status, err, data), size=len(out))

    def _status(self) -> dict[str, Any]:
        if self.runtime is None:
            return {}
        with contextlib.suppress(OSError, subprocess.SubprocessError, ValueError):
            done = subprocess.run(
                [executable(), "daemon", "status", "--format", "json"],
                env=self.env or environment(None, self.runtime),
                capture_output=True,
                timeout=30,
                check=False,
            )
            data: dict[str, Any] = json.loads(done.stdout)
            return data
        return {}

    def pids(self) -> list[int]:
        """The daemon's pid while one runs for this root (its servers are its children)."""
        pid = self._status().get("pid")
        return [int(pid)] if pid else []

    async def _stop_daemon(self) -> None:
        """``daemon stop``, then SIGKILL whatever of the daemon and its servers outlived it."""
        if self.runtime is None or not self.runtime.exists():
            return
        before = {pid: command_line(pid) for pid in processes(self.pids())}
        env = self.env or environment(None, self.runtime)
        with contextlib.suppress(SubjectFailed, NoAnswer):
            await run([executable(), "daemon", "stop"], Path("/"), env)
        for pid, line in before.items():
            if line and command_line(pid) == line:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.runtime, ignore_errors=True)

    async def stop(self) -> None:
        """Stop this root's daemon and every server it holds (the cold subject has none)."""
        await self._stop_daemon()

    async def version(self) -> str:
        """The installed ``adecore-lsp``'s version."""
        return await installed_version()


class AdecoreCliCold(AdecoreCli):
    """``adecore-lsp --daemon off``: every call its own process and its own server."""

    name = "adecore-lsp-cli-cold"
    daemon = "off"

    def pids(self) -> list[int]:
        """No process lives between calls."""
        return []
