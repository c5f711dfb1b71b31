"""``adecore-lsp hook HOST EVENT``: a coding agent's host runs it after each edit and when the
agent would stop; it answers, in the host's own protocol, with what the agent's edits
introduced by the one rule of ``changes.md`` (never an old finding), and nothing otherwise.

This is the half that runs where the workspace is (in the daemon, or here with ``--daemon
off``): it judges the edit and writes the host's answer; the host's half is
:mod:`.hook_front`. Each half keeps the hook's deadline, below the host's own limit: past it
the answer says the check is incomplete and never holds the agent.

After an edit, the files the tool wrote are checked with the files that depend on them (the
edit loop's affected set, :mod:`adecore_lsp.workspace.checks.edit_loop`), each against its text
before. At a stop, every file changed since the turn began, by the agent's tools or its
shell (:mod:`.hook_baseline`), with its dependents, against its text before the turn.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import enum
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

from ..errors import LspError
from ..workspace.checks import changes
from ..workspace.checks.edit_loop import loop_of
from ..workspace.checks.revisions import committed_text
from ..workspace.disk.listing import NotUtf8Error, read_text
from ..workspace.model import Diagnostic, DiagnosticsDelta
from ..workspace.workspace import Workspace
from . import hook_baseline
from .codex_patch import undo_hunks
from .hook_hosts import (
    HookEvent,
    HookInputError,
    Verdict,
    host_named,
    incomplete_verdict,
    read_event,
    undo,
)
from .hook_state import (
    Known,
    SessionState,
    Update,
    commit,
    digest,
    load,
    load_baseline,
    save_baseline,
    state_file,
)
from .output import Output

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []

SHOWN = 20
"""The most findings one answer lists (the rest are counted)."""
SEVERE = ("error", "warning")
"""The severities an answer names; an error holds the agent, a warning is only said."""


class _Unknown(enum.Enum):
    UNKNOWN = "unknown"


UNKNOWN = _Unknown.UNKNOWN
"""A text before that nothing tells."""

Before = str | _Unknown | None
"""A file's text before an edit: known, unknown, or none (the edit created it)."""


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
    update = Update()
    ends = time.monotonic() + args.deadline
    try:
        verdict = await asyncio.wait_for(judge(ws, event, state, update, path, ends), args.deadline)
    except asyncio.TimeoutError:
        verdict = incomplete_verdict(event, args.deadline)
    except (LspError, ValueError, OSError) as error:
        output.err.write(f"adecore-lsp hook: {error}\n")
        return host.failure_status
    try:
        await asyncio.to_thread(commit, path, update)
    except OSError as error:
        # The answer stands; the next call starts from less (said to the person).
        said = f"adecore-lsp: the session's state could not be kept in {path.parent}: {error}"
        verdict = replace(verdict, notice="; ".join(filter(None, [verdict.notice, said])))
    answer = host.answer(event, verdict)
    output.result(answer.stdout)
    if answer.stderr:
        output.err.write(answer.stderr)
    return answer.status


async def judge(
    ws: Workspace,
    event: HookEvent,
    state: SessionState,
    update: Update,
    path: Path,
    ends: float,
) -> Verdict:
    """What to answer ``event``; what the call changes in the session's state goes into
    ``update`` (merged into the state kept at ``path`` afterwards)."""
    first = await _baseline(ws, path)
    if event.kind == "stop":
        return await _at_stop(ws, event, state, update, path, ends, first)
    olds: dict[Path, str | None] = {}
    skipped: list[str] = []
    for given, old_or_unknown in _befores(ws, event, state):
        full = _inside(ws, event, given)
        if full is None:
            if _in_root(ws, event, given):
                skipped.append(given)  # a file of the root that no server takes
            continue
        shown = ws.paths.relative(full)
        try:
            new_text: str | None = read_text(full)
        except (NotUtf8Error, OSError):
            new_text = None
        old = old_or_unknown
        if old is UNKNOWN:
            old = _pending(state, shown, new_text)
        if old is UNKNOWN:
            old = state.seen.get(shown, UNKNOWN)
        if old is UNKNOWN:
            old = await asyncio.to_thread(committed_text, ws, full)
        if isinstance(old, _Unknown):
            old = None  # a file with no text before anywhere: all its findings are new
        update.first_texts[shown] = old
        if new_text is not None:
            update.seen[shown] = new_text
        if event.kind == "note":
            if old is not None and new_text is not None:
                update.pending[shown] = (old, digest(new_text))
            continue
        update.pending_done.add(shown)
        olds[full] = old
    if event.kind == "note":
        return Verdict()
    if not olds:
        return _untrusted(ws, skipped) or Verdict()
    delta = await changes.after_writes(ws, olds, ends, known=_remembered(ws, state))
    if ws.long_lived:
        # The daemon's workspace keeps every answer itself: the session's file stays small.
        update.unknown.update([*delta.checked, *delta.not_reached])
    else:
        _remember(ws, update, delta)
    found = [item for item in delta.introduced if item.severity in SEVERE]
    return _say(found, _unfinished(delta), "this edit introduced", block_on_errors=True)


