"""Applying ``WorkspaceEdit``\\ s and ``TextEdit[]`` to documents and files, all or nothing.

The checks and the new texts come from :mod:`adecore_lsp.protocol.shapes.workspace_edit`; this
module gives the planner its view of the workspace (where a URI leads, inside the workspace
or not, what is on disk) and then runs the plan as one transaction: every step is logged
with the way to undo it, and when one fails the steps before it are undone in reverse order
(files written get their old bytes back, created files and folders go, renames go back,
deleted files come back from where they were set aside, documents get their old text, or
are opened or closed again). The file I/O is plain synchronous code inside the coroutine:
with no ``await`` between the first change and the last, nothing else on the loop can see
or change the workspace half-way, and a cancellation cannot stop a transaction midway.
"""

from __future__ import annotations

import inspect
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, BinaryIO

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
    return _Transaction(session, save).run(plan)


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
    """Where URIs lead and what is on disk, for the planner."""

    def __init__(self, session: LspSession, allow_outside: bool) -> None:
        self._session = session
        self._allow_outside = allow_outside
        roots: list[Path] = []
        options = session.options
        uris: list[object] = [options.root_uri] if options.root_uri else []
        uris += [folder.get("uri") for folder in options.workspace_folders or ()]
        for uri in uris:
            try:
                roots.append(uri_to_path(uri).resolve())  # type: ignore[arg-type]
            except (TypeError, ValueError, OSError):
                continue
        self._roots = roots

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
        if not self._allow_outside and not any(
            root == resolved or root in resolved.parents for root in self._roots
        ):
            if not self._roots:
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
        return "file" if real.exists() else None

    def read(self, path: PurePath) -> str:
        with open(path, encoding="utf-8", newline="") as file:
            return file.read()

    def is_empty(self, path: PurePath) -> bool:
        with os.scandir(path) as entries:
            return next(entries, None) is None

    def uri(self, path: PurePath) -> str:
        return path_to_uri(path)


# -- the transaction -------------------------------------------------------------------


class _Transaction:
    """Runs a plan's operations, undoing them all if one fails."""

    def __init__(self, session: LspSession, save: bool) -> None:
        self._session = session
        self._save = save
        self._undo: list[Callable[[], None]] = []
        self._set_aside: list[Path] = []
        self._to_save: list[str] = []

    def run(self, plan: EditPlan) -> JSONObject:
        for operation in plan.operations:
            try:
                self._do(operation)
            except (OSError, ValueError, LspError) as error:
                reason = f"change {operation.change}: {_describe(error)}"
                problems = self._roll_back()
                if problems:
                    reason += "; restoring failed too: " + "; ".join(problems)
                return Refusal(reason, operation.change).result()
        for path in self._set_aside:
            _remove(path)
        session = self._session
        for uri in dict.fromkeys(self._to_save):
            if uri in session.documents:
                session.save_document(uri)
        return {"applied": True}

    def _roll_back(self) -> list[str]:
        problems: list[str] = []
        for undo in reversed(self._undo):
            try:
                undo()
            except (OSError, ValueError, LspError) as error:
                problems.append(_describe(error))
        return problems

    def _do(self, operation: Operation) -> None:
        if isinstance(operation, WriteText):
            self._write_text(operation)
        elif isinstance(operation, CreateFile):
            self._create(operation)
        elif isinstance(operation, RenameFile):
            self._rename(operation)
        elif isinstance(operation, DeleteFile):
            self._set_aside.append(self._move_aside(Path(operation.path)))
        elif isinstance(operation, CloseDocument):
            self._close(operation.uri)
        else:
            self._open(operation)

    # -- documents ---------------------------------------------------------------------

    def _write_text(self, operation: WriteText) -> None:
        session, uri = self._session, operation.document
        if uri is None:
            self._write(Path(operation.path), operation.text)
            return
        old = session.documents[uri].text
        session.change_document(uri, operation.text)
        self._undo.append(lambda: self._restore_document(uri, old))
        if self._save:
            self._write(Path(operation.path), operation.text)
            self._to_save.append(uri)

    def _restore_document(self, uri: str, text: str) -> None:
        if uri in self._session.documents:
            self._session.change_document(uri, text)

    def _close(self, uri: str) -> None:
        session = self._session
        document = session.documents[uri]
        session.close_document(uri)

        def reopen() -> None:
            session.open_document(uri, document.language_id, document.text)

        self._undo.append(reopen)

    def _open(self, operation: OpenDocument) -> None:
        session, uri = self._session, operation.uri
        session.open_document(uri, operation.language_id, operation.text)
        self._undo.append(lambda: session.close_document(uri))

    # -- files -------------------------------------------------------------------------

    def _write(self, path: Path, text: str) -> None:
        """Replace the file's contents atomically, keeping its mode; undone with its old bytes."""
        try:
            old: bytes | None = path.read_bytes()
        except FileNotFoundError:
            old = None
        _replace_contents(path, text.encode("utf-8"))
        if old is None:
            self._undo.append(path.unlink)
        else:
            self._undo.append(lambda: _replace_contents(path, old))

    def _make_parents(self, parents: tuple[PurePath, ...]) -> None:
        for parent in parents:
            folder = Path(parent)
            folder.mkdir()
            self._undo.append(folder.rmdir)

    def _create(self, operation: CreateFile) -> None:
        path = Path(operation.path)
        self._make_parents(operation.parents)
        if operation.overwrite and os.path.lexists(path):
            self._write(path, "")
            return
        with open(path, "x", encoding="utf-8"):
            pass
        self._undo.append(path.unlink)

    def _rename(self, operation: RenameFile) -> None:
        old, new = Path(operation.old), Path(operation.new)
        self._make_parents(operation.parents)
        if os.path.lexists(new):
            if not operation.overwrite:
                raise FileExistsError(f"{new} exists")
            self._set_aside.append(self._move_aside(new))
        os.rename(old, new)
        self._undo.append(lambda: os.rename(new, old))

    def _move_aside(self, path: Path) -> Path:
        """Move ``path`` beside itself under a hidden name, to delete once all went well."""
        aside = path.with_name(f".{path.name}.{secrets.token_hex(6)}.deleted")
        os.rename(path, aside)
        self._undo.append(lambda: os.rename(aside, path))
        return aside


def _replace_contents(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename it over."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        # A new file (an open document's, saved): nobody else has seen it yet.
        with open(path, "xb") as file:
            _write_and_sync(file, data)
        return
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            _write_and_sync(file, data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _write_and_sync(file: BinaryIO, data: bytes) -> None:
    file.write(data)
    file.flush()
    os.fsync(file.fileno())


def _remove(path: Path) -> None:
    """Remove what was set aside; gone already (moved with a folder) is fine."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError:
        pass


def _describe(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        where = f": {error.filename}" if error.filename else ""
        return f"{error.strerror}{where}"
    return str(error)
