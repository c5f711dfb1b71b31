"""The steps of one write set, and what each path holds as they are made one by one.

A set may rename a file and then edit it under its new name, or make a folder and write
into it: what a write replaces is then not what its path holds on disk now but what the
steps before it leave there. :class:`Timeline` works that out before anything is made, so
that the journal names the right old text for recovery and each replacement is compared
with the text it must find.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Internal to the library: the write path's own parts.
__all__: list[str] = []


@dataclass
class Write:
    target: Path
    data: bytes
    change: int | None = None
    temp: Path | None = None
    old: bytes | None = None
    """What the target held when the set was checked (``None``: it did not exist)."""
    before: bytes | None = None
    """What the target holds right before this step, after the set's earlier steps."""
    mode: int | None = None
    owner: tuple[int, int] | None = None


@dataclass
class MakeFolder:
    target: Path
    change: int | None = None


@dataclass
class Rename:
    old: Path
    new: Path
    overwrite: bool
    change: int | None = None
    aside: Path | None = None
    """Where what ``new`` held is moved while the set is made (removed at the end)."""
    moved: bytes | None = None
    """What it moves: a file's text (``b""`` for a folder, ``None`` for nothing)."""


@dataclass
class Delete:
    target: Path
    recursive: bool
    change: int | None = None
    aside: Path | None = None


Step = Write | MakeFolder | Rename | Delete


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class Timeline:
    """What each path holds after each step of a set, worked out without making any.

    ``initial`` reads what a path holds before the set (``None``: nothing). Paths the set
    wrote, renamed, deleted or made are followed: a path under a renamed folder leads back
    to where it came from, one under a deleted or new folder holds nothing from before.
    """

    def __init__(self, initial: Callable[[Path], bytes | None]) -> None:
        self._initial = initial
        self._now: dict[Path, bytes | None] = {}
        self._events: list[tuple[Path, Path | None]] = []
        """``(from, to)`` for each rename; ``(path, None)`` where nothing from before is
        left (a deletion, a new folder)."""

    def holds(self, path: Path) -> bytes | None:
        """What ``path`` holds after the steps taken so far."""
        if path in self._now:
            return self._now[path]
        origin: Path | None = path
        for source, target in reversed(self._events):
            assert origin is not None
            if target is None:
                if _within(origin, source):
                    return None
            elif _within(origin, target):
                origin = source / origin.relative_to(target)
            elif _within(origin, source):
                return None  # moved away
        assert origin is not None
        return self._initial(origin)

    def take(self, step: Step) -> None:
        """Follow ``step``; a write's :attr:`Write.before` and a rename's
        :attr:`Rename.moved` are set from what the paths hold before it."""
        if isinstance(step, Write):
            step.before = self.holds(step.target)
            self._now[step.target] = step.data
        elif isinstance(step, Rename):
            step.moved = self.holds(step.old)
            moved = {
                step.new / path.relative_to(step.old): data
                for path, data in self._now.items()
                if _within(path, step.old)
            }
            self._forget(step.new)
            self._forget(step.old)
            self._events.append((step.old, step.new))
            self._now.update(moved)
            self._now[step.new] = step.moved
            self._now.setdefault(step.old, None)
        else:
            self._forget(step.target)
            self._events.append((step.target, None))
            self._now[step.target] = None

    def _forget(self, folder: Path) -> None:
        for path in [path for path in self._now if _within(path, folder)]:
            del self._now[path]