def _befores(ws: Workspace, event: HookEvent, state: SessionState) -> list[tuple[str, Before]]:
    """Each file the event names with its text before the tool, where the tool tells it for
    certain (its replacements undone, a patch's hunks undone, a file a patch added: none);
    :data:`UNKNOWN` where it does not. A file the tool deleted comes too, its text before
    the last the session saw (or ``HEAD``'s)."""
    found: list[tuple[str, Before]] = []
    by_path = {patched.written: patched for patched in event.patch if patched.written is not None}
    for given in event.files:
        patched = by_path.get(given)
        old: Before = UNKNOWN
        full = _inside(ws, event, given, must_exist=False)
        text = None
        if full is not None and full.is_file():
            try:
                text = read_text(full)
            except (NotUtf8Error, OSError):
                text = None
        if patched is not None:
            if patched.action == "add":
                old = None
            elif not patched.hunks and not patched.moved_to:
                old = UNKNOWN  # an update without a hunk: nothing tells what it changed
            elif text is not None:
                undone = undo_hunks(text, patched.hunks)
                old = UNKNOWN if undone is None else undone
                if patched.moved_to and undone is not None:
                    found.append((patched.path, undone))  # the file it was moved from
        elif event.replacements is not None and text is not None:
            undone = undo(text, event.replacements)
            old = UNKNOWN if undone is None else undone
        found.append((given, old))
    known = {given for given, _old in found}
    for given in event.deleted:
        if given not in known:
            found.append((given, UNKNOWN))
    return found


def _pending(state: SessionState, shown: str, new_text: str | None) -> Before:
    """The text before the edit a host's earlier event remembered (Cursor's
    ``afterFileEdit``), when the file still holds what that edit left."""
    entry = state.pending.get(shown)
    if entry is None or new_text is None or entry[1] != digest(new_text):
        return UNKNOWN
    return entry[0]


async def _baseline(ws: Workspace, path: Path) -> bool:
    """Keep the tree's baseline at the session's first call (the stop compares with it);
    one that cannot be written leaves the stop with the turn's own records. Whether this
    call is the session's first."""
    if await asyncio.to_thread(load_baseline, path) is not None:
        return False
    loop = loop_of(ws)
    await loop.look(ws)
    stamps = dict(loop.tree.stamps or {})
    baseline = await asyncio.to_thread(hook_baseline.take, ws, stamps)
    with contextlib.suppress(OSError):
        await asyncio.to_thread(partial(save_baseline, path, baseline, first=True))
    return True


