"""Readiness, and diagnostics known final for the current text of each file.

A wait never guesses: it sleeps until a server sends something or a settle window ends
(the trackers of :mod:`adecore_lsp.protocol.workspace.readiness` and ``.finality`` say when), and a
deadline that passes is reported as such (``timed_out``, ``complete: False``), never as
``ready`` or clean. The timeout of a wait for diagnostics bounds each server's silence, not
its work (:mod:`adecore_lsp.protocol.workspace.silence`): a server that answers or moves its
progress is waited for, one that says nothing new for the timeout is not.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import os
import time
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import ErrorCodes, LspError
from ...protocol.documents.notebooks import InvalidNotebookError
from ...protocol.documents.positions import check_encoding
from ...protocol.workspace.finality import FinalityStatus
from ...protocol.workspace.silence import UNANSWERED_TIMES, SilenceBounds, Stop
from ...session import LspSession
from ..disk.listing import NotUtf8Error
from ..disk.units import diagnostics_of
from ..files import notebooks
from ..model import (
    Diagnostic,
    DiagnosticsReport,
    FileReason,
    FileStatus,
    Readiness,
)
from ..servers.handles import HandshakeTimeout, ServerHandle
from . import pulls, scope_plan

if TYPE_CHECKING:
    from .needs import CheckNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Bounds = pulls.Bounds

Found = Callable[[Path, list[Diagnostic]], None]
"""Given a file and one server's findings of it (all of that server, as the report will
order them), once that server's answer for the file is final: the edit loop splits them
while the servers still work on the other files of a check."""

ANSWER_BY: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "adecore_lsp_answer_by", default=None
)
"""When the task at hand must answer by, work or not (``time.monotonic()``): an MCP tool
call, which its host ends. A wait for diagnostics inside it stops then and answers with what
is final; None (the default) for a caller that waits as long as the servers work."""


def bounds_for(timeout: float) -> Bounds:
    """New bounds for a check starting now, with :data:`ANSWER_BY` as their ``until``."""
    now = time.monotonic()
    until = ANSWER_BY.get()
    return SilenceBounds(timeout, now, None if until is None else max(now, until))


# -- readiness -------------------------------------------------------------------------------


async def ready(ws: CheckNeeds, path_or_id: str | os.PathLike[str], timeout: float) -> Readiness:
    """Wait for the server named by id, or for every server of a file (opened first)."""
    began = time.monotonic()
    handles = [h for h in ws.server_choice.handles if h.spec.id == str(path_or_id)]
    if not handles:
        if str(path_or_id) in ws.registry and not ws.paths.absolute(path_or_id).exists():
            spec = ws.registry.get(str(path_or_id))
            handle_list = [h for h in ws.server_choice.handles if h.spec is spec]
            if not handle_list:
                raise ValueError(
                    f"the server {spec.id} has not been started here: name a file it checks"
                )
            handles = handle_list
        else:
            handles = await ws.open(path_or_id)
            if not handles:
                raise ValueError(f"no language server of this workspace takes {path_or_id}")
    answers = await asyncio.gather(*(wait_ready(h, began, timeout) for h in handles))
    # The slowest answer speaks for them all: one not ready makes the file not ready.
    order = {"timed_out": 0, "no_signal": 1, "ready": 2}
    return min(answers, key=lambda answer: order[answer.state])


async def wait_ready(handle: ServerHandle, began: float, timeout: float) -> Readiness:
    """Wait for one server's readiness until ``began + timeout`` (started first if need be)."""
    await handle.session()
    deadline = began + timeout
    while True:
        now = time.monotonic()
        if handle.state == "crashed":
            raise await handle.translate(LspError(ErrorCodes.InternalError, "it exited"))
        check = handle.readiness.check(now)
        if check.state != "waiting":
            return Readiness(check.state, check.source, now - began, check.phases)
        if now >= deadline:
            return Readiness("timed_out", check.source, now - began, check.phases)
        wake = deadline if check.recheck_at is None else min(check.recheck_at, deadline)
        await handle.changed.wait(max(0.0, wake - now))


# -- diagnostics -----------------------------------------------------------------------------


