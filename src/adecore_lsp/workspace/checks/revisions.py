"""``Workspace.new_since``: the findings a working tree has that a git revision does not.

The revision's files are written into a temporary folder from git's objects, as committed
(no checkout: git runs no filter, hook or fsmonitor program a repository names, see
``revision_tree.py``), never touching the user's working tree, index or repository, and
the folder is removed in a ``finally``: also on Ctrl-C. The folders servers read that git
ignores (``.venv``, ``node_modules``, ``compile_commands.json`` ...) are linked from the
working tree into it, and its workspace takes the working tree's servers, configuration
and trust (its executables judged against the working tree's root, never the copy's), so
both sides are checked alike. Files added, deleted and renamed since the revision are
followed as ``git diff -M`` reports them; an untracked file counts as added.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
from collections.abc import Awaitable, Coroutine, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

from ...protocol.workspace.changes import Change, moved_roots
from ..disk import git
from ..disk.listing import leads_out, listed_files, read_text
from ..disk.revision_tree import make_link, moves, texts_at, write_revision
from ..model import Diagnostic, DiagnosticsReport
from . import checking, scope_plan
from .delta import split

if TYPE_CHECKING:
    from .needs import CheckNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

LINKED = (
    ".venv",
    "venv",
    "node_modules",
    "compile_commands.json",
    "compile_flags.txt",
    "build/compile_commands.json",
)
"""What servers read that git usually ignores: linked into the revision's folder."""

T = TypeVar("T")


def repository_top(root: Path) -> Path:
    """The top folder of the git repository holding ``root``."""
    try:
        return Path(git.text(root, "rev-parse", "--show-toplevel").strip()).resolve()
    except git.GitError as error:
        if "not installed" in str(error):
            raise ValueError("--new-since needs git, which is not installed") from None
        raise ValueError(f"{root} is not in a git repository") from None


