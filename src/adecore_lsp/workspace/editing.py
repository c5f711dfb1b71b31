"""Edits as plans: rename, format and fix-all previewed as diffs, then applied atomically.

Building a plan writes nothing. ``apply`` refuses a plan whose files changed on disk since
it was made (nothing written), writes every file atomically or none, then waits for the
final diagnostics and returns what the edit introduced and resolved. A plan that changes
nothing is an ``EmptyEditError``: a rename the server answered with no edits is not success.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EditConflictError, EmptyEditError, ErrorCodes, LspError
from ..features.apply import _replace_contents
from ..paths import uri_to_path
from ..protocol.workspace.edit_plans import PlannedEdit, plan_edit, touched_uris
from ..session import LspSession
from . import checking
from .files import DiskState, read_text
from .model import AppliedPlan, EditPlan, FileEdit, FileOperation
from .navigation import prepare_whole, target_offset

if TYPE_CHECKING:
    from .workspace import Target, Workspace

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Paths = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def _paths(ws: Workspace, paths: Paths) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return [ws.file(path) for path in paths]


def _texts(ws: Workspace, edit: Any) -> tuple[dict[str, str | None], list[str]]:
    """The current text of every URI ``edit`` touches (the open file's, else the disk's)."""
    texts: dict[str, str | None] = {}
    folders: list[str] = []
    for uri in touched_uris(edit):
        try:
            path = uri_to_path(uri)
        except ValueError:
            raise ValueError(f"the edit names {uri}, which is not a file") from None
        known = ws._open.get(ws.paths.uri(path))
        if known is not None:
            texts[uri] = known.text
        elif path.is_dir():
            folders.append(uri)
        elif path.exists():
            texts[uri] = read_text(path)
        else:
            texts[uri] = None
    return texts, folders


def make_plan(ws: Workspace, edits: Sequence[tuple[Any, str]]) -> EditPlan:
    """One plan of several ``(WorkspaceEdit, position encoding)``, each against the current
    texts; a file's snapshot is its disk state now."""
    files: dict[str, FileEdit] = {}
    operations: list[FileOperation] = []
    diffs: list[str] = []
    snapshot: dict[str, tuple[int, int] | None] = {}
    changes: list[Any] = []
    for edit, encoding in edits:
        texts, folders = _texts(ws, edit)
        planned: PlannedEdit = plan_edit(edit, texts, encoding, ws.paths.display, folders=folders)
        for uri in [*texts, *folders]:
            state = DiskState.of(uri_to_path(uri))
            snapshot[ws.paths.display(uri)] = (
                None if state is None else (state.size, state.mtime_ns)
            )
        for path, planned_file in planned.files.items():
            files[path] = FileEdit(
                planned_file.old_text, planned_file.new_text, planned_file.diff, planned_file.edits
            )
        operations.extend(
            FileOperation(op.kind, op.path, op.new_path, dict(op.options))
            for op in planned.operations
        )
        diffs.append(planned.diff)
        changes.extend(edit.get("documentChanges", []) if isinstance(edit, Mapping) else [])
    raw = edits[0][0] if len(edits) == 1 else {"documentChanges": changes}
    return EditPlan(files, operations, "".join(diffs), raw=raw, snapshot=snapshot)


def _encoding(session: LspSession) -> str:
    return session.position_encoding or "utf-16"


async def rename(ws: Workspace, target: Target, new_name: str) -> EditPlan:
    if not new_name or not isinstance(new_name, str):
        raise ValueError(f"a new name must be a non-empty string, not {new_name!r}")
    await prepare_whole(ws)
    path, offset, _symbol = await target_offset(ws, target)
    _handle, session, edit = await ws.first_answer(
        path, "textDocument/rename", lambda s, uri: s.rename(uri, offset, new_name)
    )
    plan = make_plan(ws, [(edit, _encoding(session))])
    if not plan.files and not plan.file_ops:
        raise EmptyEditError(
            str(target),
            f"renaming {target} to {new_name} changes nothing: the server answered no edits",
        )
    return plan


async def format_files(ws: Workspace, paths: Paths) -> EditPlan:
    edits: list[tuple[Any, str]] = []
    for path in _paths(ws, paths):
        _handle, session, text_edits = await ws.first_answer(
            path, "textDocument/formatting", lambda s, uri: s.formatting(uri)
        )
        uri = ws.paths.uri(path)
        document = {"textDocument": {"uri": uri, "version": None}, "edits": list(text_edits)}
        edits.append(({"documentChanges": [document]}, _encoding(session)))
    return make_plan(ws, edits)