def why_stopped(bounds: Bounds) -> list[str]:
    """A sentence per server a check stopped waiting for (by id, each once), saying why, in
    the words of the command line and MCP (whose ``--timeout`` is the bounds' timeout)."""
    said: dict[str, str] = {}
    for handle, stop in bounds.stopped().items():
        name = handle.spec.id
        if name in said:
            continue
        if stop.why == "silent":
            said[name] = (
                f"{name} said nothing new for {stop.after:g} s (no answer, no diagnostics, no "
                f"progress that moved; --timeout {bounds.timeout:g})"
            )
        elif stop.why == "unanswered":
            said[name] = (
                f"{name} kept reporting progress for {stop.after:g} s ({UNANSWERED_TIMES} times "
                f"--timeout {bounds.timeout:g}) without diagnostics for any file"
            )
        else:
            said[name] = (
                f"{name} was still working when the call's time was up ({round(stop.after, 1):g} s)"
            )
    return list(said.values())


async def diagnostics(
    ws: CheckNeeds,
    paths: Sequence[str | os.PathLike[str]] | None,
    timeout: float,
    *,
    reuse: bool = False,
    bounds: Bounds | None = None,
) -> DiagnosticsReport:
    """``Workspace.diagnostics``: ``paths`` may name files and folders, each checked by the
    servers whose command line, given that path, checks it (a folder, or the root when
    ``paths`` is None, stands for its files; :mod:`.scopes`); what none checks is in the
    report's ``left_out``; a file that is not UTF-8 is not checked (``not_utf8``), the
    others are. A configuration that could not be read is said in a ``UserWarning``.
    ``timeout`` bounds each server's silence (as :func:`files_diagnostics` says)."""
    # One file named twice (``app.py`` and ``./app.py``) is checked once.
    plan = scope_plan.plan_of(ws, paths)
    for notice in plan.notices:
        warnings.warn(notice, UserWarning, stacklevel=3)
    report = await files_diagnostics(
        ws, plan.files, timeout, reuse=reuse, servers=plan.servers, bounds=bounds
    )
    return with_left_out(ws, report, plan)


def with_left_out(
    ws: CheckNeeds, report: DiagnosticsReport, plan: scope_plan.Plan
) -> DiagnosticsReport:
    """``report`` with the files ``plan`` left out named, each with why; a report of
    nothing else is not complete (``left_out``): a file no server checked is never clean."""
    if not plan.left_out:
        return report
    left_out = {ws.paths.relative(path): why for path, why in plan.left_out.items()}
    nothing = not plan.files
    return replace(
        report,
        left_out=left_out,
        complete=report.complete and not nothing,
        reason="left_out" if nothing else report.reason,
    )


async def files_diagnostics(
    ws: CheckNeeds,
    files: list[Path],
    timeout: float,
    *,
    reuse: bool = False,
    servers: Mapping[Path, Collection[str]] | None = None,
    bounds: Bounds | None = None,
    on_found: Found | None = None,
) -> DiagnosticsReport:
    """:func:`diagnostics` of files already found (absolute paths, each once, as
    ``Workspace.files_of`` and ``root_files`` give them): the command line finds them once.
    With ``reuse``, a document whose diagnostics are final for its current text already (a
    pull answered since its last change, no refresh since) is not pulled again: the side
    "before" of an edit, taken just after the last check. ``servers`` names, for a file in
    it, the ids of the only servers that check it (its scope's, ``scope_plan.Plan.servers``).

    ``timeout`` bounds each server's silence, not its work: the wait for a server's files
    stops once it said nothing new for ``timeout`` seconds (no pull answered, no report on a
    file of the check, no progress that moved), or kept working ten times as long without a
    first answer for any of them; its files not final then are ``"timeout"``. ``bounds``
    carries that across the calls of one check (a batch at a time), and says which servers
    it stopped waiting for and why; a new one per call by default (:func:`bounds_for`).
    ``on_found`` is given each file's findings of each server as soon as they are final
    (the report then holds the very same findings where the workspace has an edit loop,
    whose conversions it takes again; a notebook's are placed in its cells, and given only
    in the report)."""
    if bounds is None:
        bounds = bounds_for(timeout)
    await ws.sync_disk()
    items: list[Diagnostic] = []
    statuses: dict[str, FileStatus] = {}
    for start in range(0, len(files), max(1, ws.max_open_files)):
        batch = files[start : start + max(1, ws.max_open_files)]
        opened_here = [f for f in batch if ws.paths.uri(f) not in ws.open_files]
        await _check(ws, batch, bounds, items, statuses, reuse, servers or {}, on_found)
        if len(files) > ws.max_open_files:
            with HeldWrites() as held:
                held.add(ws.server_choice.handles)
                for path in opened_here:
                    await ws.close(path)
    items.sort(key=report_order)
    complete = all(status.complete for status in statuses.values())
    reasons = [s.reason for s in statuses.values() if not s.complete]
    reason: FileReason | str | None = None
    wanted: FileReason
    for wanted in ("server_crashed", "timeout", "not_utf8", "unsupported"):
        if wanted in reasons:
            reason = wanted
            break
    else:
        reason = next((r for r in reasons if r is not None), None)  # an invalid notebook
    report = DiagnosticsReport(items, statuses, complete, reason)
    if ws.edit_loop is not None:
        # The final answers are the side before the next edit (``edit_loop``).
        ws.edit_loop.keep_checked(ws, files, report, servers or {})
    return report


