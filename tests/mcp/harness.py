"""The MCP SDK's own client, driving ``adecore-lsp mcp`` as a host would, for sync tests.

:class:`Client` runs an ``mcp.ClientSession`` (over ``stdio_client``, which starts the server,
or over the streamable HTTP client) in a thread with an event loop of its own, so that one
session can serve a whole test module and each test calls tools with plain function calls.
The server runs as ``python -m adecore_lsp mcp`` once the command line has that command,
else as ``python -m adecore_lsp.mcp`` (the same entry, with its own small parser).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, TextIO, TypeVar, cast

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from pydantic import FileUrl

from adecore_lsp.cli.parser import build_parser

VENV_BIN = Path(sys.executable).parent
CALL_TIMEOUT = 60.0
"""The bound of one tool call as the tests wait for it, in seconds."""

T = TypeVar("T")
Streams = Any


def entry() -> list[str]:
    """How to start the MCP server: ``-m adecore_lsp mcp`` when the command line has ``mcp``."""
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction) and "mcp" in action.choices:
            return ["-m", "adecore_lsp", "mcp"]
    return ["-m", "adecore_lsp.mcp"]


def server_env() -> dict[str, str]:
    """The server's environment: this one (coverage's settings too, so that the server's
    process is measured), the test servers (the venv's scripts) first on PATH."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("NO_COLOR", "FORCE_COLOR", "PYTHONWARNINGS")
    }
    env["PATH"] = os.pathsep.join([str(VENV_BIN), os.environ.get("PATH", "")])
    return env


def server_argv(*args: str | os.PathLike[str]) -> list[str]:
    return [sys.executable, *entry(), *(os.fspath(arg) for arg in args)]


class Client:
    """One MCP client session in a thread of its own (see the module's docstring).

    ``roots`` are offered to the server through ``roots/list`` (none: no roots capability).
    """

    def __init__(
        self,
        connect: Callable[[], AbstractAsyncContextManager[Streams]],
        *,
        roots: Sequence[Path] | None = None,
    ) -> None:
        self._connect = connect
        self._roots = roots
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._failure: BaseException | None = None
        self.session: ClientSession | None = None
        self.initialized: types.InitializeResult | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(CALL_TIMEOUT):
            raise TimeoutError("the MCP server did not answer initialize")
        if self._failure is not None:
            raise self._failure

    @classmethod
    def stdio(
        cls,
        *args: str | os.PathLike[str],
        cwd: Path | None = None,
        errlog: TextIO | None = None,
        roots: Sequence[Path] | None = None,
    ) -> Client:
        """A client of a server it starts: ``adecore-lsp mcp *args`` on stdio."""
        argv = server_argv(*args)
        parameters = StdioServerParameters(
            command=argv[0], args=argv[1:], env=server_env(), cwd=cwd
        )

        def connect() -> AbstractAsyncContextManager[Streams]:
            if errlog is None:
                return stdio_client(parameters)
            return stdio_client(parameters, errlog=errlog)

        return cls(connect, roots=roots)

    @classmethod
    def http(cls, url: str) -> Client:
        """A client of a running streamable HTTP server at ``url``."""
        return cls(lambda: streamable_http_client(url))

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        except BaseException as error:
            self._failure = error
        finally:
            self._ready.set()
            self._loop.close()

    async def _list_roots(self, context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=FileUrl(root.as_uri())) for root in self._roots or ()]
        )

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        async with self._connect() as streams:
            read, write = streams[0], streams[1]
            callback = self._list_roots if self._roots is not None else None
            async with ClientSession(read, write, list_roots_callback=callback) as session:
                self.initialized = await session.initialize()
                self.session = session
                self._ready.set()
                await self._stop.wait()

    def _submit(self, work: Callable[[ClientSession], Awaitable[T]], timeout: float) -> T:
        session = self.session
        if session is None:
            raise RuntimeError("the client is closed")

        async def run() -> T:
            return await work(session)

        future = asyncio.run_coroutine_threadsafe(run(), self._loop)
        return future.result(timeout)

    def call(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        progress: list[tuple[float, float | None, str | None]] | None = None,
        timeout: float = CALL_TIMEOUT,
    ) -> types.CallToolResult:
        """Call a tool; with ``progress``, ask for progress notifications and collect them."""

        collected = progress

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if collected is not None:
                collected.append((progress, total, message))

        callback = on_progress if progress is not None else None
        return self._submit(
            lambda session: session.call_tool(name, arguments or {}, progress_callback=callback),
            timeout,
        )

    def call_cancelled(self, name: str, arguments: dict[str, Any], after: float) -> None:
        """Call a tool and give up after ``after`` seconds: the client cancels the request."""

        async def work(session: ClientSession) -> None:
            with anyio.move_on_after(after):
                await session.call_tool(name, arguments)
                raise AssertionError(f"{name} answered within {after} s")

        self._submit(work, CALL_TIMEOUT)

    def list_tools(self) -> types.ListToolsResult:
        return self._submit(lambda session: session.list_tools(), CALL_TIMEOUT)

    def close(self) -> None:
        """End the session: the client closes the server's stdin (or its HTTP session)."""
        stop = self._stop
        if stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(stop.set)
        self._thread.join(CALL_TIMEOUT)
        self.session = None


def text(result: types.CallToolResult) -> str:
    """The text content of a tool's result."""
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def structured(result: types.CallToolResult) -> dict[str, Any]:
    """The structured content of a result that is not an error."""
    assert not result.is_error, text(result)
    assert result.structured_content is not None, text(result)
    return cast(dict[str, Any], result.structured_content)


# -- HTTP servers and processes ----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Wait until something listens on ``port`` (failing if ``process`` ends first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the MCP server exited with status {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")


def children(pid: int) -> list[tuple[int, str]]:
    """The live child processes of ``pid`` (Linux ``/proc``): each pid and command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append((int(entry.name), command.strip()))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (not a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()