async def fix(ws: Workspace, paths: Paths, only: str) -> EditPlan:
    edits: list[tuple[Any, str]] = []
    for path in _paths(ws, paths):
        handle, session, actions = await ws.first_answer(
            path,
            "textDocument/codeAction",
            lambda s, uri: s.code_actions(
                uri, (0, len(s.documents[uri].text)), only=[only], diagnostics=[]
            ),
        )
        for action in actions:
            kind = action.get("kind") or ""
            if kind != only and not kind.startswith(only + "."):
                continue
            if "edit" not in action and session.supports("codeAction/resolve", ws.paths.uri(path)):
                try:
                    action = await session.resolve_code_action(action)
                except LspError as error:
                    raise await handle.translate(error) from error
            if "edit" in action:
                edits.append((action["edit"], _encoding(session)))
                break
    if not edits:
        return EditPlan({}, [], "", raw={"documentChanges": []})
    return make_plan(ws, edits)


async def apply(ws: Workspace, plan: EditPlan) -> AppliedPlan:
    if not plan.files and not plan.file_ops:
        raise EmptyEditError("the plan", "the plan changes nothing: there is nothing to apply")
    changed = [
        shown for shown, state in plan.snapshot.items() if _state(ws.paths.absolute(shown)) != state
    ]
    if changed:
        raise EditConflictError(changed)
    checked = [
        p for p in plan.files if ws.paths.absolute(p).is_file() and ws.takes(ws.paths.absolute(p))
    ]
    before = await checking.diagnostics(ws, checked, ws.timeout) if checked else None
    old_texts = {path: edit.old_text for path, edit in plan.files.items()}
    if plan.file_ops:
        await _apply_with_operations(ws, plan)
    else:
        _write_all(ws, plan)
        for shown, edit in plan.files.items():
            full = ws.paths.absolute(shown)
            uri = ws.paths.uri(full)
            if uri in ws._open or ws.takes(full):
                await ws.adopt(full, edit.new_text)
    await ws.sync_disk()
    after_paths = [
        p for p in plan.files if ws.paths.absolute(p).is_file() and ws.takes(ws.paths.absolute(p))
    ]
    after = await checking.diagnostics(ws, after_paths, ws.timeout)
    new_texts = {path: edit.new_text for path, edit in plan.files.items()}
    delta = checking.delta_of(before.items if before else [], after, old_texts, new_texts)
    return AppliedPlan(plan.changed_files, delta)


def _state(path: Path) -> tuple[int, int] | None:
    state = DiskState.of(path)
    return None if state is None else (state.size, state.mtime_ns)


def _write_all(ws: Workspace, plan: EditPlan) -> None:
    """Write every file of ``plan`` atomically; a failure restores those already written."""
    done: list[tuple[Path, bytes | None]] = []
    try:
        for shown, edit in plan.files.items():
            full = ws.paths.absolute(shown)
            try:
                old: bytes | None = full.read_bytes()
            except FileNotFoundError:
                old = None
            _replace_contents(full, edit.new_text.encode("utf-8"))
            done.append((full, old))
    except OSError as error:
        problems = []
        for full, old in reversed(done):
            try:
                if old is None:
                    full.unlink()
                else:
                    _replace_contents(full, old)
            except OSError as undo:
                problems.append(f"{full}: {undo.strerror}")
        restored = "; restoring failed too: " + "; ".join(problems) if problems else ""
        raise LspError(
            ErrorCodes.RequestFailed,
            f"nothing was applied: writing {error.filename} failed ({error.strerror}){restored}",
        ) from error


async def _apply_with_operations(ws: Workspace, plan: EditPlan) -> None:
    """A plan that creates, renames or deletes files: applied by the session of its first
    file, whose ``apply_edit`` runs the operations in order, all or nothing."""
    first = next(iter(plan.changed_files))
    full = ws.paths.absolute(first)
    probe = full if full.exists() else ws.root
    handles = ws.handles_for(probe) if probe.is_file() else ws.started()
    if not handles:
        raise LspError(ErrorCodes.RequestFailed, f"no server can apply an edit of {first}")
    session = await handles[0].session()
    result = await session.apply_edit(plan.raw)
    if not result.get("applied"):
        raise LspError(
            ErrorCodes.RequestFailed,
            f"nothing was applied: {result.get('failureReason', 'the edit was refused')}",
        )
