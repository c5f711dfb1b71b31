"""The MCP server of ``adecore-lsp mcp``, on the official SDK's ``MCPServer``.

One :class:`~.state.State` (and so one ``Workspace``) lives for the server's life: the SDK's
lifespan makes it and, when it ends, shuts every language server down. On stdio that is when
the client closes stdin (or sends SIGTERM); with ``--http`` several clients share it until
the HTTP server stops. While serving stdio the SDK points fd 1 at stderr, so nothing but MCP
reaches stdout, whatever a library or a child process prints; logs go to stderr.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Literal, cast

from mcp.server.mcpserver import MCPServer

from .._version import __version__
from . import tools
from .state import Options, State

# Internal to the library: nothing here is public API.
__all__: list[str] = []

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def instructions(options: Options) -> str:
    """What the server tells the model at the start: the root, the servers, the units."""
    if options.root is not None:
        root = f"The workspace root is {options.root}."
    else:
        root = (
            "The workspace root is your first root (roots/list) if you offer one, else "
            "the folder the server was started in."
        )
    if options.servers:
        servers = "Language servers: " + ", ".join(options.servers) + "."
    else:
        servers = (
            "Language servers: the project's configured ones, else for each file the first "
            "installed server the registry knows for it."
        )
    return " ".join(
        [
            "adecore-lsp: language servers (type checkers, linters) for the code of one folder.",
            root,
            servers,
            "Paths are relative to the root (or absolute inside it). Lines and columns are "
            "1-based, columns counted in Unicode code points.",
            "A target is `path:LINE:COL`, `path:LINE`, `path#Name`, `path#Class/method` or a "
            "bare `Name` / `Class/method`; a name is safer than a column.",
            "Answers reflect the files as they are on disk now. One that is not whole says so "
            "(`complete: false` and a reason, also in words): ask again rather than read it as "
            "clean.",
            "`rename` only previews; `apply_rename` writes the files.",
        ]
    )


def build(options: Options) -> MCPServer[State]:
    """The MCP server with its tools; its lifespan holds the one :class:`State`."""

    @asynccontextmanager
    async def lifespan(app: MCPServer[State]) -> AsyncIterator[State]:
        state = State(options)
        try:
            yield state
        finally:
            await state.aclose()

    app: MCPServer[State] = MCPServer(
        "adecore-lsp",
        title="adecore-lsp",
        description="Language servers for coding agents: diagnostics known final, names "
        "instead of columns, previews before writes.",
        instructions=instructions(options),
        version=__version__,
        lifespan=lifespan,
        log_level=cast(LogLevel, options.log_level),
    )
    tools.register(app)
    return app


async def serve(options: Options) -> None:
    """Serve on stdio, or on streamable HTTP at ``options.http``, until the end."""
    app = build(options)
    if options.http is not None:
        host, port = options.http
        sys.stderr.write(f"adecore-lsp mcp: serving streamable HTTP at http://{host}:{port}/mcp\n")
        sys.stderr.flush()
        # uvicorn owns SIGINT and SIGTERM here: it stops serving, then the lifespan ends.
        await app.run_streamable_http_async(host=host, port=port)
        return
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if task is not None:
        # SIGTERM (a host closing us) ends the lifespan too, so the servers are shut down.
        with suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        await app.run_stdio_async()
    finally:
        with suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signal.SIGTERM)
