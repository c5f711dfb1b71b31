"""The server processes a program's workspaces started: what a workspace needs of one, who
is told of each as it starts, and their end when the program exits.

A workspace ends its servers when it closes; these are for what it cannot: a program that
exits without closing them (``atexit`` kills each group still running), and a daemon that
records each group at once so that a watcher can end it should the daemon itself be killed.
"""

from __future__ import annotations

import atexit
import signal
import weakref
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from ...transports.base import LspTransport
from ...transports.process import ServerProcess, kill_group_now
from .registry import ServerSpec

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

LIVE: weakref.WeakSet[ServerProcess] = weakref.WeakSet()
"""Every server process a workspace started whose process group may not have ended yet."""

STARTED: list[Callable[[ServerProcess], object]] = []
"""Told of each server process a workspace starts, at once (the daemon records its group)."""


def live_groups() -> list[int]:
    """The process groups of the servers started in this program that may still run."""
    return sorted(
        group
        for process in list(LIVE)
        if (group := process.process_group) is not None and not process.group_ended
    )


@atexit.register
def _end_leftovers() -> None:
    """At exit, kill what an interrupted program had no time to shut down: no server (or a
    child it started, in its process group) outlives the program."""
    for process in list(LIVE):
        group = process.process_group
        if group is not None and not process.group_ended:
            kill_group_now(group)


class ServerConnection(Protocol):
    """What a workspace needs of a running server: a :class:`ServerProcess`, or a stand-in
    (a replayed trace) made by a ``connect`` function."""

    @property
    def transport(self) -> LspTransport: ...
    @property
    def pid(self) -> int | None: ...
    @property
    def returncode(self) -> int | None: ...
    @property
    def stderr_lines(self) -> tuple[str, ...]: ...
    async def wait(self) -> int: ...
    async def aclose(self, *, grace_period: float | None = None) -> None: ...


Connect = Callable[[ServerSpec, Path], Awaitable[ServerConnection]]
"""Makes the connection to a server in place of starting its process (``Workspace(connect=)``)."""


def exit_status(code: int) -> str:
    """An exit status in words: ``exit status 1``, or ``killed by SIGKILL``."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"
