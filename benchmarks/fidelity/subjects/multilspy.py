"""multilspy 0.1.1 (PyPI, Microsoft's Python LSP client library), driven in its own venv by
``drivers/multilspy_driver.py``; :class:`Driver` is that JSON-lines link, shared with
``lsp_client.py``.

What it does here (measured on click 8.1.7 and a small TypeScript tree, 2 shared cores):

- Python: multilspy always starts jedi-language-server (0.41.3, a dependency of its own venv);
  ``server_binary`` is run with no arguments and ``start_server`` asserts jedi's exact
  completion capabilities, so basedpyright cannot be given. Nothing is downloaded. Its Python
  answers are scored against jedi-language-server's own settled truth (:meth:`own_server`),
  in a row of their own.
- TypeScript: ``server_binary`` takes the given typescript-language-server (run with
  ``--stdio``), so nothing is downloaded (without it multilspy would ``npm install``).
- references only (``includeDeclaration: false`` is sent, yet jedi and tsserver still name the
  definition at times). From ``echo``'s definition jedi named only the definition; from a use in
  core.py it named that file's uses and the definition, no other file. Start 0.9 s (Python),
  0.3 s (TypeScript); first call ~2 s, later ones 0.01-0.6 s.
- When the language server is killed, a call never returns (no timeout of its own; the adapter
  gives up after ``CALL_TIMEOUT``).
- No diagnostics (every multilspy server adapter drops ``publishDiagnostics``; the API has no
  diagnostics call), no rename, no edit that writes to disk (its insert/delete edit an
  in-memory buffer).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from pathlib import Path
from typing import Any

from fidelity import peers
from fidelity.subject import (
    NoAnswer,
    NotSupported,
    Question,
    Reply,
    Server,
    Subject,
    SubjectFailed,
)
from fidelity.subjects.mcp_client import descendants

DRIVERS = Path(__file__).resolve().parents[1] / "drivers"
JEDI = "jedi-language-server"
"""The server multilspy always runs for Python (a dependency of its own venv)."""
START_TIMEOUT = 180.0
CALL_TIMEOUT = 60.0


class Driver:
    """A driver script in a peer's venv: one JSON line per call, answers matched by ``id``."""

    def __init__(self, python: Path, script: Path, root: Path, log: Path) -> None:
        self.python = python
        self.script = script
        self.root = root
        self.log = log
        self.process: asyncio.subprocess.Process | None = None
        self.ready: dict[str, Any] = {}
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._next = 0
        self._reader: asyncio.Task[None] | None = None

    async def open(self, hello: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
        """Start the driver, send ``hello``, return its first line; SubjectFailed otherwise."""
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("wb") as errlog:
            self.process = await asyncio.create_subprocess_exec(
                str(self.python), str(self.script), cwd=self.root, env={**os.environ, **env},
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=errlog,
                start_new_session=True, limit=1 << 26,
            )  # fmt: skip
        first: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[-1] = first
        assert self.process.stdout is not None
        self._reader = asyncio.create_task(self._read(self.process.stdout))
        self._send(hello)
        try:
            self.ready = await asyncio.wait_for(first, START_TIMEOUT)
        except asyncio.TimeoutError as error:
            raise SubjectFailed(f"not run: no start in {START_TIMEOUT:.0f} s") from error
        if "error" in self.ready:
            raise SubjectFailed(f"not run: {self.ready['error']}; stderr: {self.stderr_tail()}")
        return self.ready

    def _send(self, message: dict[str, Any]) -> None:
        if self.process is None or self.process.stdin is None:
            raise SubjectFailed("the driver is not running")
        self.process.stdin.write((json.dumps(message) + "\n").encode())

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        while line := await stdout.readline():
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                future = self._pending.pop(message.get("id", -1), None)
                if future is not None and not future.done():
                    future.set_result(message)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(SubjectFailed(f"driver exited: {self.stderr_tail()}"))
        self._pending.clear()

    async def call(self, op: str, timeout: float = CALL_TIMEOUT, **args: Any) -> dict[str, Any]:
        """One call's answer (``result``, ``size``); SubjectFailed on an error or no answer."""
        self._next += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[self._next] = future
        self._send({"id": self._next, "op": op, **args})
        try:
            answer = await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError as error:
            self._pending.pop(self._next, None)
            raise NoAnswer(f"{op}: no answer in {timeout:.0f} s") from error
        if "error" in answer:
            raise SubjectFailed(f"{op}: {answer['error']}")
        if "unsupported" in answer:
            raise NotSupported(f"{op}: {answer['unsupported']}")
        return answer

    def stderr_tail(self, lines: int = 4) -> str:
        """The last lines the driver (and the library's logging) wrote to stderr."""
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return " / ".join(line[:300] for line in text.strip().splitlines()[-lines:])

    async def close(self) -> None:
        """Ask the driver to stop, then kill it and everything below it that is left."""
        process, self.process = self.process, None
        if process is None:
            return
        left = descendants(process.pid)
        with contextlib.suppress(OSError, RuntimeError):
            assert process.stdin is not None
            process.stdin.write(b'{"op": "stop"}\n')
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 15)
        except asyncio.TimeoutError:
            pass
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), 5)
        if self._reader is not None:
            self._reader.cancel()


