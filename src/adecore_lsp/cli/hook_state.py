"""What a hook remembers of an agent's session between its calls: the text each file had
when the hook last saw it, the text each file had before the agent's turn first edited it,
and the errors a stop hook last held the agent for.

One small JSON file per root and session under ``$XDG_STATE_HOME/adecore-lsp/hooks``,
named by digests (a session id is the host's, a stranger's string), replaced atomically;
files of sessions untouched for a week are removed as others are written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
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
    return SessionState(
        {k: v for k, v in seen.items() if isinstance(v, str)} if isinstance(seen, dict) else {},
        {k: v for k, v in turn.items() if v is None or isinstance(v, str)}
        if isinstance(turn, dict)
        else {},
        [item for item in held if isinstance(item, str)] if isinstance(held, list) else [],
        _known(data.get("known")),
    )


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
    text = json.dumps({"seen": state.seen, "turn": state.turn, "held": state.held, "known": known})
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    now = time.time()
    for other in path.parent.glob("*.json"):
        with contextlib.suppress(OSError):
            if now - other.stat().st_mtime > KEPT_FOR:
                other.unlink()
