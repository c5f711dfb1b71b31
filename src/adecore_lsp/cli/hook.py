"""``adecore-lsp hook HOST EVENT``: a coding agent's host runs it after each edit and when the
agent would stop; it answers, in the host's own protocol, with what the agent's edits
introduced by the one rule of ``changes.md`` (never an old finding), and nothing otherwise.

This is the half that runs where the workspace is (in the daemon, or here with ``--daemon
off``): it judges the edit and writes the host's answer; the host's half is
:mod:`.hook_front`. Each half keeps the hook's deadline, below the host's own limit: past it
the answer says the check is incomplete and never holds the agent.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..errors import LspError
from ..workspace import changes
from ..workspace.files import NotUtf8Error, read_text
from ..workspace.model import Diagnostic, DiagnosticsDelta
from ..workspace.revisions import committed_text
from ..workspace.workspace import Workspace
from .hook_hosts import (
    HookEvent,
    HookInputError,
    Verdict,
    host_named,
    incomplete_verdict,
    read_event,
    undo,
)
from .hook_state import Known, SessionState, digest, load, save, state_file
from .output import Output

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []

SHOWN = 20
"""The most findings one answer lists (the rest are counted)."""
SEVERE = ("error", "warning")
"""The severities an answer names; an error holds the agent, a warning is only said."""


async def hook(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    """The workspace's side: judge the event and write the host's answer."""
    host = host_named(args.host)
    try:
        event = read_event(host, args.event, (args.input or "").encode("utf-8"))
    except HookInputError as error:
        output.err.write(f"adecore-lsp hook: {error}\n")
        return host.failure_status
    path = state_file(ws.root, event.session)
    state = await asyncio.to_thread(load, path)
    ends = time.monotonic() + args.deadline
    try:
        verdict = await asyncio.wait_for(judge(ws, event, state, ends), args.deadline)
    except asyncio.TimeoutError:
        verdict = incomplete_verdict(event, args.deadline)
    except (LspError, ValueError, OSError) as error:
        output.err.write(f"adecore-lsp hook: {error}\n")
        return host.failure_status
    try:
        await asyncio.to_thread(save, path, state)
    except OSError as error:
        # The answer stands; the next call starts from less (said to the person).
        said = f"adecore-lsp: the session's state could not be kept in {path.parent}: {error}"
        verdict = replace(verdict, notice="; ".join(filter(None, [verdict.notice, said])))
    answer = host.answer(event, verdict)
    output.result(answer.stdout)
    if answer.stderr:
        output.err.write(answer.stderr)
    return answer.status


async def judge(ws: Workspace, event: HookEvent, state: SessionState, ends: float) -> Verdict:
    """What to answer ``event``, the session's ``state`` brought up to date."""
    if event.kind == "stop":
        return await _at_stop(ws, event, state, ends)
    found: list[Diagnostic] = []
    unfinished: list[str] = []
    for given in event.files:
        full = _inside(ws, event, given)
        if full is None:
            continue
        shown = ws.paths.relative(full)
        try:
            new_text = read_text(full)
        except (NotUtf8Error, OSError):
            continue
        old = undo(new_text, event.replacements) if event.replacements is not None else None
        if old is None:
            old = state.seen.get(shown)
        if old is None:
            old = await asyncio.to_thread(committed_text, ws, full)
        state.turn.setdefault(shown, old)
        state.seen[shown] = new_text
        delta = await changes.after_write(
            ws, full, old, _left(ends), known=_remembered(ws, state, full, old)
        )
        _remember(ws, state, full, delta)
        found += [item for item in delta.introduced if item.severity in SEVERE]
        if not delta.complete:
            unfinished.append(f"{shown} ({delta.reason})" if delta.reason else shown)
    return _say(found, unfinished, "this edit introduced", block_on_errors=True)


