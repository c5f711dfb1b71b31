"""``Workspace``: one folder of code, spoken about in people's units.

It knows which servers to start for which files (the registry, the project's configuration,
or the servers pinned), starts them lazily, one per (server, root), keeps the open files in
step with the disk, and hands each call to a small module: :mod:`.checking` (diagnostics
known final, edits and their delta), :mod:`.navigation` (targets and what they name) and
:mod:`.editing` (edit plans and their atomic apply). The last two are imported when first
used, so that a command line that only checks files does not pay for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import stat
import time
import warnings
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Concatenate, ParamSpec, TypeVar

from ..errors import (
    ServerNotFoundError,
    WorkspaceClosedError,
)
from ..session import LspSession
from ..types import Disposable, JSONObject
from ..write_path import WriteSet, recover
from . import asking, checking, disk_sync
from .files import DiskState, Stamp, read_text, root_files, tree_stock
from .model import (
    AppliedPlan,
    DiagnosticsDelta,
    DiagnosticsReport,
    EditPlan,
    Location,
    Readiness,
    Reference,
    Results,
    ServerStatus,
    Symbol,
)
from .notebooks import (
    NotebookView,
    close_in,
    is_notebook,
    open_in,
    say_saved,
    takes_language,
    view_of,
)
from .processes import Connect
from .registry import Registry, ServerSpec
from .servers import REFUSED_EDIT, ServerHandle, Signal
from .tracing import Trace
from .trust import ADVICE, is_trusted
from .units import Paths, Texts

__all__ = ["Workspace"]

P = ParamSpec("P")
R = TypeVar("R")


def closed_error() -> WorkspaceClosedError:
    """What a call of a closed workspace raises (it starts nothing)."""
    return WorkspaceClosedError()


def _when_open(
    method: Callable[Concatenate[Workspace, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[Workspace, P], Coroutine[Any, Any, R]]:
    """A method that a closed workspace refuses with :func:`closed_error`."""

    async def guarded(self: Workspace, /, *args: P.args, **kwargs: P.kwargs) -> R:
        if self._closed:
            raise closed_error()
        return await method(self, *args, **kwargs)

    functools.update_wrapper(guarded, method)
    return guarded


Target = str | Location
"""A target: ``path:LINE[:COL]``, ``path#Name/path[k]``, a bare name, or a Location."""


WHICH_FOR = 2.0
"""Seconds a server's executable, once looked up, is taken as known."""

_USED: ContextVar[set[ServerHandle] | None] = ContextVar("adecore_lsp_used", default=None)
"""The servers the running command asked for (see :meth:`Workspace.tracking`)."""


@dataclass
class _Collector:
    """A plan being made with these servers, and the edits they sent meanwhile."""

    handles: list[ServerHandle]
    edits: list[tuple[Any, str]]


@dataclass
class OpenFile:
    """A file the workspace has open: its text, what the disk was, whether it is unsaved."""

    path: Path
    text: str
    disk: DiskState | None
    unsaved: bool = False
    read_at: float = field(default_factory=time.time)
    """When ``text`` was read (the wall clock, as ``st_ctime`` is)."""


