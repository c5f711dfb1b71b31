"""``Workspace``: one folder of code, spoken about in people's units.

The facade on top of the layer's floors (``docs/architecture.md``): it holds the parts
(the server choice, the open files, the root's stock) and hands each call to the floor
that answers it, which takes this workspace as the narrow ``needs`` Protocol of its floor.
The edits and questions floors are imported when first used, so that a command line that
only checks files does not pay for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from ..session import LspSession
from ..types import Disposable
from ..write_path import recover
from .checks import checking
from .closing import when_open
from .disk.units import Paths
from .edits.edit_collection import EditCollection
from .files import disk_sync
from .files.open_files import OpenFiles
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
    Target,
)
from .questions import asking
from .servers.handles import ServerHandle
from .servers.notebook_view import NotebookView
from .servers.processes import Connect
from .servers.registry import Registry, ServerSpec
from .servers.server_choice import ServerChoice, workspace_folders
from .servers.signal import Signal
from .servers.tracing import Trace
from .servers.trust import is_trusted
from .servers.untrusted_folders import UntrustedFolders

if TYPE_CHECKING:
    from .checks.edit_loop import EditLoop
    from .questions.places import Place

__all__ = ["Workspace"]


class Workspace:
    """Language servers for one folder of code (see the module's docstring).

    ``async with Workspace(root) as ws:`` starts nothing; leaving the block shuts every
    server down. Paths are relative to ``root`` or absolute. ``connect``, when given, makes
    each server's connection instead of starting its process (``adecore_lsp.testing``
    replays a trace this way); the servers then need not be installed.

    ``folders`` are the workspace's folders (sub-projects of the root): a server of the whole
    repository (``ServerSpec.roots == "repository"``) starts with each as a workspace
    folder, and is told of a file's package folder (``didChangeWorkspaceFolders``) when a
    file outside them is first opened. Servers that run per package keep their own root.
    ``None`` (the default): the root is the only folder.

    ``long_lived=False`` is for a workspace that serves one command (the command line's):
    the root's files are not taken stock of for changes that would come later.
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
        folders: Sequence[str | os.PathLike[str]] | None = None,
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
        self.trust = trust  # as given: None lets the environment and the store decide
        self.trusted = is_trusted(self.config_root, trust)
        self._on_untrusted = on_untrusted
        self.folders = None if folders is None else workspace_folders(self.root, folders)
        """The workspace folders given (absolute), or ``None``: the root is the only one."""
        self.server_choice = ServerChoice(
            self.paths,
            self.config_root,
            registry if registry is not None else Registry.default(),
            servers,
            trusted=self.trusted,
            connect=connect,
            make_handle=self._new_handle,
            folders=self.folders,
            trust=trust,
            on_notice=self._notice,
        )
        """Which servers take a file, where each runs, and the handles made so far."""
        self.registry = self.server_choice.registry
        self.untrusted_folders = UntrustedFolders(
            self.root,
            self.config_root,
            self.server_choice.projects,
            trusted=self.trusted,
            trust=trust,
        )
        """The folders that are not trusted: the root, or nested projects."""
        self.untrusted_notice = None if self.trusted else self.server_choice.notice()
        if self.untrusted_notice is not None:
            self._notice(self.untrusted_notice, stacklevel=3)
        self.timeout = timeout
        self._connect = connect
        self.max_restarts = max_restarts
        self.max_open_files = max_open_files
        self.long_lived = long_lived
        self._trace = Trace(trace) if trace is not None else None
        self.changed = Signal()
        self.open_files = OpenFiles(self.paths, self.server_choice)
        """The open files, their texts, and the servers' copies of them."""
        self.texts = self.open_files.texts
        self._progress_listeners: list[Callable[[str, Any], object]] = []
        self._edits = EditCollection()
        self.tree = disk_sync.TreeStock(self.root)
        """The root's files as last looked at, for the servers that watch files."""
        self.edit_loop: EditLoop | None = None
        """The import graph and the answers kept for edits (:mod:`.edit_loop`), made when an
        edit first needs them."""

    def _notice(self, text: str, stacklevel: int = 2) -> None:
        """What an untrusted configuration ignored: to ``on_untrusted``, else a warning."""
        if self._on_untrusted is None:
            warnings.warn(text, UserWarning, stacklevel=stacklevel + 1)
        else:
            self._on_untrusted(text)

    def twin(self, root: Path) -> Workspace:
        """A workspace like this one on ``root`` (a checkout of a revision of its tree): the
        same servers (executables judged alike), registry, timeouts, trust and configuration;
        its notices of untrusted settings are this one's already."""
        return Workspace(
            root,
            servers=self.server_choice.twin_servers(),
            registry=self.server_choice.base_registry,
            timeout=self.timeout,
            max_open_files=self.max_open_files,
            connect=self.server_choice.connect,
            trust=self.trust,
            on_untrusted=lambda _notice: None,
            config_root=self.config_root,
        )

    def which(self, spec: ServerSpec) -> str | None:
        """The executable of ``spec`` here: inside the root only when the root is trusted
        or the caller made the spec itself. Looked up again after ``WHICH_FOR`` seconds (a
        check of many files asks for each; a server installed meanwhile is still found)."""
        return self.server_choice.which(spec)

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` was called (a closed workspace starts nothing again)."""
        return self.server_choice.closed

    def watch_tree(self) -> None:
        """Take stock of the root's files (the first time), so that :meth:`sync_disk` sees
        the files created, changed or deleted since: announced to the servers that watch
        them, and restarting a server that watches none when files were created or deleted
        under its root. The next ``sync_disk`` looks at once. A workspace kept between
        commands (the daemon's) calls it before each command."""
        self.tree.watch()

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
        if self.server_choice.closed:
            return
        cancelled = await self.server_choice.close()
        if self._trace is not None:
            self._trace.close()
        if cancelled:
            raise asyncio.CancelledError

    # -- servers -------------------------------------------------------------------------

    def takes(self, path: Path) -> bool:
        """Whether an installed server of this workspace takes ``path`` (with ``connect``,
        any server of it: none need be installed)."""
        return self.server_choice.takes(path)

    def handles_for(self, path: Path) -> list[ServerHandle]:
        """The server handles for ``path`` (made, not started).

        Raises:
            LspError: the workspace is closed: it starts nothing.
        """
        return self.server_choice.handles_for(path)

    def _new_handle(self, spec: ServerSpec, root: Path, executable: str) -> ServerHandle:
        """The handle of ``spec``'s server for ``root`` (not started), reporting to this
        workspace: its progress, the edits it sends, what it registers."""
        return ServerHandle(
            spec,
            root,
            executable,
            timeout=self.timeout,
            max_restarts=self.max_restarts,
            trace=self._trace,
            changed=self.changed,
            progress=self._progress_listeners,
            connect=self._connect,
            on_apply_edit=self._edits.answer,
            on_registered=self._registered,
            notebooks_in_root=self.open_files.notebooks_in_root,
            folders=self.folders if spec.roots == "repository" else None,
            untrusted=self.untrusted_folders,
        )

    @when_open
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
            for handle in self.server_choice.handles
            if handle.state != "stopped" or handle.restarts
        ]

    @when_open
    async def restart(self, server: str | None = None) -> list[ServerStatus]:
        """Restart one server (by id) or every one, documents re-opened."""
        made = self.server_choice.started()
        handles = [h for h in made if server is None or h.spec.id == server]
        if server is not None and not handles:
            started = sorted({h.spec.id for h in made})
            raise ValueError(f"no server {server!r} has been started here; started: {started}")
        await asyncio.gather(*(handle.restart() for handle in handles))
        return [handle.status() for handle in handles]

    # -- files ---------------------------------------------------------------------------

    def notebook(self, path_or_uri: str | os.PathLike[str]) -> NotebookView | None:
        """The open notebook at a path or URI (of the notebook, one of its cells, or its
        joined document), else ``None``."""
        return self.open_files.notebook(path_or_uri)

    def file(self, path: str | os.PathLike[str]) -> Path:
        """The absolute path of an existing file.

        Raises:
            ValueError: a path that is not a file, naming it.
        """
        return self.open_files.file(path)

    @when_open
    async def open(self, path: str | os.PathLike[str]) -> list[ServerHandle]:
        """Open ``path`` in every server that takes it; the handles that have it."""
        return await self.open_files.open(path)

    @when_open
    async def update(self, path: str | os.PathLike[str], text: str) -> None:
        """Give the servers a new, unsaved text of ``path`` (the disk is left alone)."""
        await self.open_files.update(path, text)

    async def close(self, path: str | os.PathLike[str]) -> None:
        """Close ``path`` in every server that has it open (after ``aclose``: nothing)."""
        if not self.server_choice.closed:
            self.open_files.close(path)

    @when_open
    async def write(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path`` through the write path (inside the root, atomic) and
        send it to the servers that take it."""
        await self.open_files.write(path, text)
        self.announce([(path, 2)])

    @when_open
    async def adopt(self, path: Path, text: str) -> None:
        """Take ``text`` as what ``path`` now holds on disk, and send it to its servers (a
        notebook's servers that ask for saves hear that it was saved)."""
        await self.open_files.adopt(path, text)

    @when_open
    async def sync_disk(self) -> None:
        """Make the servers see the disk as it is now (``workspace-api.md``, "the disk is
        the truth"): what :func:`.disk_sync.sync_disk` says."""
        await disk_sync.sync_disk(self)

    def _registered(self, method: str) -> None:
        """A server registered ``method``: when it first watches files, the root's files are
        taken stock of, so that what changes after is told."""
        if method == disk_sync.WATCHED and self.long_lived:
            self.tree.start()

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
        return self.server_choice.files_of(paths)

    def root_files(self, under: Path | None = None) -> list[Path]:
        """The root's files (those in the folder ``under``, when given) that an installed
        server of this workspace takes.

        Raises:
            ServerNotFoundError: there are none, but the root has files that a server of
                this workspace would take if it were installed (never an empty "clean").
        """
        return self.server_choice.root_files(under)

    # -- readiness -----------------------------------------------------------------------

    @when_open
    async def ready(self, path_or_id: str | os.PathLike[str], *, timeout: float = 60) -> Readiness:
        """Wait until the server (by id) or the servers of a file are ready; see Readiness."""
        return await checking.ready(self, path_or_id, timeout)

    # -- diagnostics -----------------------------------------------------------------------

    @when_open
    async def diagnostics(
        self, paths: Sequence[str | os.PathLike[str]] | None = None, *, timeout: float = 30
    ) -> DiagnosticsReport:
        """The diagnostics of ``paths`` (every file of the root by default), known final for
        their current text. ``timeout`` bounds each server's silence, not its work; a file
        whose server was given up on says so and keeps its stale items."""
        return await checking.diagnostics(self, paths, timeout)

    @when_open
    async def edit(
        self, path: str | os.PathLike[str], new_text: str, *, save: bool = True
    ) -> DiagnosticsDelta:
        """Change ``path`` (on disk too with ``save``, through the write path) and return
        what the change introduced and resolved in it and in the files that depend on it
        (its affected set, open or not), by the rule of ``changes.md``."""
        from .checks import changes

        return await changes.edit(self, path, new_text, save=save)

    @when_open
    async def preview_edit(self, path: str | os.PathLike[str], new_text: str) -> DiagnosticsDelta:
        """What ``new_text`` in ``path`` would introduce and resolve, with nothing written:
        the servers see it as an unsaved change, then the text they had before, also when
        the call is cancelled or times out (the file's bytes and times stay as they were)."""
        from .checks import changes

        return await changes.preview(self, path, new_text)

    @when_open
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
        committed files (no checkout), removed afterwards, also when the call is cancelled.
        Raises ValueError when the root is not in a git repository or ``rev`` is unknown."""
        from .checks import revisions

        return await revisions.new_since(self, rev, paths, timeout)

    # -- navigation ------------------------------------------------------------------------

    @when_open
    async def place(
        self,
        target: Target | Place,
        *,
        base: Path | None = None,
        check: Callable[[str], object] | None = None,
        whole: bool = False,
    ) -> Place:
        """``target`` resolved once into the Place the calls below take (a Place as it is):
        what the command line and the MCP server make of a user's target; see
        :func:`.places.place` for ``base``, ``check`` and ``whole``."""
        from .questions import places

        if isinstance(target, places.Place) and (target.whole is not None or not whole):
            return target  # made once already: handed on as it is
        return await places.place(self, target, base=base, check=check, whole=whole)

    @when_open
    async def resolve(self, target: Target) -> Symbol:
        """The one symbol ``target`` names (an error lists the candidates of several)."""
        from .questions import places

        return await places.resolve(self, target)

    @when_open
    async def definition(self, target: Target | Place) -> Results[Location]:
        from .questions import navigation

        return await navigation.locations(self, await self.place(target), "definition")

    @when_open
    async def type_definition(self, target: Target | Place) -> Results[Location]:
        from .questions import navigation

        return await navigation.locations(self, await self.place(target), "type_definition")

    @when_open
    async def implementation(self, target: Target | Place) -> Results[Location]:
        from .questions import navigation

        return await navigation.locations(self, await self.place(target), "implementation")

    @when_open
    async def references(
        self, target: Target | Place, *, include_declaration: bool = False, context: int = 0
    ) -> Results[Reference]:
        """Every use of what ``target`` names, each with its container and context lines."""
        from .questions import navigation

        place = await self.place(target, whole=True)
        return await navigation.references(self, place, include_declaration, context)

    @when_open
    async def symbols(
        self, path: str | os.PathLike[str], *, depth: int | None = None
    ) -> Results[Symbol]:
        """The outline of ``path`` as a tree of symbols, ``depth`` levels deep (all: None)."""
        from .questions import navigation

        return await navigation.symbols(self, path, depth)

    @when_open
    async def find(self, query: str, *, limit: int = 50) -> Results[Symbol]:
        """Symbols of the whole workspace whose name matches ``query`` (``workspace/symbol``),
        each placed in its file's outline so that ``path#name_path`` is a target for it."""
        from .questions import search

        return await search.find(self, query, limit)

    @when_open
    async def callers(self, target: Target | Place) -> Results[Symbol]:
        from .questions import navigation

        return await navigation.calls(self, await self.place(target, whole=True), incoming=True)

    @when_open
    async def callees(self, target: Target | Place) -> Results[Symbol]:
        from .questions import navigation

        return await navigation.calls(self, await self.place(target, whole=True), incoming=False)

    @when_open
    async def hover(self, target: Target | Place) -> str | None:
        """What the server says about ``target``, as markdown, or ``None``."""
        from .questions import navigation

        return await navigation.hover(self, await self.place(target))

    # -- edits -----------------------------------------------------------------------------

    @when_open
    async def rename(self, target: Target | Place, new_name: str) -> EditPlan:
        """The plan of renaming what ``target`` names; nothing is written."""
        from .edits import editing

        editing.check_name(new_name)
        return await editing.rename(self, await self.place(target, whole=True), new_name)

    @when_open
    async def format(
        self, paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
    ) -> EditPlan:
        """The plan of formatting ``paths``; nothing is written."""
        from .edits import editing

        return await editing.format_files(self, paths)

    @when_open
    async def fix(
        self,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        only: str = "source.fixAll",
    ) -> EditPlan:
        """The plan of the servers' fix-all code action on ``paths``; nothing is written."""
        from .edits import editing

        return await editing.fix(self, paths, only)

    @when_open
    async def apply(self, plan: EditPlan, *, allow_outside_workspace: bool = False) -> AppliedPlan:
        """Write a plan, all or nothing, also across a crash (refused if a file changed
        since it was made, or if a path leads outside the root unless
        ``allow_outside_workspace``), then return the diagnostics delta it caused."""
        from .edits import editing

        return await editing.apply(self, plan, allow_outside=allow_outside_workspace)

    # -- calls to servers --------------------------------------------------------------------

    @when_open
    async def first_answer(
        self,
        path: Path,
        method: str,
        call: Any,
        *,
        non_empty: bool = False,
        offset: int | None = None,
    ) -> tuple[ServerHandle, LspSession, Any]:
        """Ask the servers of ``path`` in order: the first that supports ``method`` (with
        ``non_empty``, whose answer is not empty) answers; :func:`.questions.asking.first_answer`
        says how ``call`` and ``offset`` are used, and what it raises."""
        return await asking.first_answer(self, path, method, call, non_empty, offset)

    @when_open
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
        with self._edits.collecting(handles) as edits:
            yield edits

    def started(self) -> list[ServerHandle]:
        """The handles of every server made so far, in the order they were made."""
        return self.server_choice.started()