async def _at_stop(ws: Workspace, event: HookEvent, state: SessionState, ends: float) -> Verdict:
    """At a stop: the errors the turn's edits introduced, against each file's text before
    the turn; held once for the same errors, then let go."""
    found: list[Diagnostic] = []
    unfinished: list[str] = []
    for shown, old in list(state.turn.items()):
        full = ws.root / shown
        if not full.is_file() or not ws.takes(full):
            continue
        delta = await changes.after_write(ws, full, old, _left(ends))
        found += [item for item in delta.introduced if item.severity == "error"]
        if not delta.complete:
            unfinished.append(shown)
    held = sorted(str(item) for item in found)
    if found and not (event.repeated and held == state.held):
        state.held = held
        return _say(found, unfinished, "the edits of this turn introduced", block_on_errors=True)
    state.turn.clear()
    state.held = []
    verdict = _say(found, unfinished, "the edits of this turn introduced", block_on_errors=False)
    return Verdict(notice=verdict.notice or (verdict.text if found else ""))


def _remembered(
    ws: Workspace, state: SessionState, edited: Path, old: str | None
) -> Callable[[list[Path]], list[Diagnostic] | None]:
    """The findings the last call left for ``files`` as they were before this edit (the
    edited file with ``old``, the others as on disk now), or None when one is not known."""

    def known(files: list[Path]) -> list[Diagnostic] | None:
        found: list[Diagnostic] = []
        for full in files:
            entry = state.known.get(ws.paths.relative(full))
            try:
                text = old if full == edited else read_text(full)
            except (NotUtf8Error, OSError):
                return None
            if entry is None or text is None or entry.digest != digest(text):
                return None
            found += entry.findings
        return found

    return known


def _remember(ws: Workspace, state: SessionState, edited: Path, delta: DiagnosticsDelta) -> None:
    """Keep the findings of every file the check covered, for the next call; forget them
    all when the check did not finish."""
    state.known.clear()
    if not delta.complete:
        return
    after = [*delta.introduced, *delta.unchanged]
    for full in changes.covered(ws, [edited]):
        shown = ws.paths.relative(full)
        try:
            text = read_text(full)
        except (NotUtf8Error, OSError):
            continue
        state.known[shown] = Known(digest(text), [d for d in after if d.path == shown])


def _inside(ws: Workspace, event: HookEvent, given: str) -> Path | None:
    """The file ``given`` names, when it is in the root and a server takes it."""
    base = Path(event.cwd) if event.cwd else Path.cwd()
    full = (base / given).resolve()
    try:
        full.relative_to(ws.root)
    except ValueError:
        return None
    return full if full.is_file() and ws.takes(full) else None


def _left(ends: float) -> float:
    return max(0.5, ends - time.monotonic())


def _say(
    found: list[Diagnostic], unfinished: list[str], what: str, *, block_on_errors: bool
) -> Verdict:
    """The findings as text for the model (first the errors), with what did not finish."""
    notice = ""
    if unfinished:
        notice = f"adecore-lsp: the check of {', '.join(unfinished)} did not finish"
    if not found:
        unknown = ": what the edit introduced is not known yet"
        return Verdict(text=notice + unknown if notice else "", notice=notice)
    found = sorted(found, key=lambda item: (item.severity != "error", item.path, item.line))
    errors = sum(1 for item in found if item.severity == "error")
    warnings = len(found) - errors
    counts = [
        f"{number} {word}{'s' if number != 1 else ''}"
        for number, word in ((errors, "error"), (warnings, "warning"))
        if number
    ]
    lines = [f"adecore-lsp: {what} {' and '.join(counts)}:"]
    lines += [f"{item} ({item.server})" if item.server else str(item) for item in found[:SHOWN]]
    if len(found) > SHOWN:
        lines.append(f"... and {len(found) - SHOWN} more")
    if notice:
        lines.append(notice + ": there may be more")
    return Verdict(text="\n".join(lines), block=block_on_errors and errors > 0, notice=notice)
