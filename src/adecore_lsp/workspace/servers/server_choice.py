"""Which servers take a file, from where each runs, and the handles made so far.

:class:`ServerChoice` holds what a workspace decided about its servers: the registry as the
project configures it, the servers pinned (by the caller or the project), each server's
executable (looked up again after :data:`WHICH_FOR` seconds), the root each server runs
from for a file, and the table of handles, one per (server id, server root), made on first
use and kept for the workspace's life. :meth:`ServerChoice.root_for` is the one place that
decides a server's root; everything else asks it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence, ValuesView
from contextvars import ContextVar
from pathlib import Path

from ...environment import environ
from ...errors import ServerNotFoundError, WorkspaceClosedError
from ...protocol.workspace.roots import Marker, markers, server_root
from ..disk.listing import Aside, root_files
from ..disk.units import Paths
from .disk_tree import DiskTree, folders_up
from .handles import ServerHandle
from .interpreters import interpreter_inside
from .processes import Connect
from .projects import Project, Projects
from .registry import Registry, ServerSpec
from .trust import ADVICE

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

WHICH_FOR = 2.0
"""Seconds a server's executable, once looked up, is taken as known."""

_USED: ContextVar[set[ServerHandle] | None] = ContextVar("adecore_lsp_used", default=None)
"""The servers the running command asked for (see :meth:`ServerChoice.tracking`)."""

HandleMaker = Callable[[ServerSpec, Path, str], ServerHandle]
"""Makes the handle of a spec for a server root, with its executable (not started)."""


