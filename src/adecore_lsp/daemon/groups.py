"""The process groups of a daemon's servers, ended from outside the daemon.

A daemon killed outright cannot end its servers; two others do: its watcher (:mod:`.watcher`)
at once, and, should the watcher be gone too, the next command that finds the dead daemon's
socket (:mod:`.client`, from ``servers.json``). A group is ended only while it is still the
one recorded: its leader runs with the start time recorded (where the platform tells it), as
a process id may be given to another process once its own has ended. Standard library only:
the caller's side and the watcher import it.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable

from ..transports._proc_groups import running_groups

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Group = tuple[int, int | None]
"""A server's process group id (the server's pid) and its start time (``None``: unknown)."""

POLL = 0.02
"""Seconds between two looks at whether the groups signalled have emptied."""


def start_time(pid: int) -> int | None:
    """The start time of process ``pid`` (clock ticks since boot, Linux), or ``None``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def still_ours(group: int, started: int | None) -> bool:
    """Whether ``group`` is still the recorded one: led by the process of that start time,
    or, where start times are unknown (``None``), not empty."""
    if started is None:
        return _has_members(group)
    return start_time(group) == started


def end_groups(groups: Iterable[Group], grace: float) -> list[int]:
    """End each of ``groups`` that is still ours: SIGTERM, then SIGKILL to those with a
    process running after ``grace`` seconds (at once with ``grace`` 0); the groups ended.

    Which groups are ours is decided once, before any signal: a leader that exits on
    SIGTERM leaves its children in the group, and they are killed all the same."""
    ours = [group for group, started in groups if still_ours(group, started)]
    if grace > 0:
        for group in ours:
            _signal(group, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while _running(ours) and time.monotonic() < deadline:
            time.sleep(POLL)
    for group in _running(ours):
        _signal(group, signal.SIGKILL)
    return ours


def _signal(group: int, number: int) -> None:
    try:
        os.killpg(group, number)
    except (ProcessLookupError, PermissionError):
        pass  # gone meanwhile, or not ours to signal


def _has_members(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _running(groups: list[int]) -> list[int]:
    """Those of ``groups`` with a process that runs: a zombie, which init reaps, does not
    (told by ``/proc``; where there is none, any member counts)."""
    members = [group for group in groups if _has_members(group)]
    running = running_groups() if members else None
    if running is None:
        return members
    return [group for group in members if group in running]
