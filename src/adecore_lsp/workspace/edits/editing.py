"""Edits as plans: rename, format and fix-all previewed as diffs, then applied atomically.

Building a plan writes nothing. ``apply`` hands the plan to the one write path
(:mod:`adecore_lsp.write_path`): every path kept inside the root, every file compared with
the text the plan was made from right before anything is replaced (a foreign change is an
``EditConflictError``, nothing written), all files or none, also across a crash. Then it
waits for the final diagnostics and returns what the edit introduced and resolved. A plan
that changes nothing is an ``EmptyEditError``: a rename the server answered with no edits
is not success.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import EmptyEditError, ErrorCodes, LspError
from ...paths import uri_to_path
from ...protocol.documents.notebooks import InvalidNotebookError
from ...protocol.workspace.changes import Change
from ...protocol.workspace.edit_plans import PlannedEdit, merge_edits, plan_edit, touched_uris
from ...protocol.workspace.notebook_edits import cells_of_edit
from ...protocol.workspace.root_edits import RootsDisagree, merge_root_edits, uncovered
from ...session import LspSession
from ...write_path import WriteSet
from ..checks import affected as affected_set
from ..checks.changes import ends_of, halfway, others_changed
from ..checks.checking import HeldWrites
from ..checks.delta import Splitter
from ..checks.edit_loop import delta, loop_of, one_at_a_time, opened_for_the_question
from ..disk.listing import NotUtf8Error, read_text, root_files
from ..files.notebooks import cell_diff, notebook_of_uri
from ..model import AppliedPlan, EditPlan, FileEdit, FileOperation, FileStatus
from ..questions.across_roots import RootAnswers, every_root, roots_of, tree_files
from ..questions.asking import ask
from ..questions.outlines import prepare_whole
from ..questions.places import servers_of
from ..servers.notebook_view import is_notebook
from .notebook_editing import (
    document_edit,
    encoding_of,
    fix_notebook,
    format_notebook,
    kind_matches,
    take_action,
)

if TYPE_CHECKING:
    from ..questions.places import Place
    from .needs import EditNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Paths = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]

PARTIAL_RENAME = (
    "nothing was written: the server of a package could not be asked, so the rename would "
    "leave its uses as they are (reason other_roots); ask again once its server answers"
)
"""Why a plan that could not ask every package's server is not written."""


