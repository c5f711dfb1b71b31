"""What a hook remembers of an agent's session between its calls: the text each file had
when the hook last saw it, the text each file had before the agent's turn first edited it,
and the errors a stop hook last held the agent for.

One small JSON file per root and session under ``$XDG_STATE_HOME/adecore-lsp/hooks``,
named by digests (a session id is the host's, a stranger's string), replaced atomically;
files of sessions untouched for a week are removed as others are written. Agents run tools
in parallel, so several hooks of one session may end at once: each call's changes are an
:class:`Update`, merged into the state as it is on disk under a lock (:func:`commit`), so
none is lost. Beside it, the session's **baseline** (:class:`Baseline`): the tree as it was
when the turn began, so that a stop finds the files changed by any means (an agent's shell
too), with their texts before.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..workspace.model import Diagnostic
from ..write_journal import state_folder

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []

KEPT_FOR = 7 * 24 * 3600.0
"""Seconds a session's file is kept after its last write."""


@dataclass
class SessionState:
    """One session's memory, by path relative to the root."""

    seen: dict[str, str] = field(default_factory=dict)
    """Each file's text as the hook last saw it (after the agent's edit)."""
    turn: dict[str, str | None] = field(default_factory=dict)
    """Each file the turn edited, with its text before the turn's first edit (``None``: the
    turn created it)."""
    held: list[str] = field(default_factory=list)
    """The errors the stop hook last held the agent for, as text."""
    known: dict[str, Known] = field(default_factory=dict)
    """The findings of each file checked at the last call, with the digest of its text then:
    a later edit of a file whose text before it is that one needs no check of the text
    before."""
    pending: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Each file a host's event told of without asking for a check (Cursor's
    ``afterFileEdit``): its text before that edit, and the digest of its text after it."""


@dataclass
class Known:
    """A file's findings for the text whose digest is ``digest``."""

    digest: str
    findings: list[Diagnostic]


def digest(text: str) -> str:
    """The digest :class:`Known` keeps of a text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_FIELDS = ("path", "line", "column", "end_line", "end_column", "severity", "message")
_OPTIONAL = ("source", "code", "server", "stale", "cell")


def _finding(data: Any) -> Diagnostic | None:
    """A finding kept as JSON, or None when it is not one (a damaged file)."""
    if not isinstance(data, dict) or any(key not in data for key in _FIELDS):
        return None
    try:
        return Diagnostic(**{k: data[k] for k in (*_FIELDS, *_OPTIONAL) if k in data})
    except TypeError:
        return None


def _known(data: Any) -> dict[str, Known]:
    found: dict[str, Known] = {}
    if not isinstance(data, dict):
        return found
    for path, entry in data.items():
        if isinstance(entry, dict) and isinstance(entry.get("digest"), str):
            items = [_finding(item) for item in entry.get("findings") or []]
            if all(item is not None for item in items):
                found[path] = Known(entry["digest"], [i for i in items if i is not None])
    return found


def state_file(root: Path, session: str) -> Path:
    """The file of ``session`` in ``root``."""
    folder = hashlib.sha256(os.fsencode(root)).hexdigest()[:32]
    name = hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()[:32]
    return state_folder() / "hooks" / folder / f"{name}.json"


def load(path: Path) -> SessionState:
    """The state kept at ``path``; an empty one when there is none or it cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return SessionState()
    if not isinstance(data, dict):
        return SessionState()
    seen = data.get("seen")
    turn = data.get("turn")
    held = data.get("held")
    pending = data.get("pending")
    return SessionState(
        {k: v for k, v in seen.items() if isinstance(v, str)} if isinstance(seen, dict) else {},
        {k: v for k, v in turn.items() if v is None or isinstance(v, str)}
        if isinstance(turn, dict)
        else {},
        [item for item in held if isinstance(item, str)] if isinstance(held, list) else [],
        _known(data.get("known")),
        {
            k: (v[0], v[1])
            for k, v in pending.items()
            if isinstance(v, list) and len(v) == 2 and all(isinstance(i, str) for i in v)
        }
        if isinstance(pending, dict)
        else {},
    )


