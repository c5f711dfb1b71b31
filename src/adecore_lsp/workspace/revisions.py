"""``Workspace.new_since``: the findings a working tree has that a git revision does not.

The revision is checked out in a temporary worktree (``git worktree add --detach``, its
hooks off), never by touching the user's working tree or index, and removed in a
``finally``: also on Ctrl-C. The folders servers read that git ignores (``.venv``,
``node_modules``, ``compile_commands.json`` ...) are linked from the working tree into it,
and its workspace takes the working tree's servers, configuration and trust, so both sides
are checked alike. Files added, deleted and renamed since the revision are followed as
``git diff -M`` reports them; an untracked file counts as added.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import Awaitable, Coroutine, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..protocol.workspace.changes import Change
from .delta import split
from .files import read_text
from .model import Diagnostic, DiagnosticsReport

if TYPE_CHECKING:
    from .workspace import Workspace

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
"""What servers read that git usually ignores: linked into the revision's worktree."""

GIT_TIMEOUT = 120.0


@dataclass
class Moves:
    """What git says changed between the revision and the working tree, by paths relative
    to the repository's top: ``renamed`` maps the new path to the old one."""

    changed: set[str] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)
    added: set[str] = field(default_factory=set)


def _git(top: Path, *args: str, config: Sequence[str] = ()) -> str:
    """Run git in ``top`` with hooks off and no prompt (and ``-c`` each of ``config``); its
    stdout, or a ValueError with its own words."""
    return _git_bytes(top, *args, config=config).decode("utf-8", "surrogateescape")


def _git_bytes(top: Path, *args: str, config: Sequence[str] = ()) -> bytes:
    """:func:`_git`'s stdout as bytes (a file's content at a revision)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        done = subprocess.run(
            [
                "git",
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",  # a program a repository's config names: not run
                *(f for item in config for f in ("-c", item)),
                *args,
            ],
            cwd=top,
            env=env,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise ValueError("--new-since needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise ValueError(f"git {args[0]} did not finish in {GIT_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ValueError(said[-1] if said else f"git {args[0]} failed")
    return done.stdout


def repository_top(root: Path) -> Path:
    """The top folder of the git repository holding ``root``."""
    try:
        return Path(_git(root, "rev-parse", "--show-toplevel").strip()).resolve()
    except ValueError:
        raise ValueError(f"{root} is not in a git repository") from None


def commit_of(top: Path, rev: str) -> str:
    """The commit ``rev`` names in the repository at ``top``."""
    if not rev or rev.startswith("-"):
        raise ValueError(f"{rev!r} is not a git revision")
    try:
        return _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    except ValueError:
        raise ValueError(f"unknown revision {rev!r}: git knows no commit of that name") from None


def moves(top: Path, commit: str) -> Moves:
    """Files changed, renamed and added between ``commit`` and the working tree."""
    found = Moves()
    fields = _git(top, "diff", "-M", "--name-status", "-z", commit, "--").split("\0")
    at = 0
    while at < len(fields) and fields[at]:
        status = fields[at]
        if status[0] in "RC":
            old, new = fields[at + 1], fields[at + 2]
            at += 3
            if status[0] == "R":
                found.renamed[new] = old
            else:
                found.added.add(new)
            found.changed.add(new)
            continue
        path = fields[at + 1]
        at += 2
        if status[0] == "A":
            found.added.add(path)
        found.changed.add(path)
    for path in _git(top, "ls-files", "--others", "--exclude-standard", "-z").split("\0"):
        if path:
            found.added.add(path)
            found.changed.add(path)
    return found


def _link_ignored(work: Path, tree: Path) -> None:
    """Link what servers read and git ignores from the working folder ``work`` into the
    same place of the worktree ``tree``, where the revision has nothing of that name."""
    for name in LINKED:
        source, target = work / name, tree / name
        if (source.exists() or source.is_symlink()) and not (
            target.exists() or target.is_symlink()
        ):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source, target_is_directory=source.is_dir())


def _remove(top: Path, folder: Path, tree: Path) -> None:
    """Remove the worktree, whatever state it is in, and git's record of it."""
    try:
        _git(top, "worktree", "remove", "--force", str(tree))
    except ValueError:
        pass
    shutil.rmtree(folder, ignore_errors=True)
    try:
        _git(top, "worktree", "prune")
    except ValueError:
        pass