def _paths(ws: EditNeeds, paths: Paths) -> list[Path]:
    """The files to format or fix: each file given, and the files of each folder given that
    a server of this workspace takes."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return [path for path in ws.files_of(paths) if ws.takes(path)]


def _texts(ws: EditNeeds, edit: Any) -> tuple[dict[str, str | None], list[str], dict[str, str]]:
    """The current text of every URI ``edit`` touches (the open file's, else the disk's),
    the folders among them, and the names of one file: each URI whose file the edit also
    names under another name (a symbolic link and its target) mapped to the URI of its real
    path, whose text is given too. Steps are keyed by the real path: the plan merges the
    names' edits or refuses them, never keeping one name's edits alone."""
    texts: dict[str, str | None] = {}
    folders: list[str] = []
    names: dict[Path, list[str]] = {}
    # A plan that would write outside the root is refused now, not only when applied.
    bounds = WriteSet(ws.root, name=ws.paths.relative)
    for uri in touched_uris(edit):
        try:
            path = uri_to_path(uri)
        except ValueError:
            raise ValueError(f"the edit names {uri}, which is not a file") from None
        real = bounds.locate(path)
        texts[uri] = _text_of(ws, path)
        if texts[uri] is None and path.is_dir():
            del texts[uri]
            folders.append(uri)
        elif texts[uri] is not None:
            names.setdefault(real, []).append(uri)
    aliases: dict[str, str] = {}
    for real, uris in names.items():
        if len(uris) > 1:
            target = ws.paths.uri(real)
            texts.setdefault(target, _text_of(ws, real))
            aliases.update((uri, target) for uri in uris if uri != target)
    return texts, folders, aliases


def _text_of(ws: EditNeeds, path: Path) -> str | None:
    """The open file's text, else the disk's (``None``: no file there)."""
    known = ws.open_files.get(ws.paths.uri(path))
    if known is not None:
        return known.text
    if path.is_file():
        return read_text(path)
    return None


def make_plan(ws: EditNeeds, edits: Sequence[tuple[Any, str]]) -> EditPlan:
    """One plan of several ``(WorkspaceEdit, position encoding)``, each against the current
    texts, which the plan's snapshot keeps: the files must still hold them when it is
    applied. The edits of one encoding are one edit, their changes in order, so that a file
    (a notebook formatted cell by cell) gets them all. Edits of notebook cells become edits
    of the notebook's file that change only those cells' sources, and its diff shows the
    cells.

    Raises:
        ValueError: an edit cannot be planned, or one file is edited in two position
            encodings (by two servers), which cannot be put together; nothing is written.
    """
    files: dict[str, FileEdit] = {}
    text_edits: dict[str, tuple[tuple[int, int, str], ...]] = {}
    operations: list[FileOperation] = []
    diffs: list[str] = []
    snapshot: dict[str, str | None] = {}
    changes: list[Any] = []
    edited_in: dict[str, str] = {}
    find_notebook = notebook_of_uri(ws)
    merged = merge_edits(edits)
    for given, encoding in merged:
        edit, notebook_changes = cells_of_edit(given, find_notebook, encoding)
        cell_diffs = {
            ws.paths.display(change.uri): cell_diff(ws.paths.display(change.uri), change.cells)
            for change in notebook_changes
        }
        texts, folders, aliases = _texts(ws, edit)
        planned: PlannedEdit = plan_edit(
            edit, texts, encoding, ws.paths.display, folders=folders, aliases=aliases
        )
        for uri, text in texts.items():
            snapshot.setdefault(ws.paths.display(uri), text)
        touched = [*planned.files, *(op.path for op in planned.operations)]
        for path in touched:
            if edited_in.setdefault(path, encoding) != encoding:
                raise ValueError(
                    f"{path} is edited in two position encodings ({edited_in[path]} and "
                    f"{encoding}, by two servers), which cannot be put together: nothing is "
                    "written"
                )
        diff = planned.diff
        for path, planned_file in planned.files.items():
            shown_diff = cell_diffs.get(path, planned_file.diff)
            if shown_diff != planned_file.diff:
                diff = diff.replace(planned_file.diff, shown_diff)
            files[path] = FileEdit(
                planned_file.old_text, planned_file.new_text, shown_diff, planned_file.edits
            )
            text_edits.pop(path, None)
            if planned_file.text_edits is not None:
                text_edits[path] = planned_file.text_edits
        operations.extend(
            FileOperation(op.kind, op.path, op.new_path, dict(op.options))
            for op in planned.operations
        )
        diffs.append(diff)
        changes.extend(edit.get("documentChanges", []) if isinstance(edit, Mapping) else [])
    raw = edits[0][0] if len(edits) == 1 else {"documentChanges": changes}
    return EditPlan(
        files, operations, "".join(diffs), raw=raw, snapshot=snapshot, text_edits=text_edits
    )


def check_name(new_name: str) -> None:
    """Refuse a new name that is not a non-empty string (before anything is asked).

    Raises:
        ValueError: naming what was given.
    """
    if not new_name or not isinstance(new_name, str):
        raise ValueError(f"a new name must be a non-empty string, not {new_name!r}")


async def rename(ws: EditNeeds, place: Place, new_name: str) -> EditPlan:
    """``Workspace.rename`` at a resolved place (``new_name`` checked by :func:`check_name`)."""
    whole = place.whole or await prepare_whole(ws, servers_of(place.handles))
    complete, reason = whole.complete, whole.reason
    # Every package's server renames the uses it sees (one per package for basedpyright).
    # The tree is listed once for all (a listing asks each file's servers): the listing
    # that opened the files, when it was just made.
    files = tree_files(ws, whole)
    with ws.collecting(roots_of(ws, place.handles, files)) as sent:
        asked = await every_root(
            ws,
            place,
            "textDocument/rename",
            lambda s, uri, at: s.rename(uri, at, new_name),
            files=files,
        )
    _handle, session, edit = asked.answers[0]
    if len(asked.answers) > 1:
        edit = _one_edit(ws, place, asked)
        await _every_use_renamed(ws, place, edit)
    # Asked with only max_open_files of the root's files open, the server may miss some.
    plan = replace(
        make_plan(ws, [(edit, encoding_of(session)), *sent]), complete=complete, reason=reason
    )
    if not asked.complete and plan.complete:
        plan = replace(plan, complete=False, reason="other_roots")
    if list(plan.files) == [place.shown] and not plan.file_ops and not is_notebook(place.path):
        # A server may rename in the declaring file alone where it has uses elsewhere
        # (basedpyright, once it no longer counts that file as the project's own): written,
        # the rename would break them. Its references say whether there are any.
        leaves = f"its rename, of {place.shown} alone, leaves as they are"
        with contextlib.suppress(LspError):  # no references to ask: the answer as it is
            await _every_use_renamed(ws, place, {}, leaves, elsewhere=True)
    if not plan.files and not plan.file_ops:
        raise EmptyEditError(
            place.target,
            f"renaming {place.target} to {new_name} changes nothing: the server answered no edits",
        )
    old_name = _name_at(plan.snapshot.get(place.shown), place.offset)
    return replace(plan, names=(old_name, new_name)) if old_name else plan


def _name_at(text: str | None, offset: int) -> str | None:
    """The identifier at ``offset`` of ``text`` (what a rename there renames), if any."""
    if text is None or not 0 <= offset <= len(text):
        return None
    start = end = offset
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[start:end] or None


def _one_edit(ws: EditNeeds, place: Place, asked: RootAnswers) -> Any:
    """The renames of several roots of one server as one edit.

    Raises:
        ValueError: two roots edit one place of a file differently: nothing is planned.
    """
    try:
        return merge_root_edits([answer for _session, answer in asked.sessions])
    except RootsDisagree as error:
        first, second = error.edits
        raise ValueError(
            f"renaming {place.target} is refused: the servers of two packages disagree about "
            f"{ws.paths.display(error.uri)} (one edits {_where(first)}, the other "
            f"{_where(second)}); nothing is planned"
        ) from None


async def _every_use_renamed(
    ws: EditNeeds,
    place: Place,
    edit: Any,
    leaves: str = "the servers of the packages do not rename",
    *,
    elsewhere: bool = False,
) -> None:
    """Refuse a rename that leaves a use the server finds as it is: one of several roots
    (ty, rooted at a consumer, renames the declaring file alone), or one server's answer
    in the declaring file alone where its references find uses elsewhere. Written, it
    would break them. ``leaves`` says in the message whose rename left them; with
    ``elsewhere`` (a rename of the place's file alone), every use in another file is
    left (within the file, a server may rename a use with an edit beside it, as
    TypeScript does a shorthand property).

    Raises:
        ValueError: naming the first such uses; nothing is planned.
    """
    uses = await every_root(
        ws,
        place,
        "textDocument/references",
        lambda s, uri, at: s.references(uri, at, include_declaration=True),
    )
    found = [
        (ws.paths.display(item["uri"]), item["range"])
        for _session, items in uses.sessions
        for item in (items if isinstance(items, list) else [])
        if isinstance(item, Mapping)
        and isinstance(item.get("uri"), str)
        and isinstance(item.get("range"), Mapping)
        and isinstance(item["range"].get("start"), Mapping)
    ]
    shown = {
        "documentChanges": [
            {**change, "textDocument": {"uri": ws.paths.display(change["textDocument"]["uri"])}}
            for change in edit.get("documentChanges") or []
            if "textDocument" in change
        ]
    }
    if elsewhere:
        missing = [(path, where) for path, where in found if path != place.shown]
    else:
        missing = uncovered(shown, found)
    if missing:
        named = ", ".join(f"{path}:{_line(where['start'])}" for path, where in missing[:5]) + (
            ", ..." if len(missing) > 5 else ""
        )
        raise ValueError(
            f"renaming {place.target} is refused: the server finds uses that {leaves} "
            f"({named}), so the rename would break them; nothing is planned"
        )


def _line(position: Mapping[str, Any]) -> str:
    """A position's line as people count, or ``?`` when a server sent none."""
    line = position.get("line")
    return str(line + 1) if isinstance(line, int) else "?"


def _where(edit: Any) -> str:
    start = edit["range"]["start"]
    return f"line {start['line'] + 1} to {edit.get('newText')!r}"


async def format_files(ws: EditNeeds, paths: Paths) -> EditPlan:
    """The formatting edits of every file of ``paths`` (a notebook's cell by cell); a file
    that cannot be read as its kind says (not UTF-8, not a notebook) is left out, named in
    the plan's ``skipped``, and the others are formatted."""
    edits: list[tuple[Any, str]] = []
    skipped: dict[str, FileStatus] = {}
    for path in _format_paths(ws, paths):
        if is_notebook(path):
            work = partial(format_notebook, ws, path)
        elif ws.takes(path):
            work = partial(_format_one, ws, path)
        else:
            work = partial(_format_only, ws, path)
        edits.extend(await _each(ws, path, skipped, work))
    return _skipping(make_plan(ws, edits), skipped)


def _format_paths(ws: EditNeeds, paths: Paths) -> list[Path]:
    """The files to format: those of :func:`_paths`, and the files a server formats but
    takes for nothing else (ruff, Markdown), named or in a folder given, as its command line
    (``ruff format``) finds them."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    only = ws.server_choice.formats_only
    found = dict.fromkeys(path for path in ws.files_of(paths) if ws.takes(path) or only(path))
    for given in paths:
        folder = ws.paths.absolute(given)
        if folder.is_dir():
            found.update(dict.fromkeys(root_files(ws.root, only, folder)))
    return list(found)


async def _format_only(ws: EditNeeds, path: Path) -> list[tuple[Any, str]]:
    """The formatting edits of a file its servers only format (ruff, a Markdown file):
    none when none of them registers formatting for its language (a ruff before 0.15 formats
    no Markdown, nor does its command line). It is closed again: no other call is about it,
    and a check after a write leaves it out."""
    handles = ws.server_choice.format_handles(path)
    uri = ws.paths.uri(path)
    await ws.sync_disk()
    await ws.open_files.open_at(path, uri, handles=handles)
    try:
        _handle, session, text_edits = await ask(
            ws, handles, "textDocument/formatting", lambda s: s.formatting(uri), uri, False
        )
    except LspError as error:
        if error.code != ErrorCodes.MethodNotFound:
            raise
        return []
    finally:
        await ws.close(path)
    return [(document_edit(uri, text_edits), encoding_of(session))]


async def _format_one(ws: EditNeeds, path: Path) -> list[tuple[Any, str]]:
    _handle, session, text_edits = await ws.first_answer(
        path, "textDocument/formatting", lambda s, uri: s.formatting(uri)
    )
    return [(document_edit(ws.paths.uri(path), text_edits), encoding_of(session))]


async def fix(ws: EditNeeds, paths: Paths, only: str) -> EditPlan:
    """The fix-all edits of every file of ``paths``; unreadable files are skipped as in
    :func:`format_files`."""
    edits: list[tuple[Any, str]] = []
    skipped: dict[str, FileStatus] = {}
    for path in _paths(ws, paths):
        work = fix_notebook if is_notebook(path) else _fix_one
        edits.extend(await _each(ws, path, skipped, partial(work, ws, path, only)))
    if not edits:
        return _skipping(EditPlan({}, [], "", raw={"documentChanges": []}), skipped)
    return _skipping(make_plan(ws, edits), skipped)


async def _each(
    ws: EditNeeds,
    path: Path,
    skipped: dict[str, FileStatus],
    work: Callable[[], Awaitable[list[tuple[Any, str]]]],
) -> list[tuple[Any, str]]:
    """The edits ``work`` finds for ``path``, with those its servers sent meanwhile; none,
    and ``path`` in ``skipped`` with the reason a check gives, when the file is not UTF-8
    or not a notebook (it is closed again: nothing can be asked about it)."""
    try:
        with ws.collecting(ws.handles_for(path)) as sent:
            found = await work()
    except NotUtf8Error:
        skipped[ws.paths.relative(path)] = FileStatus(False, "not_utf8")
    except InvalidNotebookError as error:
        skipped[ws.paths.relative(path)] = FileStatus(False, f"invalid notebook: {error}")
    else:
        return [*found, *sent]
    await ws.close(path)
    return []


def _skipping(plan: EditPlan, skipped: dict[str, FileStatus]) -> EditPlan:
    """``plan`` with the files left out: not complete, its reason the first one's."""
    if not skipped:
        return plan
    ordered = dict(sorted(skipped.items()))
    first = next(iter(ordered.values())).reason
    return replace(plan, complete=False, reason=first, skipped=ordered)


def _may_offer(session: LspSession, only: str) -> bool:
    """Whether the server's ``codeActionKinds`` (when it declares any) cover ``only``: a
    server that names its kinds and none of them is ``only`` (basedpyright's quick fixes
    and import sorting) is not asked for it."""
    provider = session.server_capabilities.get("codeActionProvider")
    kinds = provider.get("codeActionKinds") if isinstance(provider, Mapping) else None
    if not isinstance(kinds, list):
        return True
    return any(
        isinstance(kind, str) and (kind_matches(kind, only) or kind_matches(only, kind))
        for kind in kinds
    )


async def _fix_one(ws: EditNeeds, path: Path, only: str) -> list[tuple[Any, str]]:
    """The edit of the fix-all action of ``only`` of the first server of ``path`` that offers
    one (see :func:`take_action`)."""

    async def offered(session: LspSession, uri: str) -> list[Any]:
        if not _may_offer(session, only):
            return []
        actions = await session.code_actions(
            uri, (0, len(session.documents[uri].text)), only=[only], diagnostics=[]
        )
        return [a for a in actions if kind_matches(a.get("kind") or "", only)]

    handle, session, actions = await ws.first_answer(
        path, "textDocument/codeAction", offered, non_empty=True
    )
    return await take_action(handle, session, ws.paths.uri(path), actions, only) or []


@one_at_a_time
async def apply(
    ws: EditNeeds, plan: EditPlan, *, allow_outside: bool = False, deadline: float | None = None
) -> AppliedPlan:
    if not plan.files and not plan.file_ops:
        raise EmptyEditError("the plan", "the plan changes nothing: there is nothing to apply")
    if plan.reason == "other_roots":
        raise LspError(ErrorCodes.RequestFailed, PARTIAL_RENAME)
    unsaved = [shown for shown in plan.snapshot if _unsaved(ws, shown)]
    if unsaved:
        raise LspError(
            ErrorCodes.RequestFailed,
            "nothing was written: the workspace holds unsaved text of "
            f"{', '.join(unsaved)} (given with update()); save or close it, then plan again",
        )
    writes = write_set(ws, plan, allow_outside=allow_outside)
    ends = ends_of(ws, deadline)
    loop = loop_of(ws)
    await ws.sync_disk()
    loop.forget(ws, await loop.look(ws))
    # Renamed files are followed: their findings before count under their new paths.
    renamed = {op.path: op.new_path for op in plan.file_ops if op.kind == "rename" and op.new_path}
    moves = {ws.paths.absolute(old): ws.paths.absolute(new) for old, new in renamed.items()}
    texts: dict[Path, tuple[str | None, str | None]] = {}
    for shown, edit in plan.files.items():
        texts[ws.paths.absolute(shown)] = (edit.old_text, edit.new_text)
    for op in plan.file_ops:
        path = ws.paths.absolute(op.path)
        if op.kind != "create":
            texts.setdefault(path, (plan.snapshot.get(op.path), None))
    found = await affected_set.affected(ws, loop, texts, names=plan.names)
    # The plan's own text edits where it has them: the rule then carries the findings
    # through them instead of diffing each file's two texts.
    changes = {
        path: Change(edit.old_text, edit.new_text, plan.text_edits.get(path))
        for path, edit in plan.files.items()
    }
    splitter = Splitter(changes, renamed)
    with opened_for_the_question(ws, found, keep_edited=False):
        before = await loop.before(ws, found, halfway(ends))
        writes.commit()
        await _after_write(ws, plan)
        others_changed(ws)
        # Files the plan creates have no side before: everything in them is new.
        for shown in plan.files:
            path = ws.paths.absolute(shown)
            if path not in found.servers and path not in moves.values() and ws.takes(path):
                found.edited.append(path)
                found.servers[path] = frozenset(h.spec.id for h in ws.handles_for(path))
                before.reached.add(path)
        after = await loop.after_write(ws, found, before, ends, moves=moves, early=splitter)
    applied = delta(ws, found, before, after, splitter, moves)
    return AppliedPlan(plan.changed_files, applied)


def _unsaved(ws: EditNeeds, shown: str) -> bool:
    known = ws.open_files.get(ws.paths.uri(ws.paths.absolute(shown)))
    return known is not None and known.unsaved


def write_set(ws: EditNeeds, plan: EditPlan, *, allow_outside: bool = False) -> WriteSet:
    """The plan as one set of the write path: its file operations in order, then each file's
    new text, every file expected to hold what the plan was made from.

    Raises:
        EditOutsideRootError: the plan names a path outside the root (unless
            ``allow_outside``).
    """
    writes = WriteSet(ws.root, name=ws.paths.relative, allow_outside=allow_outside)
    for shown, text in plan.snapshot.items():
        writes.expect(ws.paths.absolute(shown), None if text is None else text.encode("utf-8"))
    for op in plan.file_ops:
        path = ws.paths.absolute(op.path)
        if op.kind == "create":
            for parent in _missing_folders(path.parent):
                writes.make_folder(parent)
            writes.write(path, b"")
        elif op.kind == "rename":
            assert op.new_path is not None
            new = ws.paths.absolute(op.new_path)
            for parent in _missing_folders(new.parent):
                writes.make_folder(parent)
            writes.rename(path, new, overwrite=bool(op.options.get("overwrite")))
        else:
            writes.delete(path, recursive=bool(op.options.get("recursive")))
    for shown, edit in plan.files.items():
        writes.write(ws.paths.absolute(shown), edit.new_text.encode("utf-8"))
    return writes


def _missing_folders(folder: Path) -> list[Path]:
    """The folders from the outermost missing one down to ``folder``."""
    missing: list[Path] = []
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    return missing[::-1]


async def _after_write(ws: EditNeeds, plan: EditPlan) -> None:
    """Tell the servers what the plan changed: files renamed or deleted are closed, each new
    text is sent, and every watcher hears of what was created, changed and deleted."""
    events: list[tuple[Path, int]] = []
    for op in plan.file_ops:
        path = ws.paths.absolute(op.path)
        if op.kind == "create":
            events.append((path, 1))
        else:
            await ws.close(path)
            events.append((path, 3))
            if op.kind == "rename" and op.new_path is not None:
                events.append((ws.paths.absolute(op.new_path), 1))
    # The new texts go out in one write a server (a rename's dozens of didChange).
    with HeldWrites() as held:
        held.add(ws.server_choice.handles)
        for shown, edit in plan.files.items():
            full = ws.paths.absolute(shown)
            events.append((full, 2))
            if ws.paths.uri(full) in ws.open_files or ws.takes(full):
                await ws.adopt(full, edit.new_text)
    ws.announce(events)
    await ws.sync_disk()
