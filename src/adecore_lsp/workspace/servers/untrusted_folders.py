"""The folders of a workspace that are not trusted, as each server reaches them, and what a
server's own configurations there would make it run.

A root that is not trusted is such a folder; in a trusted root, so is a nested project
that is not trusted (:mod:`.projects`). A Python server rooted in one is given an
interpreter of ours (:mod:`.interpreters`). A server of the whole repository that finds an
interpreter for each project below its root (pyrefly: ``ServerSpec.interpreter_per_project``)
reaches every such folder below it, found by a walk of the root, and is then given an
interpreter in any case. A server whose own configurations may name a program it runs
(pyrefly's ``python-interpreter-path``: ``ServerSpec.config_programs``) is not started
while one of them, in such a folder, names one: pyrefly reads the configuration of every
file it meets, those it indexes and those an import leads to, however it was started, and
no setting of a client wins over it (measured against pyrefly 1.5.1 with marker scripts).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ...environment import getenv
from ...errors import ErrorCodes, LspError
from ...protocol.workspace.config_programs import PROGRAM_READERS
from ...protocol.workspace.scope_readers import CONFIG_FILES
from ..disk.listing import SKIPPED_FOLDERS
from .project_config import PROJECT_FILE, PYPROJECT_FILE
from .projects import Projects
from .scopes import Scopes
from .server_spec import ServerSpec
from .trust import ADVICE, ENVIRONMENT

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

WALK_FOR = 2.0
"""Seconds a walk of a root's configuration files is taken as current."""

NOT_WALKED = frozenset({".git", "node_modules", "__pycache__"})
"""Folders a walk for a server's configurations does not enter: none holds one a Python
server reads. A ``.venv`` is walked: pyrefly reads a configuration inside a package
installed there, and one in a folder ``.gitignore`` ignores."""

PROJECT_FILES = (PROJECT_FILE, PYPROJECT_FILE)

CONFIGURATION_NAMES = frozenset(PROJECT_FILES).union(*(CONFIG_FILES[r] for r in PROGRAM_READERS))
"""The names of the files a walk looks for: a project's, or a configuration of a server
with ``config_programs``."""


class ServerRefusedError(LspError):
    """A server that is not started: its own configuration, in a folder that is not
    trusted, names a program it would run. The message names the file, the key and what
    to do."""

    def __init__(self, server: str, message: str) -> None:
        super().__init__(ErrorCodes.InternalError, message)
        self.server = server