def location_place(root: Path, location: dict[str, Any]) -> tuple[str, int]:
    """An LSP ``Location`` (a dict) as a place: its path relative to ``root`` and its line."""
    path = Path(location["uri"].removeprefix("file://"))
    with contextlib.suppress(ValueError):
        path = path.resolve().relative_to(root.resolve())
    return path.as_posix(), int(location["range"]["start"]["line"])


class Multilspy(Subject):
    """multilspy's ``LanguageServer``: references only."""

    name = "multilspy"

    def __init__(self) -> None:
        self.note = ""
        self.root = Path()
        self.driver: Driver | None = None

    def _python(self) -> Path:
        try:
            return peers.venv("multilspy", ["multilspy==0.1.1"])
        except peers.InstallFailed as error:
            raise SubjectFailed(f"not run: {error}") from error

    async def start(self, root: Path, server: Server) -> None:
        """Install multilspy's venv if needed and start its server on ``root``."""
        self.root = root
        python = await asyncio.to_thread(self._python)
        log = peers.PEERS / "multilspy" / "logs" / f"{root.name}.stderr"
        self.driver = Driver(python, DRIVERS / "multilspy_driver.py", root, log)
        # jedi-language-server is found on PATH, as multilspy expects it installed beside it.
        env = {"PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        hello = {"root": str(root), "language": server.language, "server_id": server.id,
                 "argv": list(server.argv)}  # fmt: skip
        try:
            ready = await self.driver.open(hello, env)
        except SubjectFailed:
            await self.stop()
            raise
        self.note = str(ready.get("note", ""))

    async def own_server(self, server: Server) -> Server | None:
        """For Python, the jedi-language-server of multilspy's own venv (it cannot be given
        another); for TypeScript, None: it runs the given server."""
        if server.language != "python":
            return None
        python = await asyncio.to_thread(self._python)
        return Server("jedi-language-server", "python", (str(python.parent / JEDI),))

    async def references(self, question: Question) -> Reply:
        """``request_references`` (it asks without the declaration)."""
        if self.driver is None:
            raise SubjectFailed("not started")
        answer = await self.driver.call(
            "references", path=question.path, line=question.line, column=question.column
        )
        places = frozenset(location_place(self.root, item) for item in answer["result"] or [])
        return Reply(places=places, size=int(answer["size"]))

    async def diagnostics(self, paths: list[str]) -> Reply:
        """multilspy has no diagnostics: its server adapters drop ``publishDiagnostics``."""
        raise NotSupported("multilspy has no diagnostics (publishDiagnostics is dropped)")

    def pids(self) -> list[int]:
        """The driver (multilspy starts the server in a session of its own, below it)."""
        process = self.driver.process if self.driver else None
        return [process.pid] if process is not None else []

    async def stop(self) -> None:
        """Stop the driver, the language server and anything else below it."""
        if self.driver is not None:
            await self.driver.close()

    async def version(self) -> str:
        """multilspy's version as installed (from the driver, or the pin)."""
        if self.driver is not None and self.driver.ready.get("version"):
            return str(self.driver.ready["version"])
        return "0.1.1"