class Workspace:
    """Language servers for one folder of code (see the module's docstring).

    ``async with Workspace(root) as ws:`` starts nothing; leaving the block shuts every
    server down. Paths are relative to ``root`` or absolute. ``connect``, when given, makes
    each server's connection instead of starting its process (``adecore_lsp.testing``
    replays a trace this way); the servers then need not be installed.

    ``long_lived=False`` is for a workspace that serves one command and ends (the command
    line's): when a server watches files, the root's files are not taken stock of for the
    changes that would come later (a stat of every file of the tree, for nothing).
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        servers: Sequence[str | ServerSpec] | None = None,
        registry: Registry | None = None,
        timeout: float = 30.0,
        trace: str | os.PathLike[str] | IO[bytes] | None = None,
        max_restarts: int = 3,
        max_open_files: int = 2000,
        connect: Connect | None = None,
        trust: bool | None = None,
        on_untrusted: Callable[[str], object] | None = None,
        config_root: str | os.PathLike[str] | None = None,
        long_lived: bool = True,
    ) -> None:
        folder = Path(root).expanduser()
        if not folder.is_dir():
            raise ValueError(f"the workspace root {folder} is not a folder")
        self.root = folder.resolve()
        # A write a killed process left half-made is finished (or undone) before anything
        # else reads the files.
        self.recovered = recover(self.root)
        self.paths = Paths(self.root)
        # The configuration and the trust are those of ``config_root`` when given (the
        # working tree's, for a checkout of another revision of it), and so is the place
        # executables are judged against: a PATH entry inside the working tree (an activated
        # .venv) is inside for the checkout too, and the checkout's own folders (its linked
        # .venv) are never looked in.
        self.config_root = self.root if config_root is None else Path(config_root).resolve()
        self.trusted = is_trusted(self.config_root, trust)
        base = registry if registry is not None else Registry.default()
        self._base_registry = base
        self.registry, project_servers, ignored = base.project(
            self.config_root, trusted=self.trusted
        )
        self._pinned: list[ServerSpec] | None = None
        self._given: set[int] = set()
        """The specs the caller made itself (``ServerSpec`` objects): started as given."""
        chosen = servers if servers is not None else project_servers
        if chosen is not None:
            self._pinned = []
            for spec in chosen:
                if isinstance(spec, ServerSpec):
                    self._given.add(id(spec))
                    self._pinned.append(spec)
                else:
                    self._pinned.append(self.registry.get(spec))
        self.untrusted_notice = None if self.trusted else self._notice(ignored)
        if self.untrusted_notice is not None:
            if on_untrusted is not None:
                on_untrusted(self.untrusted_notice)
            else:
                warnings.warn(self.untrusted_notice, UserWarning, stacklevel=2)
        self.timeout = timeout
        self._connect = connect
        self.max_restarts = max_restarts
        self.max_open_files = max_open_files
        self.long_lived = long_lived
        self._trace = Trace(trace) if trace is not None else None
        self.changed = Signal()
        self._handles: dict[tuple[str, Path], ServerHandle] = {}
        self._roots: dict[tuple[str, str], Path] = {}
        self._open: dict[str, OpenFile] = {}
        self._notebooks: dict[str, NotebookView] = {}
        """The open notebooks by URI, as their servers have them."""
        self._notebooks_in_root: bool | None = None
        self._cell_texts: dict[str, str] = {}
        self._notebook_parts: dict[str, NotebookView] = {}
        """Each open notebook by the URIs of its cells and of its joined document."""
        """The text behind each cell URI and joined-document URI of an open notebook."""
        self.texts = Texts(self._current_text)
        self._closed = False
        self._progress_listeners: list[Callable[[str, Any], object]] = []
        self._collectors: list[_Collector] = []
        self._which: dict[int, tuple[str | None, float]] = {}
        self._tree: dict[str, Stamp] | None = None
        self._tree_at = 0.0

    def _notice(self, ignored: list[str]) -> str | None:
        """What an untrusted root ignored, in one message with the advice; ``None`` if
        nothing was."""
        specs = self._pinned if self._pinned is not None else list(self.registry)
        programs = [
            found
            for spec in specs
            if id(spec) not in self._given
            and (found := self.registry.inside_root(spec, self.config_root)) is not None
        ]
        items = [*ignored, *dict.fromkeys(programs)]
        if not items:
            return None
        return (
            f"{self.root} is not trusted, so adecore-lsp ignored what it names: "
            f"{', '.join(items)}; {ADVICE}"
        )

    def which(self, spec: ServerSpec) -> str | None:
        """The executable of ``spec`` here: inside the root only when the root is trusted
        or the caller made the spec itself. Looked up again after ``WHICH_FOR`` seconds (a
        check of many files asks for each; a server installed meanwhile is still found)."""
        now = time.monotonic()
        known = self._which.get(id(spec))
        if known is not None and now - known[1] < WHICH_FOR:
            return known[0]
        trusted = self.trusted or id(spec) in self._given
        found = self.registry.which(spec, self.config_root, trusted=trusted)
        self._which[id(spec)] = (found, now)
        return found

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` was called (a closed workspace starts nothing again)."""
        return self._closed

    def watch_tree(self) -> None:
        """Take stock of the root's files (the first time), so that :meth:`sync_disk` sees
        the files created, changed or deleted since: announced to the servers that watch
        them, and restarting a server that watches none when files were created or deleted
        under its root. The next ``sync_disk`` looks at once. A workspace kept between
        commands (the daemon's) calls it before each command."""
        if self._tree is None:
            self._tree = self._scan()
        # The next sync_disk looks at once, however recent the last look was.
        self._tree_at = float("-inf")

    def on_progress(self, listener: Callable[[str, Any], object]) -> Disposable:
        """Hear every server's ``$/progress``: ``listener(server_id, params)``."""
        self._progress_listeners.append(listener)
        return Disposable(lambda: self._progress_listeners.remove(listener))

    async def __aenter__(self) -> Workspace:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Shut every server down; shielded, so an interrupted program still ends them."""
        if self._closed:
            return
        self._closed = True
        handles = list(self._handles.values())
        cancelled = False
        if handles:
            stopping = asyncio.gather(
                *(handle.stop() for handle in handles), return_exceptions=True
            )
            # A cancelled caller (Ctrl-C, SIGTERM) still waits for every server to end:
            # leaving now would leave them to whatever ends the program.
            while not stopping.done():
                try:
                    await asyncio.shield(stopping)
                except asyncio.CancelledError:
                    cancelled = True
        if self._trace is not None:
            self._trace.close()
        if cancelled:
            raise asyncio.CancelledError

    # -- servers -------------------------------------------------------------------------

    def specs_for(self, path: Path) -> list[ServerSpec]:
        """The servers that take ``path``, in order (pinned, the project's, or the first
        installed one of the registry's).

        Raises:
            ServerNotFoundError: the registry knows servers for the file but none is installed.
        """
        if self._pinned is not None:
            return [spec for spec in self._pinned if spec.language_id(path) is not None]
        # As Registry.for_path: installed servers first, each group in preference order
        # (with this workspace's cached lookups: a check asks for every file).
        taking = self.registry.taking(path.name)
        candidates = [s for s in taking if self.which(s)] + [s for s in taking if not self.which(s)]
        if not candidates:
            return []
        first = candidates[0]
        if self._connect is None and self.which(first) is None:
            inside = None if self.trusted else self.registry.inside_root(first, self.config_root)
            detail = f"it would check {path.name}"
            if inside is not None:
                detail = f"only {inside} has it, inside a root that is not trusted; {ADVICE}"
            raise ServerNotFoundError(first.id, first.install, detail)
        return [first]

    def takes(self, path: Path) -> bool:
        """Whether an installed server of this workspace takes ``path`` (with ``connect``,
        any server of it: none need be installed)."""
        try:
            specs = self.specs_for(path)
        except ServerNotFoundError:
            return False
        if self._connect is not None:
            return bool(specs)
        return any(self.which(spec) is not None for spec in specs)

    def missing_server(self, path: Path) -> ServerNotFoundError | None:
        """Why no installed server takes ``path`` when one that is not installed would:
        its id and install hint; ``None`` when no server would take it at all."""
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

    def handles_for(self, path: Path) -> list[ServerHandle]:
        """The server handles for ``path`` (made, not started).

        Raises:
            LspError: the workspace is closed: it starts nothing.
        """
        if self._closed:
            raise closed_error()
        handles = self._handles_for(path)
        used = _USED.get()
        if used is not None:
            used.update(handles)
        return handles

    @contextlib.contextmanager
    def tracking(self) -> Iterator[None]:
        """Within the block (and the tasks it starts), :meth:`used` names the servers the
        block asked for, not every server this workspace has started: a command run on a
        warm workspace (the daemon's) speaks of the servers it would have started in a
        workspace of its own."""
        token = _USED.set(set())
        try:
            yield
        finally:
            _USED.reset(token)

    def used(self) -> list[ServerHandle]:
        """The servers asked for within :meth:`tracking` (every one started outside it), in
        the order they were made."""
        used = _USED.get()
        handles = self.started()
        return handles if used is None else [handle for handle in handles if handle in used]

    def _handles_for(self, path: Path) -> list[ServerHandle]:
        handles = []
        for spec in self.specs_for(path):
            root = self._server_root(spec, path)
            key = (spec.id, root)
            handle = self._handles.get(key)
            if handle is None:
                executable = (
                    spec.command[0]
                    if self._connect is not None
                    else self.registry.require(
                        spec, self.config_root, trusted=self.trusted or id(spec) in self._given
                    )
                )
                handle = ServerHandle(
                    spec,
                    root,
                    executable,
                    timeout=self.timeout,
                    max_restarts=self.max_restarts,
                    trace=self._trace,
                    changed=self.changed,
                    progress=self._progress_listeners,
                    connect=self._connect,
                    on_apply_edit=self._server_edit,
                    on_registered=self._registered,
                    notebooks_in_root=self._has_notebooks,
                )
                self._handles[key] = handle
            handles.append(handle)
        return handles

    def _has_notebooks(self) -> bool:
        """Whether the root holds a notebook (looked for once)."""
        if self._notebooks_in_root is None:
            self._notebooks_in_root = bool(self._notebooks or root_files(self.root, is_notebook))
        return self._notebooks_in_root

    def _server_root(self, spec: ServerSpec, path: Path) -> Path:
        """The nearest folder from ``path`` up to the root holding one of the spec's root
        markers; the workspace's root without one. Remembered per folder for the
        workspace's life (a marker made later does not split a running server's root)."""
        key = (spec.id, os.path.dirname(path))
        known = self._roots.get(key)
        if known is None:
            known = self._roots[key] = self._find_server_root(spec, path)
        return known

    def _find_server_root(self, spec: ServerSpec, path: Path) -> Path:
        folder = path.parent
        if not spec.root_markers or folder == self.root or self.root not in folder.parents:
            return self.root
        if any((folder / marker).exists() for marker in spec.root_markers):
            return folder
        return self._server_root(spec, folder)  # the parent's answer, remembered for it

    @_when_open
    async def session_for(self, path: str | os.PathLike[str]) -> LspSession:
        """The session of the first server for ``path``, started if it is not running."""
        full = self.paths.absolute(path)
        handles = self.handles_for(full)
        if not handles:
            raise ValueError(
                f"no language server of this workspace takes {self.paths.relative(full)}"
            )
        return await handles[0].session()

    @property
    def running(self) -> list[ServerStatus]:
        """Every server this workspace has started: id, pid, state, restarts, memory, uptime."""
        return [
            handle.status()
            for handle in self._handles.values()
            if handle.state != "stopped" or handle.restarts
        ]

    @_when_open
    async def restart(self, server: str | None = None) -> list[ServerStatus]:
        """Restart one server (by id) or every one, documents re-opened."""
        handles = [h for h in self._handles.values() if server is None or h.spec.id == server]
        if server is not None and not handles:
            started = sorted({h.spec.id for h in self._handles.values()})
            raise ValueError(f"no server {server!r} has been started here; started: {started}")
        await asyncio.gather(*(handle.restart() for handle in handles))
        return [handle.status() for handle in handles]

    # -- files ---------------------------------------------------------------------------

    def _current_text(self, uri: str) -> str | None:
        known = self._open.get(uri)
        if known is None:
            return self._cell_texts.get(uri)
        return known.text

    def notebook(self, path_or_uri: str | os.PathLike[str]) -> NotebookView | None:
        """The open notebook at a path or URI (of the notebook, one of its cells, or its
        joined document), else ``None``."""
        if isinstance(path_or_uri, str) and ":" in path_or_uri[:30]:
            found = self._notebooks.get(path_or_uri)
            return found if found is not None else self._notebook_parts.get(path_or_uri)
        return self._notebooks.get(self.paths.uri(self.paths.absolute(path_or_uri)))

    def file(self, path: str | os.PathLike[str]) -> Path:
        """The absolute path of an existing file.

        Raises:
            ValueError: a path that is not a file, naming it.
        """
        full = self.paths.absolute(path)
        if not full.is_file():
            raise ValueError(f"{self.paths.relative(full)} is not a file (the root is {self.root})")
        return full

    @_when_open
    async def open(self, path: str | os.PathLike[str]) -> list[ServerHandle]:
        """Open ``path`` in every server that takes it; the handles that have it."""
        full = self.paths.absolute(path)
        uri = self.paths.uri(full)
        known = self._open.get(uri)
        if known is None:
            disk = DiskState.of_file(full)
            if disk is None:
                self.file(full)  # raises, naming the path
            known = OpenFile(full, read_text(full), disk)
            self._open[uri] = known
        else:
            self.file(full)
        return await self._send(full, uri, known.text)

    async def _send(self, full: Path, uri: str, text: str) -> list[ServerHandle]:
        handles = self.handles_for(full)
        view = None
        if is_notebook(full):
            view = self._notebooks.get(uri)
            if view is None or view.notebook.text != text:
                view = view_of(full, uri, text)  # InvalidNotebookError: the file's own error
                self._forget_cells(uri)
                self._notebooks[uri] = view
                self._cell_texts.update(view.texts())
                self._notebook_parts.update(dict.fromkeys(view.texts(), view))
            # A notebook is of its kernel's language: an R notebook is no Python server's.
            handles = [h for h in handles if takes_language(h.spec, view.notebook.language)]
        # Running servers need no wait (a check opens a thousand files in a row).
        ready = [live for handle in handles if (live := handle.ready_session()) is not None]
        sessions = (
            ready
            if len(ready) == len(handles)
            else await asyncio.gather(*(handle.session() for handle in handles))
        )
        for handle, session in zip(handles, sessions, strict=False):
            if view is not None:
                open_in(handle, session, view)
                continue
            language_id = handle.spec.language_id(full) or "plaintext"
            handle.open(session, uri, language_id, text)
        self.texts.forget(uri)
        return handles

    @_when_open
    async def update(self, path: str | os.PathLike[str], text: str) -> None:
        """Give the servers a new, unsaved text of ``path`` (the disk is left alone)."""
        full = self.paths.absolute(path)
        uri = self.paths.uri(full)
        self._open[uri] = OpenFile(full, text, DiskState.of(full), unsaved=True)
        await self._send(full, uri, text)

    async def close(self, path: str | os.PathLike[str]) -> None:
        """Close ``path`` in every server that has it open (after ``aclose``: nothing)."""
        if self._closed:
            return
        full = self.paths.absolute(path)
        uri = self.paths.uri(full)
        self._open.pop(uri, None)
        self.texts.forget(uri)
        self._forget_cells(uri)
        for handle in self._handles.values():
            if uri in handle.documents:
                handle.close(uri)
            if uri in handle.notebooks:
                close_in(handle, uri)

    def _forget_cells(self, uri: str) -> None:
        """Forget an open notebook's cell and joined texts (it changed or closed)."""
        view = self._notebooks.pop(uri, None)
        if view is not None:
            for known in view.texts():
                self._cell_texts.pop(known, None)
                self._notebook_parts.pop(known, None)
                self.texts.forget(known)

    @_when_open
    async def write(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path`` through the write path (inside the root, atomic) and
        send it to the servers that take it."""
        writes = WriteSet(self.root, name=self.paths.relative)
        writes.write(path, text.encode("utf-8"))
        writes.commit()
        await self.adopt(path, text)
        self.announce([(path, 2)])

    @_when_open
    async def adopt(self, path: Path, text: str) -> None:
        """Take ``text`` as what ``path`` now holds on disk, and send it to its servers (a
        notebook's servers that ask for saves hear that it was saved)."""
        uri = self.paths.uri(path)
        self._open[uri] = OpenFile(path, text, DiskState.of(path))
        handles = await self._send(path, uri, text)
        view = self._notebooks.get(uri)
        if view is not None:
            for handle in handles:
                if handle.live is not None:
                    say_saved(handle, handle.live, view)

    @_when_open
    async def sync_disk(self) -> None:
        """Make the servers see the disk as it is now (``workspace-api.md``, "the disk is
        the truth"): what :func:`.disk_sync.sync_disk` says."""
        await disk_sync.sync_disk(self)

    def _registered(self, method: str) -> None:
        """A server registered ``method``: when it first watches files, the root's files are
        taken stock of, so that what changes after is told."""
        if method == disk_sync.WATCHED and self._tree is None and self.long_lived:
            self._tree = self._scan()
            self._tree_at = time.monotonic()

    def _scan(self) -> dict[str, Stamp]:
        return tree_stock(self.root)

    def announce(self, changes: Sequence[tuple[Path, int]]) -> list[ServerHandle]:
        """Tell each server whose file watchers want them of the files this workspace saw
        created (1), changed (2) or deleted (3); the servers told."""
        return disk_sync.announce(self, changes)

    def files_of(self, paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
        """The files ``paths`` name, each once, in order: a file is itself, a folder stands
        for its files that an installed server of this workspace takes (chosen as for the
        whole root: ``.gitignore``, ``.venv``, ``node_modules`` ... left out).

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
        """The root's files (those in the folder ``under``, when given) that an installed
        server of this workspace takes.

        Raises:
            ServerNotFoundError: there are none, but the root has files that a server of
                this workspace would take if it were installed (never an empty "clean").
        """
        files = root_files(self.root, self.takes, under)
        if not files:
            for path in root_files(self.root, self._would_take, under):
                for spec in self._pinned or self.registry.for_path(
                    str(path), self.config_root, trusted=self.trusted
                ):
                    if spec.language_id(str(path)) is not None:
                        raise ServerNotFoundError(
                            spec.id, spec.install, f"it would check {self.paths.relative(path)}"
                        )
        return files

    def _would_take(self, path: Path) -> bool:
        if self._pinned is not None:
            return any(spec.language_id(str(path)) is not None for spec in self._pinned)
        return bool(self.registry.for_path(str(path), self.config_root, trusted=self.trusted))

    # -- readiness -----------------------------------------------------------------------

    @_when_open
    async def ready(self, path_or_id: str | os.PathLike[str], *, timeout: float = 60) -> Readiness:
        """Wait until the server (by id) or the servers of a file are ready; see Readiness."""
        return await checking.ready(self, path_or_id, timeout)

    # -- diagnostics -----------------------------------------------------------------------

    @_when_open
    async def diagnostics(
        self, paths: Sequence[str | os.PathLike[str]] | None = None, *, timeout: float = 30
    ) -> DiagnosticsReport:
        """The diagnostics of ``paths`` (every file of the root by default), known final for
        their current text; a timeout says so per file and keeps the stale items."""
        return await checking.diagnostics(self, paths, timeout)

    @_when_open
    async def edit(
        self, path: str | os.PathLike[str], new_text: str, *, save: bool = True
    ) -> DiagnosticsDelta:
        """Change ``path`` (on disk too with ``save``, through the write path) and return
        what the change introduced and resolved in it and in every other open file, by the
        rule of ``changes.md``."""
        from . import changes

        return await changes.edit(self, path, new_text, save=save)

    @_when_open
    async def preview_edit(self, path: str | os.PathLike[str], new_text: str) -> DiagnosticsDelta:
        """What ``new_text`` in ``path`` would introduce and resolve, with nothing written:
        the servers see it as an unsaved change, then the text they had before, also when
        the call is cancelled or times out (the file's bytes and times stay as they were)."""
        from . import changes

        return await changes.preview(self, path, new_text)

    @_when_open
    async def new_since(
        self,
        rev: str,
        paths: Sequence[str | os.PathLike[str]] | None = None,
        *,
        timeout: float = 60,
    ) -> DiagnosticsReport:
        """The findings of the working tree (of ``paths``, default every file of the root)
        that are not at git revision ``rev``, by the rule of ``changes.md``; ``resolved``
        holds those of ``rev`` that are gone. ``rev`` is checked in a temporary folder of its
        committed files (no git checkout), removed afterwards (also when the call is
        cancelled).

        Raises:
            ValueError: the root is not in a git repository, or ``rev`` is unknown.
        """
        from . import revisions

        return await revisions.new_since(self, rev, paths, timeout)

    # -- navigation ------------------------------------------------------------------------

    @_when_open
    async def resolve(self, target: Target) -> Symbol:
        """The one symbol ``target`` names (an error lists the candidates of several)."""
        from . import navigation

        return await navigation.resolve(self, target)

    @_when_open
    async def definition(self, target: Target) -> Results[Location]:
        from . import navigation

        return await navigation.locations(self, target, "definition")

    @_when_open
    async def type_definition(self, target: Target) -> Results[Location]:
        from . import navigation

        return await navigation.locations(self, target, "type_definition")

    @_when_open
    async def implementation(self, target: Target) -> Results[Location]:
        from . import navigation

        return await navigation.locations(self, target, "implementation")

    @_when_open
    async def references(
        self, target: Target, *, include_declaration: bool = False, context: int = 0
    ) -> Results[Reference]:
        """Every use of what ``target`` names, each with its container and context lines."""
        from . import navigation

        return await navigation.references(self, target, include_declaration, context)

    @_when_open
    async def symbols(
        self, path: str | os.PathLike[str], *, depth: int | None = None
    ) -> Results[Symbol]:
        """The outline of ``path`` as a tree of symbols, ``depth`` levels deep (all: None)."""
        from . import navigation

        return await navigation.symbols(self, path, depth)

    @_when_open
    async def find(self, query: str, *, limit: int = 50) -> Results[Symbol]:
        """Symbols of the whole workspace whose name matches ``query`` (``workspace/symbol``),
        each placed in its file's outline so that ``path#name_path`` is a target for it."""
        from . import search

        return await search.find(self, query, limit)

    @_when_open
    async def callers(self, target: Target) -> Results[Symbol]:
        from . import navigation

        return await navigation.calls(self, target, incoming=True)

    @_when_open
    async def callees(self, target: Target) -> Results[Symbol]:
        from . import navigation

        return await navigation.calls(self, target, incoming=False)

    @_when_open
    async def hover(self, target: Target) -> str | None:
        """What the server says about ``target``, as markdown, or ``None``."""
        from . import navigation

        return await navigation.hover(self, target)

    # -- edits -----------------------------------------------------------------------------

    @_when_open
    async def rename(self, target: Target, new_name: str) -> EditPlan:
        """The plan of renaming what ``target`` names; nothing is written."""
        from . import editing

        return await editing.rename(self, target, new_name)

    @_when_open
    async def format(
        self, paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
    ) -> EditPlan:
        """The plan of formatting ``paths``; nothing is written."""
        from . import editing

        return await editing.format_files(self, paths)

    @_when_open
    async def fix(
        self,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        only: str = "source.fixAll",
    ) -> EditPlan:
        """The plan of the servers' fix-all code action on ``paths``; nothing is written."""
        from . import editing

        return await editing.fix(self, paths, only)

    @_when_open
    async def apply(self, plan: EditPlan, *, allow_outside_workspace: bool = False) -> AppliedPlan:
        """Write a plan, all or nothing, also across a crash (refused if a file changed
        since it was made, or if a path leads outside the root unless
        ``allow_outside_workspace``), then return the diagnostics delta it caused."""
        from . import editing

        return await editing.apply(self, plan, allow_outside=allow_outside_workspace)

    # -- calls to servers --------------------------------------------------------------------

    @_when_open
    async def first_answer(
        self,
        path: Path,
        method: str,
        call: Any,
        *,
        non_empty: bool = False,
        offset: int | None = None,
    ) -> tuple[ServerHandle, LspSession, Any]:
        """Ask the servers of ``path`` in order: the first that supports ``method`` answers
        (with ``non_empty``, the first whose answer is not empty). Returns the server, its
        session and the answer. ``call(session, uri)`` makes the request; with ``offset``
        (a position in the file), ``call(session, uri, offset)``: for a notebook the URI and
        offset are each server's own (a cell's, or the joined document's).

        Raises:
            LspError: ``MethodNotFound`` naming the method and the servers asked.
        """
        return await asking.first_answer(self, path, method, call, non_empty, offset)

    @_when_open
    async def ask(
        self,
        handles: Sequence[ServerHandle],
        method: str,
        call: Any,
        uri: str | None = None,
        non_empty: bool = False,
    ) -> tuple[ServerHandle, LspSession, Any]:
        """:meth:`first_answer` over ``handles`` for a call that names no file (or ``uri``)."""
        return await asking.ask(self, handles, method, call, uri, non_empty)

    @contextlib.contextmanager
    def collecting(self, handles: Sequence[ServerHandle]) -> Iterator[list[tuple[Any, str]]]:
        """While a rename, format or fix is made: the ``workspace/applyEdit``\\ s that
        ``handles``' servers send join the list (``(edit, position encoding)``), answered
        ``applied: true``; they are written if and when the plan is applied."""
        collector = _Collector(list(handles), [])
        self._collectors.append(collector)
        try:
            yield collector.edits
        finally:
            self._collectors.remove(collector)

    def _server_edit(self, handle: ServerHandle, params: Any) -> JSONObject:
        """The answer to a server's ``workspace/applyEdit``: joined to the plan being made
        with that server, else refused."""
        for collector in reversed(self._collectors):
            if handle in collector.handles:
                edit = params.get("edit") if isinstance(params, Mapping) else None
                if not isinstance(edit, Mapping):
                    return {"applied": False, "failureReason": "the request has no edit"}
                session = handle.live
                encoding = (session.position_encoding if session else None) or "utf-16"
                collector.edits.append((edit, encoding))
                return {"applied": True}
        return {"applied": False, "failureReason": REFUSED_EDIT}

    def started(self) -> list[ServerHandle]:
        """The handles of every server made so far, in the order they were made."""
        return list(self._handles.values())
