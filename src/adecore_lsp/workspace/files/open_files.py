"""The files a workspace has open: their texts, what the disk was, and their servers' copies.

:class:`OpenFiles` keeps each open file's text (read from disk, or an unsaved update) by URI,
and each open notebook as its servers have it (its cells' and joined document's texts by
their URIs). Opening, updating, adopting a written text and closing go through it, so the
servers always hold what it holds; :attr:`OpenFiles.texts` gives the text conversions of
positions need.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Collection, ItemsView, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import WorkspaceClosedError
from ...write_path import WriteSet
from ..disk.listing import DiskState, confined, read_text, root_files
from ..disk.units import Paths, Texts
from ..servers.handles import ServerHandle
from ..servers.notebook_view import NotebookView, is_notebook, view_of
from ..servers.server_choice import ServerChoice
from ..servers.untrusted_folders import ServerRefusedError
from .notebooks import (
    close_in,
    open_in,
    say_saved,
    takes_language,
)

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


@dataclass
class OpenFile:
    """A file the workspace has open: its text, what the disk was, whether it is unsaved."""

    path: Path
    text: str
    disk: DiskState | None
    unsaved: bool = False
    read_at: float = field(default_factory=time.time)
    """When ``text`` was read (the wall clock, as ``st_ctime`` is)."""


class OpenFiles:
    """The open files of one workspace, by URI, and the servers' copies of them."""

    def __init__(self, paths: Paths, servers: ServerChoice) -> None:
        self.paths = paths
        self.root = paths.root
        self._servers = servers
        self._open: dict[str, OpenFile] = {}
        self._notebooks: dict[str, NotebookView] = {}
        """The open notebooks by URI, as their servers have them."""
        self._cell_texts: dict[str, str] = {}
        """The text behind each cell URI and joined-document URI of an open notebook."""
        self._notebook_parts: dict[str, NotebookView] = {}
        """Each open notebook by the URIs of its cells and of its joined document."""
        self.texts = Texts(self.current_text, paths.root)
        self._in_root: bool | None = None

    # -- what is open ---------------------------------------------------------------------

    def get(self, uri: str) -> OpenFile | None:
        """The open file at ``uri``, else ``None``."""
        return self._open.get(uri)

    def __contains__(self, uri: object) -> bool:
        return uri in self._open

    def items(self) -> ItemsView[str, OpenFile]:
        """Every open file by URI (a live view: copy it to open or close files meanwhile)."""
        return self._open.items()

    def keep(self, known: OpenFile) -> str:
        """Take ``known`` as what its file holds now (as it was before a preview); its URI.
        The servers hear of it with :meth:`send`."""
        uri = self.paths.uri(known.path)
        self._open[uri] = known
        return uri

    def current_text(self, uri: str) -> str | None:
        """The text of an open file, notebook cell or joined document; ``None`` if not open."""
        known = self._open.get(uri)
        if known is None:
            return self._cell_texts.get(uri)
        return known.text

    @property
    def has_notebooks(self) -> bool:
        """Whether a notebook is open."""
        return bool(self._notebooks)

    def notebooks_in_root(self) -> bool:
        """Whether the root holds a notebook (looked for once)."""
        if self._in_root is None:
            self._in_root = self.has_notebooks or bool(root_files(self.root, is_notebook))
        return self._in_root

    def view(self, uri: str) -> NotebookView | None:
        """The open notebook whose file has ``uri``, else ``None``."""
        return self._notebooks.get(uri)

    def notebook(self, path_or_uri: str | os.PathLike[str]) -> NotebookView | None:
        """``Workspace.notebook``: the open notebook at a path or URI (of the notebook, one
        of its cells, or its joined document), else ``None``."""
        if isinstance(path_or_uri, str) and ":" in path_or_uri[:30]:
            found = self._notebooks.get(path_or_uri)
            return found if found is not None else self._notebook_parts.get(path_or_uri)
        return self._notebooks.get(self.paths.uri(self.paths.absolute(path_or_uri)))

    def file(self, path: str | os.PathLike[str]) -> Path:
        """``Workspace.file``: the absolute path of an existing file.

        Raises:
            ValueError: a path that is not a file, naming it.
            LinkOutOfRootError: a path inside the root whose real path is not (a
                ``ValueError``), naming it: it is never read.
        """
        return self._is_file(self.paths.absolute(path))

    def _is_file(self, full: Path) -> Path:
        if not full.is_file():
            raise ValueError(f"{self.paths.relative(full)} is not a file (the root is {self.root})")
        return confined(self.root, full, self.paths.relative(full))

    # -- opening, changing, closing ---------------------------------------------------------

    async def open(
        self, path: str | os.PathLike[str], servers: Collection[str] | None = None
    ) -> list[ServerHandle]:
        """``Workspace.open``: ``path`` opened in every server that takes it (with
        ``servers``, in those of these ids only: a check's scope); the handles."""
        full = self.paths.absolute(path)
        return await self.open_at(full, self.paths.uri(full), servers)

    async def open_at(
        self,
        full: Path,
        uri: str,
        servers: Collection[str] | None = None,
        *,
        handles: Sequence[ServerHandle] | None = None,
    ) -> list[ServerHandle]:
        """:meth:`open` of an absolute path whose URI is known already (a resolved place);
        with ``servers``, only in the servers of those ids (a check's scope); with
        ``handles``, the file's servers as ``handles_for`` gave them already.

        Raises:
            LspError: the workspace is closed: it starts nothing; or the only servers that
                take the file may not start here (``ServerRefusedError``, saying why).
        """
        if self._servers.closed:
            raise WorkspaceClosedError()
        known = self._open.get(uri)
        if known is None:
            disk = DiskState.of_file(full)
            if disk is None:
                self._is_file(full)  # raises, naming the path
            confined(self.root, full, self.paths.relative(full))
            known = OpenFile(full, read_text(full), disk)
            self._open[uri] = known
        else:
            self._is_file(full)
        return await self.send(full, uri, known.text, servers, handles=handles)

    async def send(
        self,
        full: Path,
        uri: str,
        text: str,
        servers: Collection[str] | None = None,
        *,
        handles: Sequence[ServerHandle] | None = None,
    ) -> list[ServerHandle]:
        """Give ``text`` of ``full`` to every server that takes it (those of ``servers``'
        ids, when given; ``handles``, when ``handles_for`` gave them already), opening it
        there or sending the change; the handles that have it. A new text of a file that
        the server of another package has open too (a declaration, opened there for a
        question about its uses) goes there as well; that server is not among those
        returned (its findings about the file are not the file's)."""
        if handles is None and servers is None:
            self._also_elsewhere(full, uri, text)
        handles = self._servers.handles_for(full) if handles is None else list(handles)
        if servers is not None:
            handles = [handle for handle in handles if handle.spec.id in servers]
        # A server that may not start here (``.untrusted_folders``) is not started to take a
        # file; when no other takes it, that is the error, saying why.
        refused = [(handle, why) for handle in handles if (why := handle.refusal()) is not None]
        if refused:
            handles = [handle for handle in handles if handle.refusal() is None]
            if not handles:
                raise ServerRefusedError(refused[0][0].spec.id, refused[0][1])
        view = None
        if is_notebook(full):
            view = self._notebooks.get(uri)
            if view is None or view.notebook.text != text:
                view = view_of(full, uri, text)  # InvalidNotebookError: the file's own error
                self.forget_cells(uri)
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
        folders = self._servers.folders
        for handle, session in zip(handles, sessions, strict=False):
            if handle.spec.roots == "repository" and (
                folders is not None or handle.spec.folder_per_configuration
            ):
                # A file of a folder the server was not told of: told first (ruff gives a
                # file outside its folders its default settings, not its package's).
                handle.tell_folder(session, self._servers.folder_for(handle.spec, full))
            if view is not None:
                open_in(handle, session, view)
                continue
            spec = handle.spec
            language_id = spec.language_id(full) or spec.format_language_id(full) or "plaintext"
            handle.open(session, uri, language_id, text)
        self.texts.forget(uri)
        return handles

    def _also_elsewhere(self, full: Path, uri: str, text: str) -> None:
        """``text`` to the servers of other roots that have ``full`` open (a file of
        another package, opened there for a question about its uses)."""
        own = self._servers.handles_for(full)
        for handle in self._servers.handles:
            if handle in own or uri not in handle.documents:
                continue
            language_id = handle.documents[uri][0]
            live = handle.ready_session()
            if live is not None:
                handle.open(live, uri, language_id, text)
            else:
                handle.documents[uri] = (language_id, text)  # opened so when it starts again

    async def update(self, path: str | os.PathLike[str], text: str) -> None:
        """``Workspace.update``: a new, unsaved text of ``path`` for its servers."""
        full = self.paths.absolute(path)
        uri = self.paths.uri(full)
        self._open[uri] = OpenFile(full, text, DiskState.of(full), unsaved=True)
        await self.send(full, uri, text)

    def close(self, path: str | os.PathLike[str]) -> None:
        """``Workspace.close``: ``path`` closed in every server that has it open."""
        full = self.paths.absolute(path)
        uri = self.paths.uri(full)
        self._open.pop(uri, None)
        self.texts.forget(uri)
        self.forget_cells(uri)
        for handle in self._servers.handles:
            if uri in handle.documents:
                handle.close(uri)
            if uri in handle.notebooks:
                close_in(handle, uri)

    def forget_cells(self, uri: str) -> None:
        """Forget an open notebook's cell and joined texts (it changed or closed)."""
        view = self._notebooks.pop(uri, None)
        if view is not None:
            for known in view.texts():
                self._cell_texts.pop(known, None)
                self._notebook_parts.pop(known, None)
                self.texts.forget(known)

    async def write(self, path: Path, text: str) -> None:
        """``Workspace.write``, but for the telling of watchers: ``text`` written to ``path``
        through the write path and sent to its servers."""
        writes = WriteSet(self.root, name=self.paths.relative)
        writes.write(path, text.encode("utf-8"))
        writes.commit()
        await self.adopt(path, text)

    async def adopt(self, path: Path, text: str) -> None:
        """``Workspace.adopt``: ``text`` taken as what ``path`` holds on disk, sent to its
        servers (a notebook's servers that ask for saves hear that it was saved)."""
        uri = self.paths.uri(path)
        self._open[uri] = OpenFile(path, text, DiskState.of(path))
        handles = await self.send(path, uri, text)
        view = self._notebooks.get(uri)
        if view is not None:
            for handle in handles:
                if handle.live is not None:
                    say_saved(handle, handle.live, view)
