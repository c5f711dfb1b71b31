"""The negative controls, part of every run: subjects that know nothing, so that a question
they score right on is a question the benchmark gives away.

- ``control-empty`` answers nothing (no places, no errors) and edits nothing while saying it
  did: every answer presented as right.
- ``control-honest`` says "incomplete" to every question and refuses every edit.

Each must score 0 right. Each holds a process of its own with the language server below it
(started, never spoken to), started as ``python -c HOLD SERVER-ARGV...``: its own arguments
name the server, as agent-lsp's do, so "a server that dies" is asked of it too and the kill
must leave the holder alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

from fidelity import processes
from fidelity.subject import Question, Reply, Server, Subject, SubjectFailed

HOLD = "import subprocess, sys; subprocess.call(sys.argv[1:]); sys.stdin.read()"
"""The holder: runs the server as its child, then lives on until its own stdin closes."""


class ControlEmpty(Subject):
    """Answers nothing, edits nothing, and says each is done."""

    name = "control-empty"
    note = "a negative control: answers nothing and edits nothing; it must score 0 right"

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None

    async def start(self, root: Path, server: Server) -> None:
        """Start the holder with the server below it."""
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            HOLD,
            *server.argv,
            cwd=root,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
        for _ in range(200):
            if processes.servers_below([self.process.pid], server):
                return
            await asyncio.sleep(0.05)
        raise SubjectFailed(f"not run: {server.argv[0]} did not start below the holder")

    async def references(self, question: Question) -> Reply:
        """No place."""
        return Reply(places=frozenset())

    async def diagnostics(self, paths: list[str]) -> Reply:
        """No error."""
        return Reply(errors=frozenset())

    async def edit(self, path: str, old: str, new: str) -> Reply:
        """Says it edited; writes nothing."""
        return Reply()

    async def rename(self, question: Question, new_name: str) -> Reply:
        """Says it renamed; writes nothing."""
        return Reply()

    def pids(self) -> list[int]:
        """The holder."""
        return [self.process.pid] if self.process is not None else []

    async def stop(self) -> None:
        """End the holder and the server below it."""
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), 10)

    async def version(self) -> str:
        """The harness's own."""
        return "-"


class ControlHonest(ControlEmpty):
    """Says "incomplete" to every question and refuses every edit."""

    name = "control-honest"
    note = "a negative control: says incomplete to everything, edits nothing; 0 right"
    said = "incomplete: a negative control knows nothing"

    async def references(self, question: Question) -> Reply:
        """No place, flagged incomplete."""
        return Reply(places=frozenset(), flagged=self.said)

    async def diagnostics(self, paths: list[str]) -> Reply:
        """No error, flagged incomplete."""
        return Reply(errors=frozenset(), flagged=self.said)

    async def edit(self, path: str, old: str, new: str) -> Reply:
        """Refused."""
        raise SubjectFailed("refused: a negative control edits nothing")

    async def rename(self, question: Question, new_name: str) -> Reply:
        """Refused."""
        raise SubjectFailed("refused: a negative control renames nothing")