def report_order(item: Diagnostic) -> tuple[object, ...]:
    """The order of a report's findings: by path, place and server."""
    return (
        item.path,
        item.cell or 0,
        item.line,
        item.column,
        item.end_line,
        item.end_column,
        item.server,
    )


async def _check(
    ws: CheckNeeds,
    files: list[Path],
    bounds: Bounds,
    items: list[Diagnostic],
    statuses: dict[str, FileStatus],
    reuse: bool = False,
    servers: Mapping[Path, Collection[str]] | None = None,
    on_found: Found | None = None,
) -> None:
    """Open ``files`` (each in ``servers``' ids for it, else in every server that takes
    it), wait for their final diagnostics, and add them to ``items``. A file that is not
    UTF-8 text is reported as not checked (``not_utf8``); the others are."""
    wanted: list[tuple[ServerHandle, str, Path]] = []

    def convert_now(handle: ServerHandle, uri: str, path: Path, status: FinalityStatus) -> None:
        if uri in ws.open_files:  # (a notebook's cells are placed once, below)
            found = _findings(ws, handle, uri, status)
            if on_found is not None:
                on_found(path, sorted(found, key=report_order))

    # With an edit loop, each answer is converted as it becomes final, while the servers
    # work on the others; the conversions below then take the findings made (its
    # ``Conversions``). Without one, an answer is converted once, below (and once more
    # before, when ``on_found`` is given).
    early = convert_now if ws.edit_loop is not None or on_found is not None else None

    # The opens go out together, and so do the pulls that follow answers read together.
    with HeldWrites() as held:
        for path in files:
            held.add(await _open(ws, path, wanted, statuses, (servers or {}).get(path)))
        final = await _final(ws, wanted, bounds, reuse, early)
    for handle, uri, path, status in final:
        shown = ws.paths.relative(path)
        view = ws.notebook(uri) if uri not in ws.open_files else None
        found = _findings(ws, handle, uri, status)
        if view is not None:
            placed = (notebooks.place(view, uri, item, shown) for item in found)
            found = [item for item in placed if item is not None]
        items += found
        previous = statuses.get(shown)
        if status.final:
            if previous is None:
                statuses[shown] = FileStatus(True)
        elif handle.state == "crashed":
            statuses[shown] = FileStatus(False, "server_crashed")
        elif previous is None or previous.complete:
            statuses[shown] = FileStatus(False, "timeout")


def _findings(
    ws: CheckNeeds, handle: ServerHandle, uri: str, status: FinalityStatus
) -> list[Diagnostic]:
    """A server's findings of a document, as its finality tracker holds them."""
    session = handle.live
    encoding = check_encoding((session.position_encoding if session else None) or "utf-16")
    # The edit loop converts again only the answers that changed (``Conversions``).
    convert = diagnostics_of if ws.edit_loop is None else ws.edit_loop.conversions.diagnostics_of
    return convert(
        ws.paths, ws.texts, uri, status.items, encoding, handle.spec.id, not status.final
    )