class UntrustedFolders:
    """The untrusted folders of one workspace (``root``, whose configuration lies in
    ``config_root``): the root itself when it is not ``trusted``, else the nested projects
    ``projects`` finds untrusted (``trust`` as the workspace was given it)."""

    def __init__(
        self,
        root: Path,
        config_root: Path,
        projects: Projects,
        *,
        trusted: bool,
        trust: bool | None,
    ) -> None:
        self.root = root
        self.config_root = config_root
        self.projects = projects
        self.trusted = trusted
        self.everything_trusted = trusted and (trust is True or getenv(ENVIRONMENT) == "1")
        """No folder can be untrusted: the caller or the environment trusts them all."""
        self._walks: dict[
            tuple[Path, frozenset[str]], tuple[float, list[tuple[Path, frozenset[str]]]]
        ] = {}
        self._refusals: dict[tuple[str, Path], tuple[float, str | None]] = {}

    def reached(
        self, spec: ServerSpec, server_root: Path, *, fresh: bool = False
    ) -> tuple[Path, ...]:
        """The untrusted folders ``spec``'s server rooted at ``server_root`` reaches: whose
        programs are the repository's (empty: none). A Python interpreter it would start
        there is replaced by one of ours. ``fresh``: the folders are walked again now."""
        if self.everything_trusted:
            return ()
        if not self.trusted:
            return tuple(dict.fromkeys((self.root, self.config_root)))
        found: dict[Path, None] = {}
        own = self._project(server_root)
        if own is not None:
            found[own] = None
        if spec.interpreter_per_project or spec.config_programs is not None:
            for folder, names in self._walk(server_root, SKIPPED_FOLDERS, fresh):
                if names.intersection(PROJECT_FILES) and self._project(folder) == folder:
                    found[folder] = None
        return tuple(found)

    def _project(self, folder: Path) -> Path | None:
        """The folder of the untrusted nested project ``folder`` lies in, if any."""
        try:
            project = self.projects.of(folder / "-")
        except ValueError:
            return None  # a broken configuration: said where its files are checked
        return project.folder if project.nested and not project.trusted else None

    def refusal(self, spec: ServerSpec, server_root: Path, *, fresh: bool = False) -> str | None:
        """Why ``spec``'s server rooted at ``server_root`` is not started, in words naming
        each configuration and key, or ``None``: it may start. ``fresh``: the folders are
        walked again now (else a walk of the last ``WALK_FOR`` seconds is taken)."""
        reader = spec.config_programs
        if reader is None:
            return None
        now = time.monotonic()
        known = self._refusals.get((spec.id, server_root))
        if known is not None and now - known[0] < WALK_FOR and not fresh:
            return known[1]
        found = self._judge(spec, reader, server_root, fresh)
        self._refusals[(spec.id, server_root)] = (now, found)
        return found

    def _judge(self, spec: ServerSpec, reader: str, server_root: Path, fresh: bool) -> str | None:
        untrusted = self.reached(spec, server_root, fresh=fresh)
        scopes = Scopes(self.root)
        wanted = set(CONFIG_FILES[reader])
        judged: set[str] = set()
        items: list[str] = []
        projects: dict[Path, None] = {}
        for top in untrusted:
            if (
                top != server_root
                and server_root not in top.parents
                and top not in server_root.parents
            ):
                continue  # the working tree of a checkout: its copy is the server's root
            folders = [top] + [
                f for f, names in self._walk(top, NOT_WALKED, fresh) if names & wanted
            ]
            for folder in folders:
                scope = scopes.scope(reader, folder.as_posix())
                config = scope.config
                if config is None or config in judged or top not in Path(config).parents:
                    continue  # none, judged, or above the folder: not the folder's own
                judged.add(config)
                keys = PROGRAM_READERS[reader](scope, _read_whole)
                if keys:
                    items.extend(f"{scope.named(self.root.as_posix())} {key}" for key in keys)
                    projects[top] = None
        if not items:
            return None
        if not self.trusted:
            where, advice = "in a root that is not trusted", ADVICE
        else:
            shown = [self._shown(folder) for folder in projects]
            where = f"in a project that is not trusted ({', '.join(shown)})"
            advice = f"run `adecore-lsp trust {shown[0]}` (or pass --trust) to allow them"
        return (
            f"{spec.id} was not started: {', '.join(items)} "
            f"name{'s' * (len(items) == 1)} a program {spec.id} would run, {where}; {advice}"
        )

    def _shown(self, folder: Path) -> str:
        try:
            return folder.relative_to(self.root).as_posix()
        except ValueError:
            return str(folder)

    def _walk(
        self, top: Path, skipped: frozenset[str], fresh: bool
    ) -> list[tuple[Path, frozenset[str]]]:
        """The folders below ``top`` (itself included, those named in ``skipped`` not
        entered) holding a configuration file a server or a project reads, with those
        files' names: walked again after ``WALK_FOR`` seconds, or at once when ``fresh``."""
        now = time.monotonic()
        key = (top, skipped)
        known = self._walks.get(key)
        if known is not None and now - known[0] < WALK_FOR and not fresh:
            return known[1]
        found: list[tuple[Path, frozenset[str]]] = []
        for folder, folders, files in os.walk(top):
            folders[:] = sorted(name for name in folders if name not in skipped)
            names = CONFIGURATION_NAMES.intersection(files)
            if names:
                found.append((Path(folder), frozenset(names)))
        self._walks[key] = (now, found)
        return found


def _read_whole(path: str) -> str | None:
    """A configuration's whole text, however large (the server reads it all), its bytes
    that are not UTF-8 replaced; ``None`` when it cannot be read."""
    try:
        with open(path, "rb") as file:
            return file.read().decode("utf-8", errors="replace")
    except OSError:
        return None
