"""Running a command in the caller's own process: the executor on an event loop of its own,
with a workspace made for the command, Ctrl-C, SIGTERM and SIGHUP ending it cleanly."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from .executor import Invocation, execute
from .output import Output
from .status import INTERRUPTED

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that end a command the way Ctrl-C does: every server shut down, then the exit
status 128 + the signal's number."""


def run_local(args: argparse.Namespace) -> int:
    """Run the parsed command here; its exit status."""
    logging_for(args.debug)
    invocation = Invocation(Path.cwd(), dict(os.environ), sys.stdout, sys.stderr)
    try:
        return asyncio.run(until_signalled(execute(args, invocation)))
    except KeyboardInterrupt:
        Output(quiet=args.quiet).error("interrupted")
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`adecore-lsp servers | head`): nothing more to say.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


async def until_signalled(command: Coroutine[Any, Any, int]) -> int:
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


def logging_for(debug: bool) -> None:
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