Early = Callable[[ServerHandle, str, Path, FinalityStatus], None]
"""Called with a wanted document as soon as its diagnostics are final, during the wait."""


class _Once:
    """``early`` of a wanted document whose diagnostics are final now, once for each answer
    that made it final (its pull ended, or the wait saw it final), and only while its check
    lasts: a pull's callback that comes after the check ended does nothing."""

    def __init__(self, wanted: list[tuple[ServerHandle, str, Path]], early: Early) -> None:
        self.paths = {(handle, uri): path for handle, uri, path in wanted}
        self.early: Early | None = early
        self._given: dict[tuple[ServerHandle, str], list[object]] = {}

    def __call__(self, handle: ServerHandle, uri: str) -> None:
        path = self.paths.get((handle, uri))
        if self.early is None or path is None:
            return
        status = handle.finality.status(uri, time.monotonic())
        if status.final and self._given.get((handle, uri)) is not status.items:
            self._given[handle, uri] = status.items
            self.early(handle, uri, path, status)

    def end(self) -> None:
        self.early = None


async def _final(
    ws: CheckNeeds,
    wanted: list[tuple[ServerHandle, str, Path]],
    bounds: Bounds,
    reuse: bool = False,
    early: Early | None = None,
) -> list[tuple[ServerHandle, str, Path, FinalityStatus]]:
    """Pull what the servers answer pulls for (with ``reuse``, not what is final already),
    and wait until the diagnostics of every wanted document are final, or its server's
    ``bounds`` passed: each with its status at that moment (and given to ``early`` as it
    becomes final)."""
    bounds.begin(time.monotonic())
    pulled = {
        handle: [u for h, u, _ in wanted if h is handle and notebooks.pulled_by_workspace(h, u)]
        for handle in {h for h, _, _ in wanted}
    }
    now = time.monotonic()
    known = {
        (handle, uri)
        for handle, uris in pulled.items()
        for uri in uris
        if reuse and handle.finality.status(uri, now).final
    }
    # Only the documents the server answers pulls for now: one whose server may register
    # pulls later (or never: jedi) is final by its pushes, and must not hold the wait.
    answering = {
        (handle, uri)
        for handle, uris in pulled.items()
        if (session := handle.live) is not None
        for uri in uris
        if session.supports("textDocument/diagnostic", uri) and (handle, uri) not in known
    }
    first = pulls.FirstRound([handle for handle, _ in answering])
    once = None if early is None else _Once(wanted, early)
    pulling = [
        asyncio.ensure_future(
            pulls.pull_all(
                handle,
                uris,
                first,
                {u for h, u in answering if h is handle},
                [u for u in uris if (handle, u) not in known],
                None if once is None else partial(once, handle),
            )
        )
        for handle, uris in pulled.items()
    ]
    try:
        await first.wait(bounds)
        await _wait_final(ws, wanted, bounds, once)
        # Every status is read at the moment the wait ended, before anything else can
        # arrive (the pulls end after this, and may be answered meanwhile).
        now = time.monotonic()
        final = [
            (handle, uri, path, handle.finality.status(uri, now)) for handle, uri, path in wanted
        ]
    finally:
        if once is not None:
            once.end()
        for task in pulling:
            task.cancel()
        await asyncio.gather(*pulling, return_exceptions=True)
    return final


async def _open(
    ws: CheckNeeds,
    path: Path,
    wanted: list[tuple[ServerHandle, str, Path]],
    statuses: dict[str, FileStatus],
    only: Collection[str] | None = None,
) -> list[ServerHandle]:
    """Open one file of a check (in the servers whose ids are ``only``, when given): its
    documents join ``wanted``, or its status says why it is not checked. The servers that
    have it. A server that may not start here (its configuration names a program, in a
    folder that is not trusted) leaves the file not final, saying why."""
    asked = {
        h.spec.id: h.refusal() for h in ws.handles_for(path) if only is None or h.spec.id in only
    }
    refused = [why for why in asked.values() if why is not None]
    if refused:
        statuses[ws.paths.relative(path)] = FileStatus(False, refused[0])
        only = {server for server, why in asked.items() if why is None}
        if not only:
            return []
    try:
        if only is None:
            handles = await ws.open(path)
        else:
            handles = await ws.open_files.open(path, servers=only)
    except HandshakeTimeout:
        statuses[ws.paths.relative(path)] = FileStatus(False, "timeout")
        return []
    except NotUtf8Error:
        statuses[ws.paths.relative(path)] = FileStatus(False, "not_utf8")
        return []
    except InvalidNotebookError as error:
        statuses[ws.paths.relative(path)] = FileStatus(False, f"invalid notebook: {error}")
        return []
    if not handles:
        statuses[ws.paths.relative(path)] = FileStatus(False, "unsupported")
        return []
    uri = ws.paths.uri(path)
    wanted.extend(
        (handle, tracked_uri, path)
        for handle in handles
        for tracked_uri in notebooks.tracked(handle, uri)
    )
    return handles


