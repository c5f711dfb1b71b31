"""Running one command: the workspace it needs, its output, and errors a person can act on.

Every failure becomes one message on stderr and an exit status (2, or 3 when an answer is
incomplete); a Python traceback is shown only with ``--debug``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import signal
import sys
import sysconfig
import traceback
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from ..errors import LspError
from ..workspace.registry import Registry, ServerSpec
from .main import FAILURE, INCOMPLETE
from .output import Output

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

INTERRUPTED = 130


def run(args: argparse.Namespace) -> int:
    """Run the parsed command; returns its exit status."""
    output = Output(quiet=args.quiet)
    _find_own_servers()
    if args.name == "mcp":
        from .mcp_command import run_mcp

        return run_mcp(args)
    _logging(args.debug)
    try:
        return asyncio.run(_until_signalled(_run(args, output)))
    except KeyboardInterrupt:
        output.error("interrupted")
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`adecore-lsp servers | head`): nothing more to say.
        _silence_stdout()
        return 0
    except (LspError, ValueError, OSError) as error:
        if args.debug:
            traceback.print_exc()
        if _timed_out(error):
            # A wait that timed out: the answer is missing, not empty (exit 3, never 0 or 2).
            output.error(f"incomplete: {_message(error)}")
            return INCOMPLETE
        output.error(_message(error))
        return FAILURE
    except Exception as error:  # the last boundary: say what, never a traceback
        if args.debug:
            traceback.print_exc()
        output.error(f"internal error: {error!r} (run again with --debug for the traceback)")
        return FAILURE


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that end a command the way Ctrl-C does: every server shut down, then the exit
status 128 + the signal's number."""


async def _until_signalled(command: Coroutine[Any, Any, int]) -> int:
    """Run ``command``; SIGTERM or SIGHUP cancels it (its workspace ends every server on
    the way out) and the status is then 128 + the signal's number."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(command)
    received: list[int] = []

    def end(number: int) -> None:
        if not received:
            received.append(number)
            task.cancel()

    installed = []
    for number in ENDING_SIGNALS:
        try:
            loop.add_signal_handler(number, end, number)
            installed.append(number)
        except (NotImplementedError, RuntimeError, ValueError):  # pragma: no cover - Windows
            pass
    try:
        return await task
    except asyncio.CancelledError:
        if received:
            return 128 + received[0]
        raise
    finally:
        for number in installed:
            loop.remove_signal_handler(number)


def _timed_out(error: BaseException) -> bool:
    """Whether ``error`` is a deadline that passed (a request's or a handshake's)."""
    from ..errors import RequestTimeoutError
    from ..workspace.servers import HandshakeTimeout

    return isinstance(error, (RequestTimeoutError, HandshakeTimeout)) or isinstance(
        error.__cause__, RequestTimeoutError
    )


def _logging(debug: bool) -> None:
    """The library's log records (a server's error, with its traceback) are for --debug;
    without it, errors reach the person once, as the command's own message."""
    import logging

    if debug:
        logging.basicConfig(level=logging.DEBUG, format="%(name)s: %(message)s")
        return
    # asyncio's own records too (its debug mode's "Executing ... took 0.2 seconds"):
    # stderr is for the command's messages, and empty with --quiet.
    for name in ("adecore_lsp", "asyncio"):
        logger = logging.getLogger(name)
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _find_own_servers() -> None:
    """Servers installed with the tool (``pip install adecore-lsp[python]`` puts ruff beside
    it) are found, also when its environment is not activated: its scripts folder goes last
    on ``PATH``, for this process and the servers it starts."""
    scripts = sysconfig.get_path("scripts")
    path = os.environ.get("PATH", "")
    if scripts and scripts not in path.split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join(part for part in (path, scripts) if part)


def _message(error: BaseException) -> str:
    if isinstance(error, LspError):
        return error.message
    if isinstance(error, FileNotFoundError) and error.filename:
        return f"{error.filename}: no such file"
    return str(error)


