"""Applying ``WorkspaceEdit``\\ s and ``TextEdit[]`` to documents and files, all or nothing.

The checks and the new texts come from :mod:`adecore_lsp.protocol.shapes.workspace_edit`;
this module gives the planner its view of the workspace (where a URI leads, inside the
workspace or not, what is on disk), then hands every file change to the one write path
(:mod:`adecore_lsp.write_path`: confined, crash-atomic, refusing a file changed since the
planner read it) and, once the files are written, brings the open documents in step
(changed, closed, opened again). The file I/O is plain synchronous code inside the
coroutine: with no ``await`` between planning and writing, nothing else on the loop can see
or change the workspace half-way, and a cancellation cannot stop a transaction midway.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from ..errors import LspError
from ..options import Confirm
from ..paths import path_to_uri, uri_to_path
from ..protocol.documents.documents import TextDocument
from ..protocol.shapes.workspace_edit import (
    CloseDocument,
    CreateFile,
    DeleteFile,
    EditPlan,
    Kind,
    OpenDocument,
    Operation,
    Refusal,
    RenameFile,
    WriteText,
    needs_confirmation,
    parse_edit,
    plan_edit,
)
from ..types import JSONObject
from ..write_path import WriteError, WriteSet

if TYPE_CHECKING:
    from ..session import LspSession

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


async def apply_edit(
    session: LspSession,
    edit: Any,
    *,
    save: bool = True,
    allow_outside_workspace: bool = False,
    confirm: Confirm | None = None,
) -> JSONObject:
    """Apply a ``WorkspaceEdit``; an ``ApplyWorkspaceEditResult``, never an exception for a
    refused edit. (An exception raised by ``confirm`` is the caller's and propagates.)"""
    parsed = parse_edit(edit)
    if isinstance(parsed, Refusal):
        return parsed.result()
    confirmed: set[str] = set()
    if confirm is not None:
        for annotation_id, annotation in needs_confirmation(parsed).items():
            answer = confirm(dict(annotation))
            if inspect.isawaitable(answer):
                answer = await answer
            if answer is True:
                confirmed.add(annotation_id)
    view = _View(session, allow_outside_workspace)
    encoding = session.position_encoding or "utf-16"
    plan = plan_edit(parsed, view, view.open_documents(), encoding, confirmed)
    if isinstance(plan, Refusal):
        return plan.result()
    return _Transaction(session, save, view).run(plan)


async def apply_text_edits(
    session: LspSession, uri: str, edits: Sequence[Mapping[str, Any]], *, save: bool = True
) -> JSONObject:
    """Apply a ``TextEdit[]`` (every edit against the text before any of them) to ``uri``.

    The document the caller names may be outside the workspace; it must be a ``file:`` URI.
    """
    change = {"textDocument": {"uri": uri, "version": None}, "edits": list(edits)}
    return await apply_edit(
        session, {"documentChanges": [change]}, save=save, allow_outside_workspace=True
    )


async def answer_apply_edit(session: LspSession, params: Any) -> JSONObject:
    """Answer a server's ``workspace/applyEdit`` (``{label?, edit}``) with :func:`apply_edit`.

    Nobody is there to confirm: a change that needs confirmation is refused.
    """
    if not isinstance(params, Mapping) or "edit" not in params:
        return Refusal(f"workspace/applyEdit needs params with an edit, got {params!r}").result()
    return await apply_edit(session, params["edit"])


# -- the view of the workspace ---------------------------------------------------------


class _View:
    """Where URIs lead and what is on disk, for the planner; remembers what it saw, which
    the files must still hold when they are written."""

    def __init__(self, session: LspSession, allow_outside: bool) -> None:
        self._session = session
        self.allow_outside = allow_outside
        roots: list[Path] = []
        options = session.options
        uris: list[object] = [options.root_uri] if options.root_uri else []
        uris += [folder.get("uri") for folder in options.workspace_folders or ()]
        for uri in uris:
            try:
                roots.append(uri_to_path(uri).resolve())  # type: ignore[arg-type]
            except (TypeError, ValueError, OSError):
                continue
        self.roots = roots
        self.seen: dict[PurePath, str | None] = {}
        """Each file the planner read (its text) or found missing (``None``)."""

    def open_documents(self) -> dict[PurePath, TextDocument]:
        found: dict[PurePath, TextDocument] = {}
        for uri, document in self._session.documents.items():
            try:
                found[uri_to_path(uri).resolve()] = document
            except (ValueError, OSError):
                continue
        return found

    def locate(self, uri: str, *, follow_links: bool) -> PurePath:
        path = uri_to_path(uri)
        if not path.is_absolute():
            raise ValueError(f"{uri} does not name an absolute path")
        if follow_links or path.name in ("", ".", ".."):
            resolved = path.resolve()
        else:
            resolved = path.parent.resolve() / path.name
        if not self.allow_outside and not any(
            root == resolved or root in resolved.parents for root in self.roots
        ):
            if not self.roots:
                raise ValueError(
                    f"{uri} is outside the workspace (the session has no root_uri "
                    "and no workspace_folders)"
                )
            raise ValueError(f"{uri} is outside the workspace")
        return resolved

    def kind(self, path: PurePath) -> Kind | None:
        real = Path(path)
        if real.is_symlink():
            return "file"  # a link is renamed or deleted itself, never what it points at
        if real.is_dir():
            return "folder"
        if real.exists():
            return "file"
        self.seen.setdefault(path, None)
        return None

    def read(self, path: PurePath) -> str:
        with open(path, encoding="utf-8", newline="") as file:
            text = file.read()
        self.seen.setdefault(path, text)
        return text

    def is_empty(self, path: PurePath) -> bool:
        with os.scandir(path) as entries:
            return next(entries, None) is None

    def uri(self, path: PurePath) -> str:
        return path_to_uri(path)


# -- the transaction -------------------------------------------------------------------


class _Transaction:
    """Writes a plan's files through the write path, then brings the documents in step."""

    def __init__(self, session: LspSession, save: bool, view: _View) -> None:
        self._session = session
        self._save = save
        self._view = view

    def run(self, plan: EditPlan) -> JSONObject:
        view = self._view
        writes = WriteSet(view.roots, allow_outside=view.allow_outside)
        try:
            for path, text in view.seen.items():
                writes.expect(path, None if text is None else text.encode("utf-8"))
            for operation in plan.operations:
                self._add(writes, operation)
            writes.commit()
        except WriteError as error:
            if error.change is None:
                return Refusal(error.message).result()
            return Refusal(f"change {error.change}: {error.message}", error.change).result()
        except LspError as error:
            return Refusal(error.message).result()
        session = self._session
        to_save: list[str] = []
        for operation in plan.operations:
            if isinstance(operation, WriteText) and operation.document is not None:
                session.change_document(operation.document, operation.text)
                if self._save:
                    to_save.append(operation.document)
            elif isinstance(operation, CloseDocument):
                session.close_document(operation.uri)
            elif isinstance(operation, OpenDocument):
                session.open_document(operation.uri, operation.language_id, operation.text)
        for uri in dict.fromkeys(to_save):
            if uri in session.documents:
                session.save_document(uri)
        return {"applied": True}

    def _add(self, writes: WriteSet, operation: Operation) -> None:
        """The file changes of one planned operation, as steps of the write set."""
        change = operation.change
        if isinstance(operation, WriteText):
            if operation.document is None or self._save:
                writes.write(operation.path, operation.text.encode("utf-8"), change=change)
        elif isinstance(operation, CreateFile):
            for parent in operation.parents:
                writes.make_folder(parent, change=change)
            writes.write(operation.path, b"", change=change)
        elif isinstance(operation, RenameFile):
            for parent in operation.parents:
                writes.make_folder(parent, change=change)
            writes.rename(
                operation.old, operation.new, overwrite=operation.overwrite, change=change
            )
        elif isinstance(operation, DeleteFile):
            writes.delete(operation.path, recursive=operation.recursive, change=change)
