"""Drive an MCP server on stdio with the ``mcp`` SDK, for every subject that is an MCP server
(this project's and the peers'): one task owns the session (the SDK's scopes must be entered
and left in one task), calls come from any task, every wait is bounded, and ``close`` leaves no
process of the server behind. An answer's size is its text blocks' bytes, or its structured
content's when it has no text: what a host hands the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import TextContent

from fidelity.subject import NoAnswer, SubjectFailed


@dataclass(frozen=True)
class Answer:
    """A tool's result: its text (the text blocks joined), its structured content, its size."""

    text: str
    structured: Any
    size: int


class McpServer:
    """One MCP server process on stdio and the session with it."""

    def __init__(
        self, argv: list[str], cwd: Path, log: Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        self.argv = argv
        self.cwd = cwd
        self.owned_log = log is None
        self.log = log or Path(tempfile.mkstemp(prefix="fidelity-mcp-", suffix=".log")[1])
        self.env = env
        self.pid = 0
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def open(self, timeout: float) -> None:
        """Start the server and finish the handshake, or raise SubjectFailed within ``timeout``."""
        pidfile = self.log.with_suffix(".pid")
        pidfile.unlink(missing_ok=True)
        # The shell writes its pid and execs the server: the pid is the server's (and, as the SDK
        # starts it in a session of its own, its process group's).
        params = StdioServerParameters(
            command="/bin/sh",
            args=["-c", 'echo $$ > "$0"; exec "$@"', str(pidfile), *self.argv],
            cwd=str(self.cwd),
            env={**os.environ, **(self.env or {})},
        )
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._own(params, ready))
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except (asyncio.TimeoutError, Exception) as error:
            await self.close()
            timed_out = isinstance(error, asyncio.TimeoutError)
            what = f"no handshake in {timeout:.0f} s" if timed_out else str(error)
            raise SubjectFailed(f"not run: {what}; stderr: {self.stderr_tail()}") from error
        with contextlib.suppress(OSError, ValueError):
            self.pid = int(pidfile.read_text().strip())

    async def _own(self, params: StdioServerParameters, ready: asyncio.Future[None]) -> None:
        try:
            with self.log.open("w", encoding="utf-8") as errlog:
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    self._client = client
                    ready.set_result(None)
                    await self._stopping.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError(error))
            if not isinstance(error, Exception):
                raise
        finally:
            self._client = None

    async def tools(self) -> list[str]:
        """The names of the tools the server lists."""
        return list(await self.schemas())

    async def schemas(self) -> dict[str, Any]:
        """Each tool's input schema, by name."""
        if self._client is None:
            raise SubjectFailed("the MCP session is closed")
        return {tool.name: tool.input_schema for tool in (await self._client.list_tools()).tools}

    async def call(self, tool: str, arguments: Mapping[str, Any], timeout: float) -> Answer:
        """Call ``tool``; raise SubjectFailed on an error result, a closed session or a timeout."""
        if self._client is None:
            raise SubjectFailed(f"{tool}: the MCP session is closed")
        try:
            result = await asyncio.wait_for(self._client.call_tool(tool, dict(arguments)), timeout)
        except asyncio.TimeoutError as error:
            raise NoAnswer(f"{tool}: no answer in {timeout:.0f} s") from error
        except Exception as error:
            raise SubjectFailed(f"{tool}: {type(error).__name__}: {error}") from error
        text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))
        # The text blocks, or the structured content when there is no text (serena sends both,
        # the structured content wrapping the same text).
        size = len(text.encode())
        if not text and result.structured_content is not None:
            size = len(json.dumps(result.structured_content).encode())
        if result.is_error:
            raise SubjectFailed(f"{tool}: {text[:500]}")
        return Answer(text, result.structured_content, size)

    def stderr_tail(self, lines: int = 4) -> str:
        """The last lines the server wrote to stderr."""
        try:
            tail = self.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " / ".join(tail[-lines:])

    async def close(self) -> None:
        """End the session, then kill whatever is left of the server and its descendants."""
        left = descendants(self.pid) if self.pid else []
        self._stopping.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, 15)
            except (asyncio.TimeoutError, Exception):
                self._task.cancel()
        if self.pid:
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for _ in range(50):
            if not any(_alive(pid) for pid in [self.pid, *left] if pid):
                break
            await asyncio.sleep(0.1)
        if self.owned_log:
            self.log.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def descendants(root: int) -> list[int]:
    """The pids of every process below ``root`` (from /proc), children first."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found
