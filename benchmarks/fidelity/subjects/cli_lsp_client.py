"""cli-lsp-client 1.24.0 (npm ``cli-lsp-client-linux-x64``, a Bun-compiled CLI with a daemon
per working directory), driven by its command line from the tree's root.

What it does here (measured on click 8.1.7 and a small TypeScript tree, 2 shared cores):

- It takes the given server: a ``--config-file`` whose ``servers`` entry overrides the
  built-in one by id (``pyright`` for .py, ``typescript`` for .ts) with the given command
  line; ``updateBehavior: off``. Built-ins cannot be turned off: on the TypeScript tree it also
  started its json server, which ``bun add``-ed vscode-langservers-extracted from the npm
  registry into ~/.lsp-cli-client/packages on first use.
- Diagnostics only: ``diagnostics FILE`` opens the file, waits up to 3 s for a push (or pulls),
  prints ``[source] ERROR at line L, column C: message`` lines (1-based, coloured) on stderr
  and exits 2, or prints nothing and exits 0. Hover is its only other question: no references,
  no rename, no edit.
- Start 0.2-0.3 s (``start`` returns before the servers are up). basedpyright: the first call
  on a file took 1.3 s and named its errors; every later call on that file, changed on disk or
  not, waited 3 s and printed nothing (basedpyright does not push again for the reopened file;
  "assuming valid file" is only in the daemon's log). TypeScript: a clean file 3.4 s (no
  push), the broken one 0.5 s with its error, each time. ``stop`` 2.2 s.
- The daemon keeps its socket, pid file and log in ``$TMPDIR`` (hashed from the working
  directory); the adapter gives it a folder of its own and stops it with ``stop``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import tempfile
from pathlib import Path

from fidelity import peers
from fidelity.subject import (
    NoAnswer,
    NotSupported,
    Question,
    Reply,
    Server,
    Subject,
    SubjectFailed,
    import_cycle,
)
from fidelity.subjects.mcp_client import descendants

PACKAGE = "cli-lsp-client-linux-x64@1.24.0"
TIMEOUT = 90.0
LINE = re.compile(r"^\[[^\]]*\] (ERROR|WARNING|INFO|HINT|UNKNOWN) at line (\d+), column (\d+): ")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
BUILT_IN = {
    "python": ("pyright", [".py", ".pyi"], ["pyproject.toml", "setup.py", "setup.cfg",
               "requirements.txt", "Pipfile", "pyrightconfig.json"]),
    "typescript": ("typescript", [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"],
                   ["tsconfig.json", "package.json", "jsconfig.json"]),
}  # fmt: skip
"""The built-in server entries (id, extensions, root patterns) the configuration overrides."""


HEDGE = re.compile(r"incomplete|partial|stale|may be|might|timed? ?out|not ready|truncat", re.I)


def errors_of(path: str, text: str) -> set[tuple[str, int, int]]:
    """The ERROR lines of ``diagnostics``'s output as 0-based (path, line, column), import
    cycles left out (as on the truth's side)."""
    found: set[tuple[str, int, int]] = set()
    for line in ANSI.sub("", text).splitlines():
        match = LINE.match(line)
        if match and match.group(1) == "ERROR" and not import_cycle(message=line[match.end() :]):
            found.add((path, int(match.group(2)) - 1, int(match.group(3)) - 1))
    return found


def hedges_of(text: str) -> list[str]:
    """The output's lines before its first finding that hedge (what follows a finding may be
    that finding's message, "partially unknown" types included: never read as a hedge)."""
    said = []
    for line in ANSI.sub("", text).splitlines():
        if LINE.match(line):
            break
        if HEDGE.search(line):
            said.append(line.strip()[:200])
    return said


class CliLspClient(Subject):
    """The ``cli-lsp-client`` command: diagnostics through its daemon."""

    name = "cli-lsp-client"

    def __init__(self) -> None:
        self.note = ""
        self.root = Path()
        self.binary: Path | None = None
        self.work: Path | None = None

    def _install(self) -> Path:
        try:
            modules = peers.npm("cli-lsp-client", PACKAGE)
        except peers.InstallFailed as error:
            raise SubjectFailed(f"not run: {error}") from error
        return modules / "cli-lsp-client-linux-x64" / "bin" / "cli-lsp-client"

    async def _run(self, *args: str, timeout: float = TIMEOUT) -> tuple[int, str, str]:
        """Run the command from the root with its own config and temp folder."""
        if self.binary is None or self.work is None:
            raise SubjectFailed("not started")
        argv = [str(self.binary), "--config-file", str(self.work / "config.json"), *args]
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=self.root, env={**os.environ, "TMPDIR": str(self.work)},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            out, err = await asyncio.wait_for(process.communicate(), timeout)
        except asyncio.TimeoutError as error:
            process.kill()
            await process.wait()
            raise NoAnswer(f"{args[0]}: no answer in {timeout:.0f} s") from error
        code = process.returncode if process.returncode is not None else -1
        return code, out.decode(errors="replace"), err.decode(errors="replace")

    async def start(self, root: Path, server: Server) -> None:
        """Install the CLI if needed, write its configuration, and ``start`` the daemon."""
        self.root = root
        self.binary = await asyncio.to_thread(self._install)
        self.work = Path(tempfile.mkdtemp(prefix="fidelity-cli-lsp-client-"))
        server_id, extensions, patterns = BUILT_IN.get(server.language, BUILT_IN["python"])
        entry = {"id": server_id, "extensions": extensions, "rootPatterns": patterns,
                 "command": list(server.argv)}  # fmt: skip
        config = {"servers": [entry], "updateBehavior": "off"}
        (self.work / "config.json").write_text(json.dumps(config), encoding="utf-8")
        code, out, err = await self._run("start", str(root))
        if code != 0:
            await self.stop()
            raise SubjectFailed(f"not run: start exited {code}: {(err or out).strip()[:500]}")
        self.note = out.strip()

    async def references(self, question: Question) -> Reply:
        """cli-lsp-client has no references command."""
        raise NotSupported("cli-lsp-client has no references (only diagnostics and hover)")

    async def diagnostics(self, paths: list[str]) -> Reply:
        """``diagnostics FILE`` for each file in turn; its ERROR lines."""
        errors: set[tuple[str, int, int]] = set()
        hedges: list[str] = []
        size = 0
        for path in paths:
            code, out, err = await self._run("diagnostics", path)
            size += len(out.encode()) + len(err.encode())
            if code not in (0, 2):
                raise SubjectFailed(
                    f"diagnostics {path}: exit {code}: {(err or out).strip()[:500]}"
                )
            errors |= errors_of(path, err + "\n" + out)
            hedges += hedges_of(err) + hedges_of(out)
        return Reply(errors=frozenset(errors), hedged=" / ".join(hedges) or None, size=size)

    def _daemon(self) -> int | None:
        """The daemon's pid, from its pid file in the adapter's temp folder."""
        if self.work is None:
            return None
        for pidfile in self.work.glob("cli-lsp-client-*.pid"):
            with contextlib.suppress(OSError, ValueError):
                pid = int(pidfile.read_text().strip())
                os.kill(pid, 0)
                return pid
        return None

    def pids(self) -> list[int]:
        """The daemon (the language servers are its children)."""
        pid = self._daemon()
        return [pid] if pid is not None else []

    async def stop(self) -> None:
        """``stop`` the daemon, then kill whatever of it and its servers is left."""
        pid = self._daemon()
        left = descendants(pid) if pid is not None else []
        if pid is not None:
            with contextlib.suppress(SubjectFailed, NoAnswer):
                await self._run("stop", timeout=15)
            for _ in range(50):
                if self._daemon() is None:
                    break
                await asyncio.sleep(0.1)
        for victim in ([pid] if pid is not None else []) + left:
            with contextlib.suppress(OSError):
                os.kill(victim, signal.SIGKILL)
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None

    async def version(self) -> str:
        """The CLI's own ``--version``."""
        binary = self.binary or await asyncio.to_thread(self._install)
        process = await asyncio.create_subprocess_exec(
            str(binary), "--version", stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        try:
            out, _ = await asyncio.wait_for(process.communicate(), 30)
        except asyncio.TimeoutError:
            process.kill()
            return "unknown"
        return out.decode().strip() or "unknown"
