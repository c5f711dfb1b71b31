"""lsp-client 0.3.9 (PyPI, a typed LSP client library; Python 3.12+), driven in its own venv by
``drivers/lsp_client_driver.py`` through the same JSON-lines :class:`Driver` as multilspy.

What it does here (measured on click 8.1.7 and a small TypeScript tree, 2 shared cores):

- It takes the given server: its ready-made ``BasedpyrightClient`` / ``TypescriptClient`` on a
  ``LocalServer(program, args)`` of the given command line. Nothing is downloaded (it would
  only try ``npm -g`` / ``uv`` installs when the program is missing).
- references (``include_declaration=False``); rename for Python (``request_rename`` asks the
  server and writes the WorkspaceEdit to disk itself); ``TypescriptClient`` has no rename.
- Start 1.6 s (basedpyright), 1.0 s (TypeScript). Asked right after start, references came
  back short ([] from ``echo``'s definition in 2 s; tsserver named one file of three) and whole
  a few seconds later (0.02-1.3 s a call). basedpyright's rename edit of ``echo`` named only
  utils.py (also 5 s after start); lsp-client wrote it in 0.03 s.
- ``lsp-client-settled`` is the same client with a progress mixin (the library's own
  extension point): it says ``window.workDoneProgress`` and is asked only once every progress
  the server began has ended, as the truth waits.
- Every request is bounded by the library's ``request_timeout`` (10 s by default, kept). When
  the language server is killed, the next call fails at once (an ExceptionGroup ends the
  client and the driver).
- No diagnostics: the publishDiagnostics mixin only logs what the server pushes, and the
  pull mixin (``WithDocumentDiagnostic``) asserts ``diagnosticProvider`` at initialize, which
  basedpyright offers only to clients that register pull diagnostics dynamically (lsp-client
  does not; measured: AssertionError, the client fails to start); typescript-language-server
  5.3 has no pull diagnostics.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
from pathlib import Path

from fidelity import peers
from fidelity.subject import NotSupported, Question, Reply, Server, Subject, SubjectFailed
from fidelity.subjects.multilspy import DRIVERS, Driver, location_place

REQUIREMENTS = ["lsp-client==0.3.9"]


def python312() -> str:
    """A Python 3.12 or newer on this machine, as an absolute path (pyenv shims resolved)."""
    candidates = [shutil.which(f"python3.{minor}") for minor in (12, 13, 14)]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")))
    probe = "import sys; assert sys.version_info >= (3, 12); print(sys.executable)"
    for candidate in candidates:
        if candidate is None:
            continue
        try:
            done = subprocess.run(
                [candidate, "-c", probe], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    raise SubjectFailed("not run: no Python 3.12 or newer here (lsp-client refuses 3.11)")


class LspClient(Subject):
    """lsp-client's ready-made clients: references, and rename for Python; asked as soon as
    its context has opened."""

    name = "lsp-client"
    wait_progress = False

    def __init__(self) -> None:
        self.note = ""
        self.root = Path()
        self.language = ""
        self.driver: Driver | None = None

    def _python(self) -> Path:
        try:
            return peers.venv("lsp-client", REQUIREMENTS, python=python312())
        except peers.InstallFailed as error:
            raise SubjectFailed(f"not run: {error}") from error

    async def start(self, root: Path, server: Server) -> None:
        """Install lsp-client's venv if needed and enter its client on ``root``."""
        self.root = root
        self.language = server.language
        python = await asyncio.to_thread(self._python)
        log = peers.PEERS / "lsp-client" / "logs" / f"{root.name}.stderr"
        self.driver = Driver(python, DRIVERS / "lsp_client_driver.py", root, log)
        hello = {"root": str(root), "language": server.language, "server_id": server.id,
                 "argv": list(server.argv), "wait_progress": self.wait_progress}  # fmt: skip
        # No installs at run time: a missing server is an error, not an npm -g.
        env = {"LSP_CLIENT_DISABLE_AUTO_INSTALLATION": "true"}
        try:
            await self.driver.open(hello, env)
        except SubjectFailed:
            await self.stop()
            raise
        if self.wait_progress:
            self.note = (
                "waits for the server's progress to end before its first question, as the"
                " truth does (a progress mixin, the library's own extension point)"
            )

    async def references(self, question: Question) -> Reply:
        """``request_references(include_declaration=False)``."""
        if self.driver is None:
            raise SubjectFailed("not started")
        answer = await self.driver.call(
            "references", path=question.path, line=question.line, column=question.column
        )
        places = frozenset(location_place(self.root, item) for item in answer["result"] or [])
        return Reply(places=places, size=int(answer["size"]))

    async def diagnostics(self, paths: list[str]) -> Reply:
        """No way to read diagnostics from lsp-client with these servers (see the module)."""
        raise NotSupported(
            "lsp-client only logs pushed diagnostics; its pull mixin needs a static "
            "diagnosticProvider, which basedpyright and typescript-language-server do not give"
        )

    async def rename(self, question: Question, new_name: str) -> Reply:
        """``request_rename``: the library applies the server's edit to disk itself."""
        if self.driver is None:
            raise SubjectFailed("not started")
        if self.language == "typescript":
            raise NotSupported("lsp-client's TypescriptClient has no rename")
        answer = await self.driver.call(
            "rename", path=question.path, line=question.line, column=question.column,
            new_name=new_name,
        )  # fmt: skip
        if answer["result"] is not True:
            raise SubjectFailed(f"rename: request_rename returned {answer['result']!r}")
        return Reply(size=int(answer["size"]))

    def pids(self) -> list[int]:
        """The driver (the language server runs below it)."""
        process = self.driver.process if self.driver else None
        return [process.pid] if process is not None else []

    async def stop(self) -> None:
        """Stop the driver and the language server."""
        if self.driver is not None:
            await self.driver.close()

    async def version(self) -> str:
        """lsp-client's version as installed (from the driver, or the pin)."""
        if self.driver is not None and self.driver.ready.get("version"):
            return str(self.driver.ready["version"])
        return REQUIREMENTS[0].split("==")[1]


class LspClientSettled(LspClient):
    """The same clients, each with a progress mixin: started, then asked only once the
    server's progress has ended (2 s, then until every progress begun has ended)."""

    name = "lsp-client-settled"
    wait_progress = True