def workspace_folders(root: Path, given: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """``Workspace(folders=...)``: the folders given, absolute, each once, in order.

    Raises:
        ValueError: one is not a folder, or lies outside the root, naming it.
    """
    if isinstance(given, (str, os.PathLike)):
        raise ValueError(f"folders is a list of folders, not {os.fspath(given)!r}")
    found: dict[Path, None] = {}
    for folder in given:
        full = (root / Path(folder).expanduser()).resolve()
        if not full.is_dir():
            raise ValueError(f"the workspace folder {folder} is not a folder")
        if full != root and root not in full.parents:
            raise ValueError(
                f"the workspace folder {folder} is outside the root {root}: give a root that "
                "holds every folder"
            )
        found[full] = None
    return list(found)


class ServerChoice:
    """The servers of one workspace: which take a file, where each runs, their handles.

    ``servers`` pins them (ids or specs; ``None``: the project's list, else the registry's
    first installed server for each file). ``make_handle`` makes a handle the first time a
    (server, root) is asked for; the workspace gives it what a running server reports to.
    """

    def __init__(
        self,
        paths: Paths,
        config_root: Path,
        base: Registry,
        servers: Sequence[str | ServerSpec] | None,
        *,
        trusted: bool,
        connect: Connect | None,
        make_handle: HandleMaker,
        folders: Sequence[Path] | None = None,
        trust: bool | None = None,
        on_notice: Callable[[str], object] | None = None,
    ) -> None:
        self.paths = paths
        self.folders: tuple[Path, ...] | None = None if folders is None else tuple(folders)
        """The workspace's folders (absolute, inside the root), or ``None``: the root alone.
        A server of the whole repository starts with them as its workspace folders."""
        self.root = paths.root
        self.config_root = config_root
        self.base_registry = base
        self.trusted = trusted
        self.connect = connect
        self._make_handle = make_handle
        self.projects = Projects(
            self.root,
            config_root,
            base,
            trust=trust,
            trusted=trusted,
            on_notice=on_notice,
        )
        """The root's project and each nested project's own configuration."""
        top = self.projects.top
        self.registry, self.ignored = top.registry, top.ignored
        """The registry with the root's configuration; what an untrusted root ignored."""
        self._given: set[int] = set()
        """The specs the caller made itself (``ServerSpec`` objects): started as given."""
        self._caller: list[str | ServerSpec] | None = None if servers is None else list(servers)
        for spec in self._caller or ():
            if isinstance(spec, ServerSpec):
                self._given.add(id(spec))
        self.pinned = self._pins(top)
        """The servers pinned for the root's own files (the caller's, else the root
        project's ``servers``), or ``None``: the registry chooses for each file."""
        self.closed = False
        """Set when the workspace closes: no handle is made after that."""
        self.links_out: set[Path] = set()
        self.aside: Aside = {}
        """What listings left aside since it was last cleared, by reason (``files.Aside``)."""
        """The files a listing of the root left out as links out of it (never read)."""
        self._handles: dict[tuple[str, Path], ServerHandle] = {}
        self._roots: dict[tuple[str, str], Path] = {}
        self._markers: dict[tuple[str, ...], tuple[Marker, ...]] = {}
        self._tree = DiskTree()
        """The markers above the files, looked at once (see :meth:`root_for`)."""
        self._which: dict[int, tuple[str | None, float]] = {}

    def _pins(self, project: Project) -> list[ServerSpec] | None:
        """The servers pinned for ``project``'s files: the caller's (ids taken from the
        project's registry, so that its settings apply), else its own ``servers``."""
        chosen = self._caller if self._caller is not None else project.servers
        if chosen is None:
            return None
        return [
            spec if isinstance(spec, ServerSpec) else project.registry.get(spec) for spec in chosen
        ]

    def project_of(self, path: Path) -> tuple[Project, list[ServerSpec] | None]:
        """The project of the file at ``path`` and the servers pinned for it (``None``:
        its registry chooses)."""
        project = self.projects.of(path)
        if not project.nested:
            return project, self.pinned
        return project, self._pins(project)

    def notice(self) -> str | None:
        """What an untrusted root ignored, in one message with the advice; ``None`` if
        nothing was."""
        specs = self.pinned if self.pinned is not None else list(self.registry)
        programs = [
            found
            for spec in specs
            if id(spec) not in self._given
            and (found := self.registry.inside_root(spec, self.config_root)) is not None
            and not self._runs_anyway(spec, found)
        ]
        # The Python a server would start by itself there (given ours instead).
        programs += [
            found
            for spec in specs
            if spec.interpreter is not None
            and (found := interpreter_inside(spec.interpreter_sources, self.config_root, environ()))
        ]
        items = [*self.ignored, *dict.fromkeys(programs)]
        if not items:
            return None
        return (
            f"{self.root} is not trusted, so adecore-lsp ignored what it names: "
            f"{', '.join(items)}; {ADVICE}"
        )

    def _runs_anyway(self, spec: ServerSpec, inside: str) -> bool:
        """Whether the program inside the root that a trusted root would start (``inside``,
        relative) is the one that starts anyway: the tool's own environment lies in the
        root (a project that installed adecore-lsp into its own ``.venv``), so nothing was
        ignored."""
        found = self.which(spec)
        if found is None:
            return False
        return os.path.realpath(found) == os.path.realpath(self.config_root / inside)

    def twin_servers(self) -> list[str | ServerSpec] | None:
        """The ``servers`` argument of a workspace that chooses as this one does: the specs
        the caller made itself as they are (started as given), the others by id (so that
        their executables are judged as here, inside an untrusted root too)."""
        if self.pinned is None:
            return None
        return [spec if id(spec) in self._given else spec.id for spec in self.pinned]

    # -- executables and specs ------------------------------------------------------------

    def which(self, spec: ServerSpec) -> str | None:
        """``Workspace.which``: the executable of ``spec`` here, looked up again after
        ``WHICH_FOR`` seconds."""
        now = time.monotonic()
        known = self._which.get(id(spec))
        if known is not None and now - known[1] < WHICH_FOR:
            return known[0]
        trusted = self.trusted or id(spec) in self._given
        found = self.registry.which(spec, self.config_root, trusted=trusted)
        self._which[id(spec)] = (found, now)
        return found

    def specs_for(self, path: Path) -> list[ServerSpec]:
        """``Workspace.specs_for``: the servers that take ``path``, in order.

        Raises:
            ServerNotFoundError: the registry knows servers for the file but none is installed.
        """
        project, pinned = self.project_of(path)
        if pinned is not None:
            return [spec for spec in pinned if spec.language_id(path) is not None]
        # As Registry.for_path: installed servers first, each group in preference order
        # (with this workspace's cached lookups: a check asks for every file).
        taking = project.registry.taking(path.name)
        candidates = [s for s in taking if self.which(s)] + [s for s in taking if not self.which(s)]
        if not candidates:
            return []
        first = candidates[0]
        if self.connect is None and self.which(first) is None:
            inside = None if self.trusted else project.registry.inside_root(first, self.config_root)
            detail = f"it would check {path.name}"
            if inside is not None:
                detail = f"only {inside} has it, inside a root that is not trusted; {ADVICE}"
            raise ServerNotFoundError(first.id, first.install, detail)
        return [first]

    def takes(self, path: Path) -> bool:
        """``Workspace.takes``: whether an installed server of this workspace takes ``path``."""
        try:
            specs = self.specs_for(path)
        except ServerNotFoundError:
            return False
        if self.connect is not None:
            return bool(specs)
        return any(self.which(spec) is not None for spec in specs)

    def missing_server(self, path: Path) -> ServerNotFoundError | None:
        """``Workspace.missing_server``: why no installed server takes ``path``."""
        try:
            specs = self.specs_for(path)
        except ServerNotFoundError as error:
            return error
        for spec in specs:
            if self.which(spec) is None:
                try:
                    self.registry.require(spec, self.config_root, trusted=self.trusted)
                except ServerNotFoundError as error:
                    return error
        return None

    def would_take(self, path: Path) -> bool:
        """Whether a server of this workspace would take ``path`` if it were installed."""
        project, pinned = self.project_of(path)
        if pinned is not None:
            return any(spec.language_id(str(path)) is not None for spec in pinned)
        return bool(project.registry.for_path(str(path), self.config_root, trusted=self.trusted))

    # -- the files servers take -------------------------------------------------------------

    def files_of(self, paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
        """``Workspace.files_of``: the files ``paths`` name, each once, in order.

        Raises:
            ValueError: a path that does not exist, or a folder outside the root, naming it.
            ServerNotFoundError: a folder whose files only a server that is not installed
                would take.
        """
        found: dict[Path, None] = {}
        for given in paths:
            full = self.paths.absolute(given)
            try:
                mode = os.stat(full).st_mode  # one stat answers both questions
            except (OSError, ValueError):
                mode = 0
            if stat.S_ISDIR(mode):
                if full != self.root and self.root not in full.parents:
                    raise ValueError(
                        f"{given} is a folder outside the root {self.root} (give --root "
                        "to check it there)"
                    )
                found.update(dict.fromkeys(self.root_files(full)))
            elif stat.S_ISREG(mode):
                found[full] = None  # outside the root too: it keeps its absolute path
            else:
                raise ValueError(
                    f"{self.paths.relative(full)} is not a file or a folder "
                    f"(the root is {self.root})"
                )
        return list(found)

    def root_files(self, under: Path | None = None) -> list[Path]:
        """``Workspace.root_files``: the root's files (in ``under``) an installed server takes.

        Raises:
            ServerNotFoundError: there are none, but the root has files that a server of
                this workspace would take if it were installed (never an empty "clean").
        """
        files = root_files(self.root, self.takes, under, links_out=self.links_out, aside=self.aside)
        if not files:
            for path in root_files(self.root, self.would_take, under):
                project, pinned = self.project_of(path)
                for spec in pinned or project.registry.for_path(
                    str(path), self.config_root, trusted=self.trusted
                ):
                    if spec.language_id(str(path)) is not None:
                        raise ServerNotFoundError(
                            spec.id, spec.install, f"it would check {self.paths.relative(path)}"
                        )
        return files

    # -- handles ----------------------------------------------------------------------------

    def handles_for(self, path: Path) -> list[ServerHandle]:
        """``Workspace.handles_for``: the server handles for ``path`` (made, not started).

        Raises:
            LspError: the workspace is closed: it starts nothing.
        """
        if self.closed:
            raise WorkspaceClosedError()
        handles = [self._handle(spec, self.root_for(spec, path)) for spec in self.specs_for(path)]
        used = _USED.get()
        if used is not None:
            used.update(handles)
        return handles

    def format_handles(self, path: Path) -> list[ServerHandle]:
        """The handles of the servers that only format ``path`` (made, not started): see
        :meth:`formats_only`.

        Raises:
            LspError: the workspace is closed: it starts nothing.
        """
        if self.closed:
            raise WorkspaceClosedError()
        specs = self._format_specs(path)
        handles = [self._handle(spec, self.root_for(spec, path)) for spec in specs]
        used = _USED.get()
        if used is not None:
            used.update(handles)
        return handles

    def formats_only(self, path: Path) -> bool:
        """Whether a server of this workspace formats ``path`` that none takes
        (``ServerSpec.format_languages``: ruff and Markdown): a file of ``format`` alone."""
        return bool(self._format_specs(path))

    def _format_specs(self, path: Path) -> list[ServerSpec]:
        """The installed servers that format ``path``, which no server takes: each pinned
        one, else the registry's first."""
        if self.takes(path):
            return []
        specs = [
            spec
            for spec in (self.pinned if self.pinned is not None else self.registry)
            if spec.format_language_id(path) is not None
            and (self.connect is not None or self.which(spec) is not None)
        ]
        return specs if self.pinned is not None else specs[:1]

    def _handle(self, spec: ServerSpec, root: Path) -> ServerHandle:
        """The handle of ``spec``'s server at ``root``, made the first time it is asked."""
        key = (spec.id, root)
        handle = self._handles.get(key)
        if handle is None:
            executable = (
                spec.command[0]
                if self.connect is not None
                else self.registry.require(
                    spec, self.config_root, trusted=self.trusted or id(spec) in self._given
                )
            )
            handle = self._handles[key] = self._make_handle(spec, root, executable)
        return handle

    def roots_of(self, handle: ServerHandle, files: Iterable[Path]) -> list[ServerHandle]:
        """Every root of ``handle``'s server among ``files`` (the tree's), ``handle`` first:
        the processes a question about uses asks, each of which sees its own package
        (made, not started; none but ``handle`` for a server of the whole repository).

        Raises:
            LspError: the workspace is closed: it starts nothing.
        """
        if self.closed:
            raise WorkspaceClosedError()
        spec = handle.spec
        found: dict[Path, None] = {handle.root: None}
        if spec.roots != "repository":
            for path in files:
                if spec.language_id(path) is not None:
                    found.setdefault(self.root_for(spec, path))
        handles = [self._handle(spec, root) for root in found]
        used = _USED.get()
        if used is not None:
            used.update(handles)
        return handles

    async def close(self) -> bool:
        """Make no handle from now on, and stop every server made, waiting for each to end
        also when the caller is cancelled meanwhile (Ctrl-C, SIGTERM: leaving now would
        leave them to whatever ends the program). Returns whether it was."""
        self.closed = True
        handles = self.started()
        cancelled = False
        if handles:
            stopping = asyncio.gather(
                *(handle.stop() for handle in handles), return_exceptions=True
            )
            while not stopping.done():
                try:
                    await asyncio.shield(stopping)
                except asyncio.CancelledError:
                    cancelled = True
        return cancelled

    @property
    def handles(self) -> ValuesView[ServerHandle]:
        """Every handle made so far, in the order they were made (a live view, no copy)."""
        return self._handles.values()

    def started(self) -> list[ServerHandle]:
        """``Workspace.started``: the handles of every server made so far, in order."""
        return list(self._handles.values())

    @contextlib.contextmanager
    def tracking(self) -> Iterator[None]:
        """``Workspace.tracking``: within the block, :meth:`used` names the servers the block
        asked for."""
        token = _USED.set(set())
        try:
            yield
        finally:
            _USED.reset(token)

    def used(self) -> list[ServerHandle]:
        """``Workspace.used``: the servers asked for within :meth:`tracking` (every one
        started outside it), in the order they were made."""
        used = _USED.get()
        handles = self.started()
        return handles if used is None else [handle for handle in handles if handle in used]

    # -- server roots -----------------------------------------------------------------------

    def folder_for(self, spec: ServerSpec, path: Path) -> Path:
        """The workspace folder ``path`` belongs to, for a server of the whole repository:
        the innermost of the workspace's folders that holds it; else its package, the
        nearest folder up to the root that holds one of ``spec``'s root markers; else the
        root."""
        inside = [f for f in self.folders or () if f == path or f in path.parents]
        if inside:
            return max(inside, key=lambda folder: len(folder.parts))
        folder = path.parent
        if folder != self.root and self.root not in folder.parents:
            return self.root
        upward = folders_up(folder, self.root)
        return Path(server_root("nearest", self._markers_of(spec), upward, self._tree))

    def _markers_of(self, spec: ServerSpec) -> tuple[Marker, ...]:
        known = self._markers.get(tuple(spec.root_markers))
        if known is None:
            known = self._markers[tuple(spec.root_markers)] = markers(spec.root_markers)
        return known

    def root_for(self, spec: ServerSpec, path: Path) -> Path:
        """The folder ``spec``'s server runs from for ``path``: one server runs per (server,
        root). Its registry policy decides (``ServerSpec.roots``, see
        :mod:`adecore_lsp.protocol.workspace.roots`): the workspace's root for a server that
        takes the whole repository; else the folder of ``path`` or above it, up to the
        workspace's root, that holds the right root marker (only the markers that hold the
        server's configuration, for a server that runs per configuration); the workspace's
        root without one. Remembered per folder for the workspace's life (a marker made
        later does not split a running server's root).

        The one place that decides a server's root: handles, restarts after files came or
        went, and the root a server is started with all follow what it answers.
        """
        key = (spec.id, os.path.dirname(path))
        known = self._roots.get(key)
        if known is None:
            known = self._roots[key] = self._decide_root(spec, path)
        return known

    def _decide_root(self, spec: ServerSpec, path: Path) -> Path:
        folder = path.parent
        if folder == self.root or self.root not in folder.parents:
            return self.root
        chosen = self.root
        if spec.roots != "repository":
            found = self._markers_of(spec)
            chosen = Path(server_root(spec.roots, found, folders_up(folder, self.root), self._tree))
        project = self.projects.of(path)
        if project.nested and chosen in project.folder.parents and self._own_spec(project, spec):
            # The nested project configures this server its own way: a process of its own.
            return project.folder
        return chosen

    def _own_spec(self, project: Project, spec: ServerSpec) -> bool:
        """Whether ``project`` configures ``spec`` otherwise than the root does (its own
        settings, or a server the root does not know)."""
        if id(spec) in self._given:
            return False
        return spec.id not in self.registry or self.registry.get(spec.id) != spec