@dataclass
class Update:
    """What one hook call changes in its session's state, merged into the state as it is
    when the call ends (another call of the session may have written it meanwhile)."""

    first_texts: dict[str, str | None] = field(default_factory=dict)
    """Each file the call saw edited, with its text before: kept only where the turn has
    none yet (the turn's first edit of a file gives its text before the turn)."""
    seen: dict[str, str] = field(default_factory=dict)
    known: dict[str, Known] = field(default_factory=dict)
    """Findings of files checked by the call, replacing those kept."""
    unknown: set[str] = field(default_factory=set)
    """Files whose kept findings the call found wrong or could not check: forgotten."""
    held: list[str] | None = None
    end_turn: bool = False
    """The turn ended (a stop let the agent go): its files and errors are forgotten."""
    pending: dict[str, tuple[str, str]] = field(default_factory=dict)
    pending_done: set[str] = field(default_factory=set)
    """Files checked by the call: what an earlier event remembered of them is used."""

    def apply(self, state: SessionState) -> None:
        """Merge this update into ``state``."""
        if self.end_turn:
            state.turn.clear()
            state.held = []
            state.pending.clear()
        for shown in self.pending_done:
            state.pending.pop(shown, None)
        state.pending.update(self.pending)
        for shown, text in self.first_texts.items():
            state.turn.setdefault(shown, text)
        state.seen.update(self.seen)
        for shown in self.unknown:
            state.known.pop(shown, None)
        state.known.update(self.known)
        if self.held is not None and not self.end_turn:
            state.held = list(self.held)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the session's lock (a file beside its state) for the block: one writer at a
    time, across processes."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing the descriptor releases the lock


def commit(path: Path, update: Update) -> SessionState:
    """Merge ``update`` into the state kept at ``path`` (read again under the lock, so that
    what another call wrote meanwhile stays) and write it; the state written."""
    with locked(path):
        state = load(path)
        update.apply(state)
        save(path, state)
    return state


def save(path: Path, state: SessionState) -> None:
    """Write ``state`` to ``path`` whole or not at all, and drop week-old sessions beside it."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    known = {
        path: {
            "digest": entry.digest,
            "findings": [
                {k: getattr(item, k) for k in (*_FIELDS, *_OPTIONAL)} for item in entry.findings
            ],
        }
        for path, entry in state.known.items()
    }
    text = json.dumps(
        {
            "seen": state.seen,
            "turn": state.turn,
            "held": state.held,
            "known": known,
            "pending": {k: list(v) for k, v in state.pending.items()},
        }
    )
    _replace(path, text)
    now = time.time()
    for other in path.parent.glob("*.json"):
        with contextlib.suppress(OSError):
            if now - other.stat().st_mtime > KEPT_FOR:
                other.unlink()
                other.with_name(other.name + ".lock").unlink(missing_ok=True)


def _replace(path: Path, text: str) -> None:
    """``path`` holds ``text``, written whole or not at all."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


# -- the baseline -------------------------------------------------------------------------


@dataclass
class Baseline:
    """The tree when the turn began: each file's size and modification time (by path
    relative to the root), the texts of the files that differed from git's ``HEAD`` then
    (of every file a server takes, outside a repository), and whether ``HEAD`` holds the
    texts of the others (``git``)."""

    stamps: dict[str, tuple[int, int]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    git: bool = False


def baseline_file(path: Path) -> Path:
    """The baseline kept beside the session's state at ``path``."""
    return path.with_name(path.stem + ".baseline.json")


def load_baseline(path: Path) -> Baseline | None:
    """The baseline kept for the session whose state is at ``path``, or ``None``."""
    try:
        data = json.loads(baseline_file(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    stamps = data.get("stamps")
    texts = data.get("texts")
    if not isinstance(stamps, dict) or not isinstance(texts, dict):
        return None
    return Baseline(
        {
            key: (value[0], value[1])
            for key, value in stamps.items()
            if isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, int) for v in value)
        },
        {key: value for key, value in texts.items() if isinstance(value, str)},
        data.get("from_git") is True,
    )


def save_baseline(path: Path, baseline: Baseline, *, first: bool = False) -> None:
    """Keep ``baseline`` for the session whose state is at ``path`` (whole or not at all);
    with ``first``, only when the session has none yet (several first calls of one session
    may run at once: the earliest baseline kept stays)."""
    if first:
        with locked(path):
            if not baseline_file(path).exists():
                save_baseline(path, baseline)
        return
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    text = json.dumps(
        {
            "stamps": {key: list(value) for key, value in baseline.stamps.items()},
            "texts": baseline.texts,
            "from_git": baseline.git,
        }
    )
    _replace(baseline_file(path), text)
