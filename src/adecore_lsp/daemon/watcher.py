"""The daemon's watcher: a small process that ends the daemon's servers when the daemon dies.

A daemon killed outright (SIGKILL, the out-of-memory killer) cannot end its servers, and a
server that ignores the end of its input and SIGTERM would run on. So the daemon starts a
watcher (:mod:`.watching` is its side) whose stdin is a pipe the daemon alone writes to:
each time its servers' process groups change, it writes them there, one line the whole set
(:func:`line`). However the daemon's process ends, the system closes its end of the pipe;
the watcher then reads the end of its input, ends the groups of the last line (SIGTERM,
then SIGKILL after ``GRACE`` seconds: :func:`.groups.end_groups`) and exits. A daemon that
stops on its own has ended its servers, tells the watcher that none is left, and waits for
it to exit.

This module is the watcher's whole program: the standard library's lighter modules only,
so that it starts quickly and stays small.
"""

from __future__ import annotations

import json
import os
import signal
import sys

from .groups import Group, end_groups

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

GRACE = 2.0
"""Seconds the servers of a dead daemon get after SIGTERM, before SIGKILL."""


def main() -> int:
    """Read the daemon's lines until the end of input; then end the last groups; 0."""
    daemon = os.getppid()
    for number in (signal.SIGINT, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    groups: list[Group] = []
    pending = b""
    while True:
        try:
            chunk = os.read(0, 65536)
        except OSError:
            break
        if not chunk:
            break
        *lines, pending = (pending + chunk).split(b"\n")
        if lines:
            groups = _parsed(lines[-1], groups)
    ended = end_groups(groups, GRACE)
    if ended:
        sys.stderr.write(
            f"adecore-lsp daemon watcher: the daemon (pid {daemon}) ended without stopping "
            f"its servers; their process groups {ended} were ended\n"
        )
    return 0


def _parsed(text: bytes, otherwise: list[Group]) -> list[Group]:
    """The groups of one line (``[[pgid, start or null], ...]``), or ``otherwise``."""
    try:
        found = json.loads(text)
        if isinstance(found, list) and all(isinstance(x, list) and len(x) == 2 for x in found):
            return [(int(group), None if at is None else int(at)) for group, at in found]
    except (ValueError, TypeError):
        pass
    return otherwise


def line(groups: list[Group]) -> bytes:
    """The line that tells the watcher ``groups`` (the daemon's side writes it)."""
    return json.dumps([[group, started] for group, started in groups]).encode() + b"\n"
