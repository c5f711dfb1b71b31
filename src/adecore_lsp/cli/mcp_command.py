"""``adecore-lsp mcp``: the workspace layer served to coding agents over MCP.

Stdio by default (a host starts it and speaks MCP on its stdin and stdout); ``--http
HOST:PORT`` serves streamable HTTP instead, several clients sharing one set of language
servers. The MCP SDK is an optional dependency (``pip install "adecore-lsp[mcp]"``): it is
imported here only once the command runs, so no other command pays for it, and without it
the command says how to install it and exits 2.

The SDK owns the event loop while it serves, so the entry is synchronous:
:func:`run_mcp` takes the parsed command line and returns the exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .status import FAILURE, INTERRUPTED

if TYPE_CHECKING:
    from ..mcp.state import Options

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

DEFAULT_TIMEOUT = 30.0
"""``--timeout`` of ``mcp`` unless given: below the tool timeouts of the usual hosts."""

INSTALL = 'pip install "adecore-lsp[mcp]"'


def run_mcp(args: argparse.Namespace) -> int:
    """Serve MCP until the client goes away; the exit status (2: a usage error or no SDK)."""
    try:
        import mcp.server.mcpserver  # noqa: F401  (the 2.x SDK; 1.x lacks it)
    except ImportError:
        _error(f"the MCP server needs the MCP SDK (mcp 2.x): {INSTALL}")
        return FAILURE
    try:
        options = options_from(args)
    except ValueError as error:
        _error(str(error))
        return FAILURE
    from ..errors import LspError
    from ..mcp.server import serve

    try:
        asyncio.run(serve(options))
    except KeyboardInterrupt:
        return INTERRUPTED
    except asyncio.CancelledError:  # SIGTERM: the servers were shut down on the way out
        return 0
    except (LspError, OSError) as error:
        _error(error.message if isinstance(error, LspError) else str(error))
        return FAILURE
    return 0


def _error(text: str) -> None:
    sys.stderr.write(f"adecore-lsp: error: {text}\n")
    sys.stderr.flush()


def options_from(args: argparse.Namespace) -> Options:
    """The server's options from the command line (``--root``, ``--server``, ``--timeout``,
    ``--trace``, ``--http``, ``--debug``, ``--quiet``).

    Raises:
        ValueError: a root that is not a folder, an unknown server, a bad ``--http``,
            ``--command`` or ``--replay`` (the other commands' options).
    """
    import os

    from ..mcp.state import Options
    from .executor import with_own_scripts

    # Servers installed beside the tool are found also when its environment is not active.
    os.environ["PATH"] = with_own_scripts(os.environ)["PATH"]
    if getattr(args, "replay", None):
        raise ValueError("mcp serves live servers; --replay is for the other commands")
    if getattr(args, "command", None):
        raise ValueError(
            "mcp takes servers by id: declare yours in the project's adecore-lsp.toml "
            "([server.ID] with command and languages) and pass --server ID"
        )
    root = None
    if getattr(args, "root", None):
        root = Path(args.root).expanduser()
        if not root.is_dir():
            raise ValueError(f"--root {args.root}: not a folder")
        root = root.resolve()
    servers: list[str] | None = list(args.servers) if getattr(args, "servers", None) else None
    if servers and root is not None:
        # Fail at the start on an unknown id; the project's own servers count.
        from ..workspace.servers.registry import Registry

        registry, _chosen = Registry.default().for_project(root)
        for server in servers:
            registry.get(server)
    level = "DEBUG" if getattr(args, "debug", False) else "WARNING"
    if getattr(args, "quiet", False):
        level = "ERROR"
    timeout = getattr(args, "timeout", None)
    http = parse_http(args.http) if getattr(args, "http", None) else None
    remote = bool(getattr(args, "allow_remote", False))
    if http is not None and not remote:
        from ..mcp.http_guard import is_loopback

        if not is_loopback(http[0]):
            raise ValueError(
                f"--http {args.http}: {http[0]} is not a loopback address, so anyone on the "
                "network could reach the workspace; bind 127.0.0.1, or add --allow-remote "
                "(a bearer token is then required)"
            )
    return Options(
        root=root,
        servers=servers,
        timeout=float(timeout) if timeout else DEFAULT_TIMEOUT,
        trace=getattr(args, "trace", None),
        http=http,
        log_level=level,
        trust=True if getattr(args, "trust", False) else None,
        allow_remote=remote,
        allowed_hosts=tuple(getattr(args, "allowed_hosts", None) or ()),
    )


def parse_http(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a host and a port.

    Raises:
        ValueError: anything else, saying what is wanted.
    """
    host, colon, port = text.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http {text}: give HOST:PORT, such as 127.0.0.1:8765")
    return host, int(port)
