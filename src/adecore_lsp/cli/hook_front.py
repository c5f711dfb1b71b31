"""The host's half of ``adecore-lsp hook HOST EVENT`` (the other is :mod:`.hook`): it reads
the hook input from stdin, refuses a malformed one with the host's non-blocking status, and
sends the command to the daemon (started on first use, so that every call after the first is
warm), or runs it in this process with ``--daemon off``, answering by the deadline whatever
happens.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from .hook_hosts import MAX_INPUT, HookInputError, host_named, incomplete_verdict, read_event

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []


class _Late(Exception):
    """The hook's deadline passed in the host's process."""


def _late(number: int, frame: FrameType | None) -> None:
    raise _Late


def run_hook(args: argparse.Namespace, given: Sequence[str]) -> int:
    """The host's side: read, check, relay, and answer by the deadline whatever happens."""
    host = host_named(args.host)
    raw = sys.stdin.buffer.read(MAX_INPUT + 1)
    try:
        event = read_event(host, args.event, raw)
    except HookInputError as error:
        sys.stderr.write(f"adecore-lsp hook: {error}\n")
        return host.failure_status
    if event.kind == "other":
        return 0  # not an edit tool: nothing to say
    if event.cwd and os.path.isdir(event.cwd):
        os.chdir(event.cwd)
    previous = signal.signal(signal.SIGALRM, _late)
    signal.setitimer(signal.ITIMER_REAL, args.deadline + 5)
    try:
        status = _relay(args, given, raw)
    except _Late:
        answer = host.answer(event, incomplete_verdict(event, args.deadline))
        sys.stdout.write(answer.stdout)
        return 0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # Our own failures (2, 3) are the host's non-blocking status, never its blocking one.
    return 0 if status == 0 else host.failure_status


def _relay(args: argparse.Namespace, given: Sequence[str], raw: bytes) -> int:
    from .modes import mode

    text = raw.decode("utf-8", "replace")
    chosen = mode(args.daemon) if (args.daemon or os.environ.get("ADECORE_LSP_DAEMON")) else "on"
    if chosen != "off":
        from ..daemon.client import run_in_daemon

        argv = [*given, "--quiet", "--no-progress", "--input", text]
        status = run_in_daemon(argv, chosen)
        if status is not None:
            return status
    from .local import run_local

    args.input, args.quiet, args.no_progress = text, True, True
    return run_local(args)