def commit_of(top: Path, rev: str) -> str:
    """The commit ``rev`` names in the repository at ``top``."""
    if not rev or rev.startswith("-"):
        raise ValueError(f"{rev!r} is not a git revision")
    try:
        return git.text(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    except git.GitError:
        raise ValueError(f"unknown revision {rev!r}: git knows no commit of that name") from None


def _link_ignored(work: Path, tree: Path) -> None:
    """Link what servers read and git ignores from the working folder ``work`` into the
    same place of the revision's folder ``tree``, where the revision has nothing of that
    name."""
    for name in LINKED:
        source, target = work / name, tree / name
        if (source.exists() or source.is_symlink()) and not (
            target.exists() or target.is_symlink()
        ):
            try:
                # Never through a folder the revision made a link (``build``).
                make_link(tree, target, os.fspath(source))
            except git.GitError:
                continue


def _guarded(ws: CheckNeeds, top: Path) -> list[Path]:
    """The folders whose programs git must never be (the root, its configuration's root
    and the repository)."""
    return list(dict.fromkeys([ws.root, ws.config_root, top]))


async def new_since(
    ws: CheckNeeds, rev: str, paths: Sequence[str | os.PathLike[str]] | None, timeout: float
) -> DiagnosticsReport:
    top = await asyncio.to_thread(repository_top, ws.root)
    commit = await asyncio.to_thread(commit_of, top, rev)
    guarded = _guarded(ws, top)
    # Each side checks the files of its own servers' scopes: a folder stands for its files
    # in them, a file named for itself (``scopes``).
    plan = None if paths is None else scope_plan.plan_of(ws, paths)
    files = None if plan is None else plan.files
    # Waited for to its end even when cancelled: its temporary objects are gone then.
    found = await _surely(asyncio.to_thread(moves, top, commit, guarded))
    below = ws.root.relative_to(top)

    def shown(path_from_top: str) -> str | None:
        """A path from the top as the workspace shows it, or None outside the root."""
        full = top / path_from_top
        return ws.paths.relative(full) if full.is_relative_to(ws.root) else None

    renamed_back = {
        new: old
        for path, was in found.renamed.items()
        if (new := shown(path)) is not None and (old := shown(was)) is not None
    }
    added = {name for path in found.added if (name := shown(path)) is not None}
    changed = {name for path in found.changed if (name := shown(path)) is not None}

    from . import warm_revision

    # Only file texts changed, in files warm servers already take: the revision's side in
    # place (the daemon's second call on), no copy and no second start of every server.
    in_root = len(changed) == len(found.changed) and not added and not renamed_back
    changed_paths = [ws.paths.absolute(name) for name in sorted(changed)]
    if in_root and warm_revision.warm(ws, changed_paths):
        old_texts = await asyncio.to_thread(_old_texts, top, commit, changed_paths, guarded)
        if old_texts is not None:
            return await warm_revision.in_place(ws, old_texts, paths, timeout)

    folder = Path(tempfile.mkdtemp(prefix="adecore-lsp-since-"))
    stop = threading.Event()
    tree = folder / "tree"
    # The working tree's side starts at once: it runs while the revision's files are written.
    whole = plan if plan is not None else scope_plan.plan_of(ws, None)
    current = asyncio.ensure_future(
        checking.files_diagnostics(ws, whole.files, timeout, servers=whole.servers)
    )
    try:
        tree.mkdir()
        writing = asyncio.ensure_future(
            asyncio.to_thread(write_revision, top, commit, tree, guarded, stop)
        )
        try:
            written = await asyncio.shield(writing)
        except asyncio.CancelledError:
            # The writing stops at its next file, and is waited for: nothing is written
            # into the folder once it is being removed.
            stop.set()
            await _surely(asyncio.wait({writing}))
            if not writing.cancelled():
                writing.exception()  # told to stop, it may have raised: seen
            raise
        twin_root = tree / below
        _link_ignored(top, tree)
        # A root the revision made a link (to a folder outside the copy) is never followed.
        existed = twin_root.is_dir() and not leads_out(tree, twin_root)
        if below != Path(".") and existed:
            _link_ignored(ws.root, twin_root)
        if not existed:
            # The root did not exist at the revision: everything in it is new.
            after = await current
            return DiagnosticsReport(after.items, after.files, after.complete, after.reason)
        twin_files = _files_at_revision(ws, twin_root, files, added, renamed_back)
        named = _files_at_revision(
            ws, twin_root, sorted(plan.named) if plan else [], added, renamed_back
        )
        side = _revision_side(ws, twin_root, twin_files, written, timeout, named or [])
        # Both sides at once: each waits mostly on its own servers.
        after, before = await _both(current, side)
        before = _as_in_repository(before, tree, top)
        return _compare(ws, twin_root, before, after, changed, renamed_back)
    finally:
        stop.set()
        await _surely(_end(current, folder))


async def _end(current: asyncio.Future[DiagnosticsReport], folder: Path) -> None:
    """Cancel the working tree's side if it still runs, wait for it, remove the folder of
    the revision's files."""
    current.cancel()
    await asyncio.gather(current, return_exceptions=True)
    await asyncio.to_thread(shutil.rmtree, folder, ignore_errors=True)


def _old_texts(
    top: Path, commit: str, paths: Sequence[Path], guarded: list[Path]
) -> dict[Path, str] | None:
    """The texts ``paths`` have at ``commit`` (UTF-8, as committed); ``None`` when one
    cannot be had."""
    names = {path.relative_to(top).as_posix(): path for path in paths}
    try:
        found = texts_at(top, commit, list(names), guarded)
        if len(found) != len(names):
            return None  # not at the revision
        return {names[name]: data.decode("utf-8") for name, data in found.items()}
    except (git.GitError, UnicodeDecodeError):
        return None


def _files_at_revision(
    ws: CheckNeeds,
    twin_root: Path,
    files: list[Path] | None,
    added: set[str],
    renamed_back: dict[str, str],
) -> list[Path] | None:
    """The revision's counterparts of ``files`` (None: every file of its root): renamed
    files under their old names, added ones left out."""
    if files is None:
        return None
    found = []
    for file in files:
        name = ws.paths.relative(file)
        if name in added and name not in renamed_back:
            continue
        was = twin_root / renamed_back.get(name, name)
        if was.is_file() and not leads_out(twin_root, was):
            found.append(was)
    return found


async def _revision_side(
    ws: CheckNeeds,
    twin_root: Path,
    twin_files: list[Path] | None,
    written: list[Path],
    timeout: float,
    named: list[Path],
) -> DiagnosticsReport:
    """The diagnostics of the revision's folder, with the working tree's servers,
    configuration and trust; without ``twin_files``, of the revision's files in its root
    (``written``) that a server takes, as ``git ls-files`` would list them there. Each file
    goes to the servers whose scope, as the revision's configurations say, covers it; the
    ``named`` ones to every server that takes them."""
    if twin_files == []:
        return DiagnosticsReport([], {}, True)
    twin = ws.twin(twin_root)
    async with twin:
        if twin_files is None:
            files = [path for path in written if path.is_file()]  # as git ls-files
            twin_files = listed_files(twin_root, files, twin.takes)
            if not twin_files:
                return DiagnosticsReport([], {}, True)
        plan = scope_plan.plan(twin, twin_files, named)
        return await checking.files_diagnostics(twin, plan.files, timeout, servers=plan.servers)


async def _both(
    first: Awaitable[DiagnosticsReport], second: Coroutine[Any, Any, DiagnosticsReport]
) -> tuple[DiagnosticsReport, DiagnosticsReport]:
    """Run two checks at once; when one fails (or the caller is cancelled) the other is
    cancelled and waited for, so no server outlives the call."""
    tasks = [asyncio.ensure_future(first), asyncio.ensure_future(second)]
    try:
        done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            error = task.exception()
            if error is not None:
                raise error
        return tasks[0].result(), tasks[1].result()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _surely(work: Awaitable[T]) -> T:
    """Wait for ``work`` to the end even when cancelled meanwhile (the revision's files must
    go, and a thread writing them must be done first); a cancellation received is raised
    again afterwards."""
    future = asyncio.ensure_future(work)
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True
    result = future.result()
    if cancelled:
        raise asyncio.CancelledError
    return result


def _compare(
    ws: CheckNeeds,
    twin_root: Path,
    before: DiagnosticsReport,
    after: DiagnosticsReport,
    changed: set[str],
    renamed_back: dict[str, str],
) -> DiagnosticsReport:
    """The introduced findings of ``after`` and the resolved ones of ``before``."""
    renamed = {old: new for new, old in renamed_back.items()}
    with_findings = {item.path for item in after.items} | {
        renamed.get(item.path, item.path) for item in before.items
    }
    changes: dict[str, Change] = {}
    for name in with_findings & changed:
        old_path = twin_root / renamed_back.get(name, name)
        new_path = ws.paths.absolute(name)
        if leads_out(twin_root, old_path) or leads_out(ws.root, new_path):
            continue  # a link out of the root: never read
        try:
            changes[name] = Change(read_text(old_path), read_text(new_path))
        except (OSError, ValueError):
            continue  # added, deleted or unreadable: no lines to carry
    introduced, resolved, _unchanged = split(before.items, after.items, changes, renamed)
    complete = after.complete and before.complete
    reason = after.reason if not after.complete else before.reason
    return DiagnosticsReport(introduced, after.files, complete, reason, _sorted(resolved))


def _as_in_repository(report: DiagnosticsReport, tree: Path, top: Path) -> DiagnosticsReport:
    """The revision's findings with their messages naming the repository (``top``) where
    they name its temporary copy (``tree``), by path or URI: both sides' messages are then
    compared alike, and no temporary path reaches the caller (it is gone after the call)."""
    forms = [tree, tree.resolve()]
    moves = [
        pair
        for form in dict.fromkeys(forms)
        for pair in (
            (form.as_uri(), top.as_uri()),
            (quote(str(form)), quote(str(top))),
            (str(form), str(top)),
        )
    ]
    items = [replace(item, message=moved_roots(item.message, moves)) for item in report.items]
    return replace(report, items=items)


def _sorted(items: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(
        items, key=lambda d: (d.path, d.cell or 0, d.line, d.column, d.end_line, d.end_column)
    )


def committed_text(ws: CheckNeeds, full: Path, rev: str = "HEAD") -> str | None:
    """The text ``full`` has at git revision ``rev`` (as committed, UTF-8); ``None`` outside
    a repository, for an unknown revision, or for a file the revision does not have."""
    try:
        top = repository_top(ws.root)
        commit = commit_of(top, rev)
    except ValueError:
        return None
    found = _old_texts(top, commit, [full], _guarded(ws, top))
    return None if found is None else found.get(full)
