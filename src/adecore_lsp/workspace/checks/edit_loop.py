"""An edit and what it broke, at a cost that follows the edit: the machinery behind
``Workspace.edit``, ``preview_edit``, ``apply``, the MCP server's writing tools and the hook.

Each workspace keeps an :class:`EditLoop`: the import graph of its root in step with the disk
(:mod:`.tree_imports`) and the last final answer of each server for each file's text
(:mod:`.answers`). An edit is checked in its affected set (:mod:`.affected`), not in every
file that happens to be open:

1. **before**: each affected file's last final answer for its current text, where one is
   kept; the others are asked (opened for the question when they are not open), before
   anything is written;
2. the write, and the graph brought up to date (what changed forgets its answers and those
   of its dependents);
3. **after**: every affected file that had an answer before is asked again, each by the
   servers the affected set names, until the deadline; its answers are kept for the next
   edit;
4. the files opened for the question are closed again, and the delta is taken by the one
   rule (:mod:`.delta`) over the files that have both sides; a file that has not is named
   in ``not_reached`` and makes the delta incomplete, never silently clean.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import posixpath
import time
from collections.abc import (
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from ..disk.units import Conversions
from ..model import Diagnostic, DiagnosticsDelta, DiagnosticsReport, FileStatus
from . import checking
from .affected import Affected
from .answers import Answers
from .delta import Splitter
from .tree_imports import LAYOUT_FILES, TreeChanges, TreeImports, covered

if TYPE_CHECKING:
    from .needs import CheckNeeds

# Internal to the library: nothing here is public API.
__all__: list[str] = []

FRESH_STOCK = 0.25
"""Seconds within which the tree's stock a workspace took (for the servers that watch
files) is fresh enough for the graph: older, the graph looks at the disk itself."""

Known = Callable[[Path, str], "list[Diagnostic] | None"]
"""Findings of a file holding a text, from elsewhere (a hook session's memory), or ``None``."""

P = ParamSpec("P")
R = TypeVar("R")
W = TypeVar("W", bound="CheckNeeds")


def one_at_a_time(
    work: Callable[Concatenate[W, P], Awaitable[R]],
) -> Callable[Concatenate[W, P], Awaitable[R]]:
    """``work`` (an edit and its delta) runs alone in its workspace: each shows the servers
    texts of its own (the text before, a preview) and must not see another's. Agents run
    tools in parallel; their edits are checked one after the other."""

    async def alone(ws: W, /, *args: P.args, **kwargs: P.kwargs) -> R:
        async with loop_of(ws).serial:
            return await work(ws, *args, **kwargs)

    functools.update_wrapper(alone, work)
    return alone


def loop_of(ws: CheckNeeds) -> EditLoop:
    """The workspace's edit loop, made on first use."""
    if ws.edit_loop is None:
        ws.edit_loop = EditLoop(ws.root)
    return ws.edit_loop


@dataclass
class Side:
    """One side of a delta: the findings, and the files whose findings are final."""

    items: list[Diagnostic] = field(default_factory=list)
    reached: set[Path] = field(default_factory=set)
    statuses: dict[str, FileStatus] = field(default_factory=dict)


class EditLoop:
    """The import graph and the answers kept of one workspace (see the module's docstring)."""

    def __init__(self, root: Path) -> None:
        self.tree = TreeImports(root)
        self.answers = Answers()
        self.conversions = Conversions()
        self._lock = asyncio.Lock()
        self.serial = asyncio.Lock()
        """Held by each edit and its delta (:func:`one_at_a_time`)."""
        self._seen = TreeChanges()
        """What the looks saw that :meth:`forget` has not been given yet."""

    async def look(self, ws: CheckNeeds, *, aside: bool = False) -> TreeChanges:
        """Bring the graph in step with the disk; what changed since the answers were last
        made to follow the disk (nothing the first time). The answers of what changed are
        still kept: :meth:`forget` them once the side before that needs them is taken.
        ``aside``: the files are read in a thread, the loop serving meanwhile (a look made
        while the servers work, :meth:`after_write`)."""
        found = await self._refresh(ws, aside)
        seen = self._seen
        seen.changed = sorted({*seen.changed, *found.changed})
        seen.created = sorted({*seen.created, *found.created})
        seen.deleted = sorted({*seen.deleted, *found.deleted})
        seen.layout = seen.layout or found.layout
        return TreeChanges(list(seen.changed), list(seen.created), list(seen.deleted), seen.layout)

    async def _refresh(self, ws: CheckNeeds, aside: bool = False) -> TreeChanges:
        async with self._lock:
            stock = ws.tree.stock
            if stock is not None and time.monotonic() - ws.tree.at < FRESH_STOCK:
                stock = dict(stock)
            else:
                stock = None
            if not self.tree.ready or aside:
                # The first look reads the tree's code: in a thread, the loop serving meanwhile.
                return await asyncio.to_thread(self.tree.refresh, stock)
            # Later looks read only what changed, on the loop: nothing else then touches
            # the graph while it changes.
            return self.tree.refresh(stock)

    def forget(self, ws: CheckNeeds, changes: TreeChanges, kept: Collection[Path] = ()) -> None:
        """Forget the answers that ``changes`` may have made wrong: every answer when a
        configuration changed; else those of the code files changed, created or deleted
        and of their dependents, and every answer of another language when a file of one
        changed. The answers of ``kept`` stay: files checked since the changes were made."""
        self._seen = TreeChanges()
        stay = {ws.paths.relative(path) for path in kept}
        paths = changes.paths
        if any(posixpath.basename(path) in LAYOUT_FILES for path in paths):
            self.answers.forget([path for path in self.answers.paths() if path not in stay])
            return
        graphed = [path for path in paths if covered(path)]
        if graphed:
            shown = [ws.paths.relative(Path(path)) for path in graphed]
            shown += [ws.paths.relative(Path(path)) for path in self.tree.dependents(graphed)]
            self.answers.forget([path for path in shown if path not in stay])
        if any(not covered(path) and ws.takes(Path(path)) for path in paths):
            self.answers.forget(
                [path for path in self.answers.paths() if not covered(path) and path not in stay]
            )

    def dependents(self, paths: Sequence[Path]) -> list[Path]:
        """The files of the graph an edit of ``paths`` may break, nearest first."""
        found = self.tree.dependents(path.as_posix() for path in paths)
        return [Path(path) for path in found]

    async def check(
        self,
        ws: CheckNeeds,
        affected: Affected,
        files: Sequence[Path],
        ends: float,
        *,
        reuse: bool,
        on_found: checking.Found | None = None,
    ) -> DiagnosticsReport:
        """The diagnostics of ``files`` (each by its servers in ``affected``) until ``ends``;
        the answers that finished for texts on disk are kept (:meth:`keep_checked`)."""
        servers = {path: affected.servers.get(path, frozenset()) for path in files}
        timeout = max(0.0, ends - time.monotonic())
        return await checking.files_diagnostics(
            ws, list(files), timeout, reuse=reuse, servers=servers, on_found=on_found
        )

    def keep_checked(
        self,
        ws: CheckNeeds,
        files: Sequence[Path],
        report: DiagnosticsReport,
        servers: Mapping[Path, Collection[str]],
    ) -> None:
        """Keep the answers of a check that finished (any check of the workspace: the side
        before the next edit), each by the servers ``servers`` names for it, else every
        server that has it open. Only while the servers hold the disk's texts: with an
        unsaved text anywhere (a preview, a text before shown for a delta), every file's
        answer may be about that text, and none is kept."""
        if any(known.unsaved for _uri, known in ws.open_files.items()):
            return
        texts: dict[str, str] = {}
        shown_servers: dict[str, Collection[str]] = {}
        handles = ws.server_choice.handles
        for path in files:
            uri = ws.paths.uri(path)
            known = ws.open_files.get(uri)
            if known is None:
                continue
            shown = ws.paths.relative(path)
            texts[shown] = known.text
            ids = servers.get(path)
            shown_servers[shown] = (
                ids if ids is not None else [h.spec.id for h in handles if h.has(uri)]
            )
        self.answers.keep_report(report, texts, shown_servers)

    def kept(
        self, ws: CheckNeeds, affected: Affected, texts: Mapping[Path, str], known: Known | None
    ) -> Side:
        """The side before from what is kept: each affected file's answers for its text
        (``texts``, else the text the workspace holds), from this loop, else from ``known``.
        Nothing is taken while the workspace holds an unsaved text (``update``): the answers
        kept are about the disk's texts."""
        side = Side()
        if any(held.unsaved for _uri, held in ws.open_files.items()):
            return side
        for path in affected.files:
            text = texts.get(path)
            if text is None:
                held = ws.open_files.get(ws.paths.uri(path))
                if held is None or held.unsaved:
                    continue
                text = held.text
            shown = ws.paths.relative(path)
            found = self.answers.known(shown, text, affected.servers.get(path, ()))
            if found is None and known is not None:
                found = known(path, text)
            if found is not None:
                side.items += found
                side.reached.add(path)
                side.statuses[shown] = FileStatus(True)
        return side

    async def before(
        self,
        ws: CheckNeeds,
        affected: Affected,
        ends: float,
        texts: Mapping[Path, str] | None = None,
        known: Known | None = None,
    ) -> Side:
        """The side before the edit, the texts the servers hold now: what is kept, and the
        other files asked (their answers kept too) until ``ends``."""
        side = self.kept(ws, affected, texts or {}, known)
        missing = [path for path in affected.files if path not in side.reached]
        if missing:
            report = await self.check(ws, affected, missing, ends, reuse=True)
            add(ws, side, report, missing)
        return side

    async def after(
        self,
        ws: CheckNeeds,
        affected: Affected,
        before: Side,
        ends: float,
        *,
        moves: Mapping[Path, Path] | None = None,
        early: Splitter | None = None,
    ) -> Side:
        """The side after the edit: the affected files that have a side before (and still
        exist; a file renamed by its new path, ``moves``), asked again until ``ends``. Each
        file's findings are given to ``early`` (the delta's splitter) as they are final,
        to be split against the side before while the servers work on the others."""
        moved = moves or {}
        for old, new in moved.items():
            if old in affected.servers:
                affected.servers.setdefault(new, affected.servers[old])
        files = [
            moved.get(path, path)
            for path in affected.files
            if path in before.reached and moved.get(path, path).is_file()
        ]
        side = Side()
        on_found: checking.Found | None = None
        if early is not None:
            reached = {ws.paths.relative(path) for path in before.reached}
            early.expect(item for item in before.items if item.path in reached)
            on_found = _to(early)
        if files:
            report = await self.check(ws, affected, files, ends, reuse=False, on_found=on_found)
            add(ws, side, report, files)
        return side

    async def after_write(
        self,
        ws: CheckNeeds,
        affected: Affected,
        before: Side,
        ends: float,
        *,
        moves: Mapping[Path, Path] | None = None,
        early: Splitter | None = None,
    ) -> Side:
        """:meth:`after` an edit written to disk, the graph brought in step with the disk
        meanwhile (its files read in a thread while the servers work, not before they are
        asked); then what the look found is forgotten, all but the answers this check kept
        (they are about the texts now on disk)."""
        looking = asyncio.ensure_future(self.look(ws, aside=True))
        side: Side | None = None
        try:
            side = await self.after(ws, affected, before, ends, moves=moves, early=early)
        finally:
            changes = await looking
            self.forget(ws, changes, side.reached if side is not None else ())
        return side


def _to(splitter: Splitter) -> checking.Found:
    """A check's findings of each file, as they are final, given to ``splitter``."""

    def found(_path: Path, items: list[Diagnostic]) -> None:
        splitter.found(items)

    return found


def add(ws: CheckNeeds, side: Side, report: DiagnosticsReport, files: Iterable[Path]) -> None:
    """Add what ``report`` knows of ``files`` to ``side``: the findings and statuses of
    every file, and as reached those whose check finished."""
    side.items += report.items
    side.statuses.update(report.files)
    for path in files:
        status = report.files.get(ws.paths.relative(path))
        if status is not None and status.complete:
            side.reached.add(path)


@contextlib.contextmanager
def opened_for_the_question(
    ws: CheckNeeds, affected: Affected, *, keep_edited: bool = True
) -> Iterator[None]:
    """Within the block the affected files may be opened; those that were not open before
    it are closed after it (the edited files aside, with ``keep_edited``: an edit of one
    file leaves it open, as the caller works on it), so that an edit leaves the servers with
    the files they had."""
    was_open = {path for path in affected.files if ws.paths.uri(path) in ws.open_files}
    try:
        yield
    finally:
        kept = set(affected.edited) if keep_edited else set()
        for path in affected.files:
            if path not in was_open and path not in kept and not ws.closed:
                uri = ws.paths.uri(path)
                known = ws.open_files.get(uri)
                if known is not None and not known.unsaved:
                    ws.open_files.close(path)


def delta(
    ws: CheckNeeds,
    affected: Affected,
    before: Side,
    after: Side,
    rule: Splitter,
    moved_to: Mapping[Path, Path] | None = None,
) -> DiagnosticsDelta:
    """The delta over the affected files that have both sides; the others are named in
    ``not_reached`` (complete only when there are none, and every file's check finished).
    ``rule`` is made of the change (its files' texts, the files it renamed): the one the
    side after was taken with, which has split what it could already."""
    moves = moved_to or {}
    both = {path for path in before.reached if moves.get(path, path) in after.reached}
    reached_shown = {ws.paths.relative(path) for path in both}
    reached_after = {ws.paths.relative(moves.get(path, path)) for path in both}
    not_reached = [
        ws.paths.relative(path) for path in affected.files if path not in both and path.exists()
    ]
    unsupported = [
        shown
        for shown, status in {**before.statuses, **after.statuses}.items()
        if not status.complete and status.reason in ("unsupported", "not_utf8")
    ]
    not_reached = [shown for shown in not_reached if shown not in unsupported]
    old = [item for item in before.items if item.path in reached_shown]
    new = [item for item in after.items if item.path in reached_after]
    introduced, resolved, unchanged = rule.split(old, new)
    reasons = [
        status.reason
        for status in [*before.statuses.values(), *after.statuses.values()]
        if not status.complete and status.reason is not None
    ]
    complete = not not_reached and not unsupported
    reason = None
    if not complete:
        reason = next(
            (
                r
                for wanted in ("server_crashed", "timeout", "not_utf8", "unsupported")
                for r in reasons
                if r == wanted
            ),
            reasons[0] if reasons else "timeout",
        )
    return DiagnosticsDelta(
        introduced,
        resolved,
        unchanged,
        complete,
        reason,
        checked=sorted(reached_after),
        not_reached=not_reached,
    )