async def _at_stop(
    ws: Workspace,
    event: HookEvent,
    state: SessionState,
    update: Update,
    path: Path,
    ends: float,
    first: bool,
) -> Verdict:
    """At a stop: the errors the turn introduced, in every file changed since it began (by
    its tools or its shell) and in their dependents, against their texts before the turn;
    held once for the same errors, then let go (and the next turn begins). A session whose
    first call is this one kept nothing: git's ``HEAD`` stands for the turn's beginning."""
    loop = loop_of(ws)
    await loop.look(ws)
    stamps = dict(loop.tree.stamps or {})
    baseline = await asyncio.to_thread(load_baseline, path)
    olds: dict[Path, str | None] = {}
    unknown: list[str] = []
    if first:
        olds = await asyncio.to_thread(hook_baseline.changed_since_head, ws)
    elif baseline is not None:
        olds, unknown = await asyncio.to_thread(hook_baseline.changed_since, ws, baseline, stamps)
    for shown, old in state.turn.items():
        full = ws.paths.absolute(shown)
        if ws.takes(full):
            olds[full] = old  # the turn's own record of its first edit wins
            if shown in unknown:
                unknown.remove(shown)
    olds = {full: old for full, old in olds.items() if _text_or_none(full) != old}
    found: list[Diagnostic] = []
    unfinished: list[str] = []
    if olds:
        delta = await changes.after_writes(ws, olds, ends, use_kept=False)
        found = [item for item in delta.introduced if item.severity == "error"]
        unfinished = _unfinished(delta)
    held = sorted(str(item) for item in found)
    notice = ""
    if unknown:
        notice = (
            f"adecore-lsp: {len(unknown)} file{'s' if len(unknown) != 1 else ''} changed "
            f"outside the agent's edits with no text before kept ({', '.join(unknown[:5])}"
            f"{', ...' if len(unknown) > 5 else ''}): not judged"
        )
    if found and not (event.repeated and held == state.held):
        update.held = held
        verdict = _say(found, unfinished, "the edits of this turn introduced", block_on_errors=True)
        return replace(verdict, notice="; ".join(filter(None, [verdict.notice, notice])))
    update.end_turn = True
    with contextlib.suppress(OSError):
        baseline = await asyncio.to_thread(hook_baseline.take, ws, stamps)
        await asyncio.to_thread(save_baseline, path, baseline)
    verdict = _say(found, unfinished, "the edits of this turn introduced", block_on_errors=False)
    said = verdict.notice or (verdict.text if found else "")
    return Verdict(notice="; ".join(filter(None, [said, notice])))


def _text_or_none(full: Path) -> Before:
    try:
        return read_text(full)
    except FileNotFoundError:
        return None
    except (OSError, NotUtf8Error):
        return UNKNOWN


def _unfinished(delta: DiagnosticsDelta) -> list[str]:
    """The files the check did not reach, or why it is not complete."""
    if delta.complete:
        return []
    if delta.not_reached:
        return list(delta.not_reached)
    return [delta.reason or "timeout"]


def _remembered(
    ws: Workspace, state: SessionState
) -> Callable[[Path, str], list[Diagnostic] | None]:
    """The findings the session kept for a file holding a text, or None."""

    def known(path: Path, text: str) -> list[Diagnostic] | None:
        entry = state.known.get(ws.paths.relative(path))
        if entry is None or entry.digest != digest(text):
            return None
        return list(entry.findings)

    return known


def _remember(ws: Workspace, update: Update, delta: DiagnosticsDelta) -> None:
    """Keep the findings of every file the check covered, for the next call; forget those
    of the files it did not reach."""
    after = [*delta.introduced, *delta.unchanged]
    for shown in delta.checked:
        try:
            text = read_text(ws.paths.absolute(shown))
        except (NotUtf8Error, OSError):
            update.unknown.add(shown)
            continue
        update.known[shown] = Known(digest(text), [d for d in after if d.path == shown])
    update.unknown.update(delta.not_reached)


def _inside(ws: Workspace, event: HookEvent, given: str, *, must_exist: bool = True) -> Path | None:
    """The file ``given`` names, when it is in the root and a server takes it (and it
    exists, unless a deleted file is asked about)."""
    base = Path(event.cwd) if event.cwd else Path.cwd()
    full = (base / given).resolve()
    try:
        full.relative_to(ws.root)
    except ValueError:
        return None
    if must_exist and not full.is_file():
        return full if not full.exists() and given in event.deleted and ws.takes(full) else None
    return full if ws.takes(full) else None


def _in_root(ws: Workspace, event: HookEvent, given: str) -> bool:
    base = Path(event.cwd) if event.cwd else Path.cwd()
    return (base / given).resolve().is_relative_to(ws.root)


def _untrusted(ws: Workspace, skipped: list[str]) -> Verdict | None:
    """When no file could be checked and the root is not trusted: the person is told
    where the host shows it (nothing the project names was run, so nothing checked it)."""
    if not skipped or ws.untrusted_notice is None:
        return None
    return Verdict(notice=f"adecore-lsp: nothing was checked: {ws.untrusted_notice}", warn=True)


def _say(
    found: list[Diagnostic], unfinished: list[str], what: str, *, block_on_errors: bool
) -> Verdict:
    """The findings as text for the model (first the errors), with what did not finish."""
    notice = ""
    if unfinished:
        shown = ", ".join(unfinished[:10]) + (", ..." if len(unfinished) > 10 else "")
        notice = f"adecore-lsp: the check of {shown} did not finish"
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
