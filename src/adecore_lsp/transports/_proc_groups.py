"""Which process groups have a process that runs, read from ``/proc`` (Linux).

Standard library only: the server transport, the daemon's client and its watcher ask it.
"""

from __future__ import annotations

import os

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def running_groups() -> set[int] | None:
    """The groups with a process that runs (a zombie, which its parent or init reaps, does
    not); ``None`` where ``/proc`` cannot be read, so that callers act as if all ran."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    running: set[int] = set()
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
            if fields[0] != b"Z":
                running.add(int(fields[2]))
        except (OSError, IndexError, ValueError):
            continue
    return running
