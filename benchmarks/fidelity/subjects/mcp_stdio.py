"""One MCP server on stdio, driven with the ``mcp`` SDK's ``Client``.

The SDK's scopes must be entered and left in one task, while the harness may start, ask and
stop from different ones: a task of its own owns the session, calls come from any task, every
wait is bounded, and ``close`` leaves no process of the server behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import TextContent

from fidelity.subject import SubjectFailed
from fidelity.subjects.adecore_cli import command_line, processes


@dataclass(frozen=True)
class Answer:
    """A tool's result: its structured content and its size (the text blocks and the
    structured content serialized, in bytes)."""

    structured: Any
    text: str
    size: int


class StdioSession:
    """The server ``argv`` run in ``cwd`` with ``env``, and the session with it."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.pid = 0
        self.log = Path(tempfile.mkstemp(prefix="adecore-mcp-", suffix=".log")[1])
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def open(self, timeout: float) -> None:
        """Start the server and finish the handshake; SubjectFailed when it does not."""
        pidfile = self.log.with_suffix(".pid")
        # The shell writes its pid and execs the server, so the pid is the server's.
        params = StdioServerParameters(
            command="/bin/sh",
            args=["-c", 'echo $$ > "$0"; exec "$@"', str(pidfile), *self.argv],
            cwd=str(self.cwd),
            env=self.env,
        )
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._own(params, ready))
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except Exception as error:
            said = self.tail()
            await self.close()
            raise SubjectFailed(f"no MCP session: {error!r}; stderr: {said}") from error
        with contextlib.suppress(OSError, ValueError):
            self.pid = int(pidfile.read_text().strip())
        pidfile.unlink(missing_ok=True)

    async def _own(self, params: StdioServerParameters, ready: asyncio.Future[None]) -> None:
        try:
            with self.log.open("w", encoding="utf-8") as errlog:
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    self._client = client
                    ready.set_result(None)
                    await self._stopping.wait()
        except Exception as error:
            if not ready.done():
                ready.set_exception(error)
        finally:
            self._client = None

    async def tools(self) -> dict[str, Any]:
        """Each tool's input schema, by name."""
        if self._client is None:
            raise SubjectFailed("the MCP session is closed")
        return {tool.name: tool.input_schema for tool in (await self._client.list_tools()).tools}

    async def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> Answer:
        """Call ``tool``; SubjectFailed on a tool error, a closed session or no answer."""
        if self._client is None:
            raise SubjectFailed(f"{tool}: the MCP session is closed; stderr: {self.tail()}")
        try:
            result = await asyncio.wait_for(self._client.call_tool(tool, arguments), timeout)
        except asyncio.TimeoutError as error:
            raise SubjectFailed(f"{tool}: no answer in {timeout:.0f} s") from error
        except Exception as error:
            raise SubjectFailed(f"{tool}: {type(error).__name__}: {error}") from error
        text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
        if result.is_error:
            raise SubjectFailed(f"{tool}: {text[:800]}")
        size = len(text.encode())
        if result.structured_content is not None:
            size += len(json.dumps(result.structured_content).encode())
        return Answer(result.structured_content, text, size)

    def tail(self, lines: int = 4) -> str:
        """The last lines the server wrote on stderr."""
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return " / ".join(text.strip().splitlines()[-lines:])

    async def close(self) -> None:
        """Close stdin (the server then shuts its language servers down) and wait; SIGKILL
        whatever of the server and its descendants outlives that."""
        before = {pid: command_line(pid) for pid in processes([self.pid])} if self.pid else {}
        self._stopping.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, 20)
            except Exception:
                self._task.cancel()
                with contextlib.suppress(BaseException):
                    await self._task
        for pid, line in before.items():
            if line and command_line(pid) == line:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        self.log.unlink(missing_ok=True)