async def new_since(
    ws: Workspace, rev: str, paths: Sequence[str | os.PathLike[str]] | None, timeout: float
) -> DiagnosticsReport:
    top = await asyncio.to_thread(repository_top, ws.root)
    commit = await asyncio.to_thread(commit_of, top, rev)
    files = None if paths is None else ws.files_of(paths)
    found = await asyncio.to_thread(moves, top, commit)
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
    # place (the daemon's second call on), no worktree and no second start of every server.
    in_root = len(changed) == len(found.changed) and not added and not renamed_back
    changed_paths = [ws.paths.absolute(name) for name in sorted(changed)]
    if in_root and warm_revision.warm(ws, changed_paths):
        old_texts = await asyncio.to_thread(_old_texts, top, commit, changed_paths)
        if old_texts is not None:
            return await warm_revision.in_place(ws, old_texts, files, timeout)

    folder = Path(tempfile.mkdtemp(prefix="adecore-lsp-since-"))
    tree = folder / "tree"
    # The working tree's side starts at once: it runs while git writes the revision's files.
    current = asyncio.ensure_future(ws.diagnostics(files, timeout=timeout))
    try:
        # The files written by one process per core (git 2.32 and later; older ones ignore
        # the setting): a third less time for networkx's 880 files on two cores.
        await asyncio.to_thread(
            partial(_git, config=["checkout.workers=0"]),
            *(top, "worktree", "add", "--detach", "--quiet", str(tree), commit),
        )
        twin_root = tree / below
        _link_ignored(top, tree)
        if below != Path(".") and twin_root.is_dir():
            _link_ignored(ws.root, twin_root)
        if not twin_root.is_dir():
            # The root did not exist at the revision: everything in it is new.
            after = await current
            return DiagnosticsReport(after.items, after.files, after.complete, after.reason)
        twin_files = _files_at_revision(ws, twin_root, files, added, renamed_back)
        # Both sides at once: each waits mostly on its own servers.
        after, before = await _both(current, _revision_side(ws, twin_root, twin_files, timeout))
        return _compare(ws, twin_root, before, after, changed, renamed_back)
    finally:
        await _surely(_end(current, top, folder, tree))


async def _end(
    current: asyncio.Future[DiagnosticsReport], top: Path, folder: Path, tree: Path
) -> None:
    """Cancel the working tree's side if it still runs, wait for it, remove the worktree."""
    current.cancel()
    await asyncio.gather(current, return_exceptions=True)
    await asyncio.to_thread(_remove, top, folder, tree)


def _old_texts(top: Path, commit: str, paths: Sequence[Path]) -> dict[Path, str] | None:
    """The texts ``paths`` have at ``commit`` (UTF-8); ``None`` when one cannot be had."""
    found: dict[Path, str] = {}
    for path in paths:
        try:
            data = _git_bytes(top, "show", f"{commit}:{path.relative_to(top).as_posix()}")
            found[path] = data.decode("utf-8")
        except ValueError:  # not at the revision, or not UTF-8 text
            return None
    return found


def _files_at_revision(
    ws: Workspace,
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
        if was.is_file():
            found.append(was)
    return found


async def _revision_side(
    ws: Workspace, twin_root: Path, twin_files: list[Path] | None, timeout: float
) -> DiagnosticsReport:
    """The diagnostics of the revision's worktree, with the working tree's servers,
    configuration and trust."""
    if twin_files == []:
        return DiagnosticsReport([], {}, True)
    # The same class as ``ws`` (no import of it here: it imports this module).
    twin = type(ws)(
        twin_root,
        servers=ws._pinned,
        registry=ws._base_registry,
        timeout=ws.timeout,
        max_open_files=ws.max_open_files,
        connect=ws._connect,
        trust=ws.trusted,
        on_untrusted=lambda _notice: None,
        config_root=ws.config_root,
    )
    async with twin:
        return await twin.diagnostics(twin_files, timeout=timeout)


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


async def _surely(work: Awaitable[None]) -> None:
    """Wait for ``work`` to the end even when cancelled meanwhile (the worktree must go);
    a cancellation received is raised again afterwards."""
    future = asyncio.ensure_future(work)
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True
    future.result()
    if cancelled:
        raise asyncio.CancelledError


def _compare(
    ws: Workspace,
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
        try:
            changes[name] = Change(read_text(old_path), read_text(ws.paths.absolute(name)))
        except (OSError, ValueError):
            continue  # added, deleted or unreadable: no lines to carry
    introduced, resolved, _unchanged = split(before.items, after.items, changes, renamed)
    complete = after.complete and before.complete
    reason = after.reason if not after.complete else before.reason
    return DiagnosticsReport(introduced, after.files, complete, reason, _sorted(resolved))


def _sorted(items: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(
        items, key=lambda d: (d.path, d.cell or 0, d.line, d.column, d.end_line, d.end_column)
    )