async def _run(args: argparse.Namespace, output: Output) -> int:
    from . import inspect

    if getattr(args, "cwd", None) is None:
        args.cwd = Path.cwd()
    if args.name == "servers":
        return await inspect.servers(args, output, Registry.default())
    specs, registry = _specs(args)
    root = _root(args, registry, specs)
    if args.name == "trust":
        return inspect.trust(args, output, root)
    from ..workspace.workspace import Workspace

    connect = None
    if args.replay:
        from ..testing import load_trace, replay

        connect = replay(Path(args.replay))
        if specs is None:
            # The servers of the recording, not whichever this machine would prefer.
            specs = list(load_trace(Path(args.replay)))
    workspace = Workspace(
        root,
        servers=specs,
        registry=registry,
        timeout=args.timeout,
        trace=args.trace,
        connect=connect,
        trust=True if args.trust else None,
        on_untrusted=output.warning,
    )
    from .progress import progress_printer

    printer = progress_printer(output, enabled=not (args.quiet or args.no_progress))
    workspace.on_progress(printer.progress)
    from .commands import COMMANDS

    try:
        async with workspace as ws:
            return await COMMANDS[args.name](args, output, ws)
    finally:
        printer.close()


def _paths_given(args: argparse.Namespace) -> list[str]:
    """The file arguments of the command, a target's file included, as given."""
    given: list[str] = []
    for name in ("paths", "file"):
        value = getattr(args, name, None)
        if isinstance(value, list):
            given.extend(value)
        elif isinstance(value, str):
            given.append(value)
    target = getattr(args, "target", None)
    if isinstance(target, str):
        from ..protocol.workspace.targets import PositionTarget, SymbolTarget, parse_target

        try:
            parsed = parse_target(target)
        except ValueError:
            return given  # the command itself says what is wrong with the target
        if isinstance(parsed, (PositionTarget, SymbolTarget)):
            given.append(parsed.path)
    return given


def _specs(args: argparse.Namespace) -> tuple[list[str | ServerSpec] | None, Registry]:
    """The servers the command line chose (``--server`` ids, a ``--command`` spec), or
    ``None``."""
    registry = Registry.default()
    specs: list[str | ServerSpec] = list(args.servers or [])
    if args.command:
        argv = shlex.split(args.command)
        if not argv:
            raise ValueError("--command names no program")
        specs.append(
            ServerSpec(
                id=Path(argv[0]).name,
                command=argv,
                languages=_command_languages(args, registry),
                install=f"make {argv[0]} runnable (it is given with --command)",
            )
        )
    return (specs or None), registry


def _command_languages(args: argparse.Namespace, registry: Registry) -> dict[str, str]:
    """What a ``--command`` server takes: every file given, by the registry's language id for
    its extension (a file without one: its name), else ``plaintext``; for a folder, or no
    path at all, the files whose extension or name the registry knows."""
    languages: dict[str, str] = {}
    folders = False
    cwd = Path(getattr(args, "cwd", None) or Path.cwd())
    given = _paths_given(args)
    for path in given:
        if (cwd / path).is_dir():
            folders = True
            continue
        name = Path(path).name
        key = Path(path).suffix or name
        found = [language for spec in registry if (language := spec.language_id(name))]
        languages.setdefault(key, found[0] if found else "plaintext")
    if folders or not given:
        for spec in registry:
            for key, language in spec.languages.items():
                languages.setdefault(key, language)
    return languages


def _root(
    args: argparse.Namespace, registry: Registry, specs: list[str | ServerSpec] | None
) -> Path:
    """``--root``, else the nearest folder from the first path (or here) up that holds a
    root marker of the chosen server, else that folder."""
    if args.root:
        root = Path(args.root)
        if not root.is_dir():
            raise ValueError(f"--root {args.root}: not a folder")
        return root.resolve()
    given = _paths_given(args)
    first = Path(given[0]).resolve() if given else Path.cwd()
    start = first if first.is_dir() else first.parent
    if specs is not None:
        markers = [m for spec in specs for m in _spec(registry, spec).root_markers]
    else:
        found = registry.for_path(str(first)) if given and not first.is_dir() else []
        markers = found[0].root_markers if found else ["pyproject.toml", "adecore-lsp.toml", ".git"]
    folder = start
    while True:
        if any((folder / marker).exists() for marker in markers):
            return folder
        if folder.parent == folder:
            return start
        folder = folder.parent


def _spec(registry: Registry, spec: str | ServerSpec) -> ServerSpec:
    """A chosen server's spec: an id's from the registry (a project's own id has no markers
    there: it counts as none)."""
    if isinstance(spec, ServerSpec):
        return spec
    return registry.get(spec) if spec in registry else ServerSpec(spec, [spec])
