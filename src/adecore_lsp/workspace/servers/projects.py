"""The projects of one workspace: the root's configuration, and each nested project's own.

A folder below the root that holds an ``adecore-lsp.toml``, or a ``pyproject.toml`` with a
``[tool.adecore-lsp]`` table, is a project of its own (an example, a vendored package, a
tool with its own settings inside a repository): its configuration chooses the servers of
the files below it and their settings, as the root's does for the rest: the nearest
configuration decides, with nothing merged from the ones above, as the language servers'
own command lines do with theirs. A nested project is trusted on its own terms
(:func:`.trust.is_trusted` of its folder): an untrusted one keeps only what cannot run a
program, and what it said beyond that is reported once, naming the project.

Configurations are read once and looked at again (their files' size and times) at most
every :data:`RECHECK_AFTER` seconds, so a workspace kept warm (the daemon's) follows edits.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from .project_config import PROJECT_FILE, PYPROJECT_FILE, load_toml
from .registry import Registry
from .trust import is_trusted

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

_SEEN: ContextVar[set[Path] | None] = ContextVar("adecore_lsp_projects_seen", default=None)
"""The nested folders with a notice that the running command consulted (:meth:`tracking`)."""

RECHECK_AFTER = 2.0
"""Seconds a folder's configuration files, once looked at, are taken as unchanged."""

Stamp = tuple[int, int, int, int]
"""The size and modification time of a folder's ``adecore-lsp.toml`` and ``pyproject.toml``
(``-1`` for a file that is not there)."""


@dataclass(frozen=True)
class Project:
    """One project's configuration as it applies: ``folder`` (absolute, in the workspace's
    root), the ``registry`` with its server tables applied, its ``servers`` list (``None``:
    the registry chooses), what an untrusted configuration said that was ``ignored``,
    whether it is ``nested`` below the root, and whether it is ``trusted`` (a nested
    project's own trust: :mod:`.untrusted_folders`)."""

    folder: Path
    registry: Registry
    servers: list[str] | None
    ignored: list[str] = field(default_factory=list)
    nested: bool = False
    trusted: bool = True


class Projects:
    """The projects of the files below ``root``, whose configurations are read in
    ``config_root`` (the same folder, or the working tree a checkout stands for)."""

    def __init__(
        self,
        root: Path,
        config_root: Path,
        base: Registry,
        *,
        trust: bool | None,
        trusted: bool,
        on_notice: Callable[[str], object] | None = None,
    ) -> None:
        self.root = root
        self.config_root = config_root
        self.base = base
        self.trust = trust
        self.on_notice = on_notice
        registry, servers, ignored = base.project(config_root, trusted=trusted)
        self.top = Project(root, registry, servers, ignored, trusted=trusted)
        """The root's own project (the base registry when the root has no configuration)."""
        # Folders as text: a file's project is asked for at every message about it, and a
        # Path's parents and hash cost ten times what a string's do.
        self._root = str(root)
        self._below = self._root.rstrip(os.sep) + os.sep
        self._known: dict[str, tuple[Stamp, float, Project | None]] = {}
        self._said: set[Path] = set()
        self.notices: dict[Path, str] = {}
        """What each nested folder's configuration said (broken, or ignored untrusted)."""

    def of(self, path: Path) -> Project:
        """The project of the file at ``path``: the nearest nested project above it, else
        the root's.

        Raises:
            ValueError: the nearest configuration is broken (names the file and field).
        """
        folder = os.path.dirname(path)
        if not folder.startswith(self._below):
            return self.top  # in the root's own folder, or outside it
        seen = _SEEN.get()
        while folder != self._root:
            found = self._at(folder)
            if seen is not None and self.notices and Path(folder) in self.notices:
                seen.add(Path(folder))
            if found is not None:
                return found
            folder = os.path.dirname(folder)
        return self.top

    @contextlib.contextmanager
    def tracking(self) -> Iterator[Callable[[], list[str]]]:
        """Within the block, a function giving the notices of the nested folders the block
        has consulted so far, each once: a command says them, also when a workspace kept
        warm heard them in an earlier one."""
        seen: set[Path] = set()
        token = _SEEN.set(seen)
        try:
            yield lambda: [self.notices[folder] for folder in sorted(seen)]
        finally:
            _SEEN.reset(token)

    def nested(self) -> list[Project]:
        """The nested projects found so far."""
        return [found for _stamp, _at, found in self._known.values() if found is not None]

    def _at(self, folder: str) -> Project | None:
        now = time.monotonic()
        known = self._known.get(folder)
        if known is not None and now - known[1] < RECHECK_AFTER:
            return known[2]
        at = Path(folder)
        source = self.config_root / at.relative_to(self.root)
        stamp = _stamp(source)
        if known is not None and known[0] == stamp:
            self._known[folder] = (stamp, now, known[2])
            return known[2]
        found = None if stamp == (-1, -1, -1, -1) else self._read(at, source)
        self._known[folder] = (stamp, now, found)
        return found

    def _read(self, folder: Path, source: Path) -> Project | None:
        if not (source / PROJECT_FILE).is_file():
            try:
                load_toml(source / PYPROJECT_FILE)
            except ValueError as exc:
                # Not ours to judge (a test fixture, another tool's file): said, not fatal.
                self._say(folder, f"{exc}; its folder is not read as a project of its own")
                return None
        trusted = is_trusted(source, self.trust)
        registry, servers, ignored = self.base.project(source, trusted=trusted)
        if registry is self.base and servers is None and not ignored:
            return None  # a pyproject.toml without [tool.adecore-lsp]: no project here
        if ignored:
            shown = folder.relative_to(self.root).as_posix()
            self._say(
                folder,
                f"the project {shown} is not trusted, so adecore-lsp ignored what it names: "
                f"{', '.join(ignored)}; run `adecore-lsp trust {shown}` (or pass --trust) "
                "to allow them",
            )
        return Project(folder, registry, servers, ignored, nested=True, trusted=trusted)

    def _say(self, folder: Path, text: str) -> None:
        """``text`` to ``on_notice``, once per folder (kept in :attr:`notices`)."""
        self.notices[folder] = text
        if folder not in self._said and self.on_notice is not None:
            self._said.add(folder)
            self.on_notice(text)


def _stamp(folder: Path) -> Stamp:
    found: list[int] = []
    for name in (PROJECT_FILE, PYPROJECT_FILE):
        try:
            status = os.stat(folder / name)
        except OSError:
            found += [-1, -1]
        else:
            found += [status.st_size, status.st_mtime_ns]
    return (found[0], found[1], found[2], found[3])
