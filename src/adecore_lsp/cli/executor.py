"""The command executor: one command, from its parsed arguments to its exit status.

It takes what a command needs from whoever runs it: the caller's current folder, its whole
environment, where stdout and stderr go, and where workspaces come from. The command line
runs it in the caller's own process (:mod:`.local`: a workspace made and shut down for the
command); the daemon runs the very same code for a caller elsewhere (its workspaces kept
warm between commands). Every failure becomes one message on stderr and an exit status (2,
or 3 when an answer is incomplete); a Python traceback is shown only with ``--debug``.
"""

from __future__ import annotations

import argparse
import os
import traceback
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..environment import using
from ..errors import LspError
from .output import Output
from .status import FAILURE, INCOMPLETE

if TYPE_CHECKING:
    from ..workspace.servers.registry import Registry, ServerSpec
    from ..workspace.workspace import Workspace

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


@dataclass(frozen=True)
class Invocation:
    """Where one command runs: the caller's folder and environment, and its output."""

    cwd: Path
    env: Mapping[str, str]
    out: TextIO
    err: TextIO


@dataclass(frozen=True)
class WorkspaceRequest:
    """The workspace a command needs: what a ``Workspace`` is made of."""

    root: Path
    servers: list[str | ServerSpec] | None
    registry: Registry
    timeout: float
    trust: bool | None
    trace: str | None = None
    replay: str | None = None
    writes: bool = False
    """Whether the command may write files (``--write``): such commands of one root run
    one at a time."""


Workspaces = Callable[[WorkspaceRequest], AbstractAsyncContextManager["Workspace"]]
"""Gives the workspace for a request, for the length of one command."""


@asynccontextmanager
async def own_workspace(request: WorkspaceRequest) -> AsyncIterator[Workspace]:
    """A workspace made for the command and shut down after it (the caller's own process)."""
    from ..workspace.workspace import Workspace

    connect = None
    servers = request.servers
    if request.replay:
        from ..testing import load_trace, replay

        connect = replay(Path(request.replay))
        if servers is None:
            # The servers of the recording, not whichever this machine would prefer.
            servers = list(load_trace(Path(request.replay)))
    workspace = Workspace(
        request.root,
        servers=servers,
        registry=request.registry,
        timeout=request.timeout,
        trace=request.trace,
        connect=connect,
        trust=request.trust,
        on_untrusted=lambda _notice: None,  # the executor says it, once a command
        long_lived=False,
    )
    async with workspace as ws:
        yield ws


def with_own_scripts(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with the scripts folder of this Python last on ``PATH``: servers installed
    with the tool (``pip install "adecore-lsp[python]"`` puts ruff beside it) are found,
    and find what they look for, also when its environment is not activated."""
    found = dict(env)
    from ..workspace.disk.executables import scripts_folder

    scripts = scripts_folder()
    path = found.get("PATH", "")
    if scripts and scripts not in path.split(os.pathsep):
        found["PATH"] = os.pathsep.join(part for part in (path, scripts) if part)
    return found


async def execute(
    args: argparse.Namespace, invocation: Invocation, workspaces: Workspaces = own_workspace
) -> int:
    """Run the parsed command; its exit status (failures said on ``invocation.err``)."""
    output = Output(quiet=args.quiet, out=invocation.out, err=invocation.err)
    args.cwd = invocation.cwd
    with using(with_own_scripts(invocation.env)):
        try:
            return await _execute(args, output, workspaces)
        except BrokenPipeError:
            raise  # the reader went away: whoever runs the command knows what to do
        except (LspError, ValueError, OSError) as error:
            if args.debug:
                traceback.print_exc(file=invocation.err)
            if timed_out(error):
                # A wait that timed out: the answer is missing, not empty (3, never 0 or 2).
                output.error(f"incomplete: {message(error)}")
                return INCOMPLETE
            output.error(message(error))
            return FAILURE
        except Exception as error:  # the last boundary: say what, never a traceback
            if args.debug:
                traceback.print_exc(file=invocation.err)
            output.error(f"internal error: {error!r} (run again with --debug for the traceback)")
            return FAILURE


async def _execute(args: argparse.Namespace, output: Output, workspaces: Workspaces) -> int:
    from . import inspect
    from .choices import chosen_root, chosen_servers, default_registry

    if args.name == "servers":
        return await inspect.servers(args, output, default_registry())
    specs, registry = chosen_servers(args)
    root = chosen_root(args, registry, specs)
    if args.name == "trust":
        return inspect.trust(args, output, root)
    request = WorkspaceRequest(
        root,
        specs,
        registry,
        args.timeout,
        True if args.trust else None,
        trace=args.trace,
        replay=args.replay,
        writes=bool(getattr(args, "write", False)),
    )
    from .commands import COMMANDS
    from .progress import progress_printer

    printer = progress_printer(output, enabled=not (args.quiet or args.no_progress))
    listening = None
    try:
        async with workspaces(request) as ws:
            if ws.untrusted_notice is not None:
                output.warning(ws.untrusted_notice)
            # Heard until the workspace is given back: a workspace of the command's own is
            # shut down by then, and a server's last reports (basedpyright's "1 file to
            # analyze" often follows its answer) are shown as before.
            listening = ws.on_progress(printer.progress)
            with ws.server_choice.tracking(), ws.server_choice.projects.tracking() as said:
                try:
                    return await COMMANDS[args.name](args, output, ws)
                finally:
                    for notice in said():
                        output.warning(notice)
    finally:
        if listening is not None:
            listening.dispose()
        printer.close()


def timed_out(error: BaseException) -> bool:
    """Whether ``error`` is a deadline that passed (a request's or a handshake's)."""
    from ..errors import RequestTimeoutError
    from ..workspace.servers.handles import HandshakeTimeout

    return isinstance(error, (RequestTimeoutError, HandshakeTimeout)) or isinstance(
        error.__cause__, RequestTimeoutError
    )


def message(error: BaseException) -> str:
    """What a failure says to a person."""
    if isinstance(error, LspError):
        return error.message
    if isinstance(error, FileNotFoundError) and error.filename:
        return f"{error.filename}: no such file"
    return str(error)