class HeldWrites(contextlib.ExitStack):
    """Holds the writes of servers for a block (:meth:`LspSession.held_writes`): a batch of
    opens or closes goes out in one write a server. A server is held from when it is
    added ready; one that starts within the block is added after it has started."""

    def __init__(self) -> None:
        super().__init__()
        self._held: set[LspSession] = set()

    def add(self, handles: Iterable[ServerHandle]) -> None:
        for handle in handles:
            session = handle.ready_session()
            if session is not None and session not in self._held:
                self._held.add(session)
                self.enter_context(session.held_writes())


async def _wait_final(
    ws: CheckNeeds,
    wanted: list[tuple[ServerHandle, str, Path]],
    bounds: Bounds,
    final_now: Callable[[ServerHandle, str], None] | None = None,
) -> None:
    """Sleep until every wanted document's diagnostics are final, or its server's bound
    passed (it is then given up on in ``bounds``).

    Each wake looks only at the documents still waiting (a final one leaves the list), and
    sleeps until the earliest of their settle windows and bounds ends or a server says
    something. A document of a server that stays silent when nothing changed (its spec
    names a ``diagnostics_probe``) is asked about directly once it has been silent for the
    server's settle window.
    """
    waiting = [(handle, uri, path) for handle, uri, path in wanted]
    probes: dict[tuple[int, str, int], asyncio.Future[object]] = {}
    try:
        while True:
            now = time.monotonic()
            stops: dict[ServerHandle, Stop] = {}
            still: list[tuple[ServerHandle, str, Path]] = []
            wake = math.inf
            for handle, uri, path in waiting:
                if handle.state == "crashed":
                    continue
                status = handle.finality.status(uri, now)
                if status.final:
                    if final_now is not None:
                        final_now(handle, uri)
                    continue
                stop = stops.get(handle)
                if stop is None:
                    stop = stops[handle] = pulls.stop_of(bounds, handle)
                if now >= stop.at:
                    continue
                still.append((handle, uri, path))
                wake = min(wake, stop.at)
                if status.recheck_at is not None and status.recheck_at < wake:
                    wake = status.recheck_at
                late_pull = notebooks.pulled_when_silent(handle, uri)
                silent = (
                    handle.finality.silent_since(uri)
                    if handle.spec.diagnostics_probe or late_pull
                    else None
                )
                if silent is not None:
                    version, since = silent
                    ask_at = since + handle.spec.settle
                    key = (id(handle), uri, version)
                    if now >= ask_at and key not in probes:
                        probes[key] = asyncio.ensure_future(
                            pulls.pull_one(handle, uri)
                            if late_pull
                            else pulls.probe(handle, uri, path, version)
                        )
                    elif ask_at < wake:
                        wake = ask_at
            for handle, stop in stops.items():
                if now >= stop.at:
                    bounds.gave_up(handle, stop, pulls.heard(handle), handle.finality.answered_at)
            waiting = still
            if not waiting:
                # Final at the same moment, all of them: one that got another report for
                # its version since it was final is waited for again (while its server's
                # bound has not passed).
                waiting = [
                    (handle, uri, path)
                    for handle, uri, path in wanted
                    if handle.state != "crashed"
                    and not handle.finality.status(uri, now).final
                    and now < pulls.stop_of(bounds, handle).at
                ]
                if not waiting:
                    return
                continue
            await ws.changed.wait(max(0.0, wake - now))
    finally:
        for task in probes.values():
            task.cancel()
        await asyncio.gather(*probes.values(), return_exceptions=True)
