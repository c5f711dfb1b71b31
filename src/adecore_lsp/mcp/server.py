"""The MCP server of ``adecore-lsp mcp``, on the official SDK's ``MCPServer``.

One :class:`~.state.State` (and so one ``Workspace``) lives for the server's life: the SDK's
lifespan makes it and, when it ends, shuts every language server down. On stdio that is when
the client closes stdin (or sends SIGTERM); with ``--http`` several clients share it until
the HTTP server stops. While serving stdio the SDK points fd 1 at stderr, so nothing but MCP
reaches stdout, whatever a library or a child process prints; logs go to stderr.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Literal, cast

from mcp.server.mcpserver import MCPServer

from .._version import __version__
from . import tools
from .arguments import StrictServer
from .http_guard import HttpGuard, allowed_names, is_loopback
from .state import Options, State

# Internal to the library: nothing here is public API.
__all__: list[str] = []

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def instructions(options: Options, notice: str | None = None) -> str:
    """What the server tells the model at the start: the root, the servers, the units, and
    what an untrusted root's configuration named that is ignored (``notice``)."""
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
            "bare `Name` / `Class/method`; a name is safer than a column. In a notebook a "
            "position names its cell (`nb.ipynb:cell 3:2:5`), and places and diagnostics in "
            "notebooks carry `cell`, their line and column within that cell.",
            "Answers reflect the files as they are on disk now. One that is not whole says so "
            "(`complete: false` and a reason, also in words): ask again rather than read it as "
            "clean.",
            "`rename` only previews; `apply_rename` writes the files. `edit` writes unless "
            "given `write: false`; `format` and `fix` only preview unless given `write: true`. "
            "Each write says which diagnostics it introduced and resolved.",
            *([notice] if notice else []),
        ]
    )


def untrusted_notice(options: Options) -> str | None:
    """What the root known at the start (``--root``, else the current folder) would ignore
    for want of trust: said in the instructions, once."""
    from ..workspace.workspace import Workspace

    said: list[str] = []
    try:
        Workspace(
            options.root or Path.cwd(),
            servers=options.servers,
            trust=options.trust,
            on_untrusted=said.append,
        )
    except (ValueError, OSError):
        return None  # the first call says what is wrong
    return said[0] if said else None


def build(options: Options, states: list[State] | None = None) -> MCPServer[State]:
    """The MCP server with its tools, each refusing arguments it does not take; its lifespan
    holds the one :class:`State` (added to ``states`` when given, so that a signal can end
    its servers)."""

    @asynccontextmanager
    async def lifespan(app: MCPServer[State]) -> AsyncIterator[State]:
        state = State(options)
        if states is not None:
            states.append(state)
        try:
            yield state
        finally:
            await state.aclose()

    app: MCPServer[State] = StrictServer(
        "adecore-lsp",
        title="adecore-lsp",
        description="Language servers for coding agents: diagnostics known final, names "
        "instead of columns, previews before writes.",
        instructions=instructions(options, untrusted_notice(options)),
        version=__version__,
        lifespan=lifespan,
        log_level=cast(LogLevel, options.log_level),
    )
    tools.register(app)
    return app


TERMINATE_WAIT = 1.0
"""Seconds the stdio server may take to end by itself after SIGTERM before it is ended."""


async def serve(options: Options) -> None:
    """Serve on stdio, or on streamable HTTP at ``options.http``, until the end."""
    states: list[State] = []
    app = build(options, states)
    if options.http is not None:
        await _serve_http(app, options)
        return
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    ending: list[asyncio.Task[None]] = []

    def terminate() -> None:
        if task is not None and not ending:
            ending.append(loop.create_task(_terminate(task, states)))

    # SIGTERM (a host closing us, with stdin still open) ends every language server and
    # then the process: the SDK's stdin reader sits in a thread that cancelling cannot stop.
    with suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGTERM, terminate)
    try:
        await app.run_stdio_async()
    finally:
        with suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signal.SIGTERM)


async def _terminate(task: asyncio.Task[object], states: list[State]) -> None:
    task.cancel()
    await asyncio.wait([task], timeout=TERMINATE_WAIT)
    if task.done():
        return
    for state in states:
        await state.aclose()
    sys.stderr.flush()
    os._exit(0)


async def _serve_http(app: MCPServer[State], options: Options) -> None:
    """Streamable HTTP behind the ``Host``/``Origin`` checks (and a token off loopback)."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    assert options.http is not None
    host, port = options.http
    remote = not is_loopback(host)
    token = None
    if remote:
        token = os.environ.get("ADECORE_LSP_MCP_TOKEN") or secrets.token_urlsafe(32)
        if not os.environ.get("ADECORE_LSP_MCP_TOKEN"):
            sys.stderr.write(f"adecore-lsp mcp: bearer token: {token}\n")
    starlette_app = app.streamable_http_app(
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        host=host,
    )
    guarded = HttpGuard(starlette_app, allowed_names(host, remote, options.allowed_hosts), token)
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(f"adecore-lsp mcp: serving streamable HTTP at http://{shown}:{port}/mcp\n")
    sys.stderr.flush()
    config = uvicorn.Config(guarded, host=host, port=port, log_level=options.log_level.lower())
    # uvicorn owns SIGINT and SIGTERM here: it stops serving, then the lifespan ends.
    await uvicorn.Server(config).serve()
