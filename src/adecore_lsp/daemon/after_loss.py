"""What a caller says when its daemon went away during a command that writes: what is on
disk, not "run it again".

The daemon tells its caller each set of files it writes (the journal's record: every
write's target and the digests of its old and new text, every rename and delete) before it
replaces the first file. When the connection ends without an exit status, the caller
finishes (or undoes) a set the dead daemon left half done, as any next command on the root
would (:func:`~adecore_lsp.write_journal.recover`), then looks at each file: all written, none
written, or some of each. Imported only then: the client's usual path stays light.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..write_journal import content, digest, recover

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

WENT_AWAY = "the daemon went away during the command (see `adecore-lsp daemon status`)"


def on_disk(sets: Sequence[dict[str, Any]], cwd: str) -> tuple[str, int]:
    """What the caller says of ``sets`` (journal records the daemon told) after the daemon
    went away, and the command's exit status: 3 when every file was written (what the
    write introduced was not checked), 2 otherwise."""
    for root in dict.fromkeys(str(record.get("root", "")) for record in sets):
        if root:
            recover(Path(root))
    states = _states(sets)
    written = [path for path, state in states.items() if state == "new"]
    shown = [_shown(path, cwd) for path in states]
    if states and len(written) == len(states):
        count = f"{len(written)} file{'s' * (len(written) != 1)}"
        return (
            f"error: {WENT_AWAY} after the files were written: {count} changed "
            f"({', '.join(shown)}); what the write introduced was not checked",
            3,
        )
    if all(state == "old" for state in states.values()):
        return (
            f"error: {WENT_AWAY} before any file was written: nothing was written; run it "
            "again, or with --daemon off",
            2,
        )
    parts = []
    for state, words in (("new", "written"), ("old", "not written"), ("other", "changed since")):
        names = [_shown(path, cwd) for path, found in states.items() if found == state]
        if names:
            parts.append(f"{words}: {', '.join(names)}")
    return f"error: {WENT_AWAY} while writing the files; {'; '.join(parts)}", 2


def _states(sets: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Each path the sets change, by what it holds: ``new`` (what the sets leave there),
    ``old`` (what was there before them) or ``other``. A write's texts are digests; a
    rename's and a delete's paths are ``present`` or ``absent``."""
    expected: dict[str, tuple[Any, Any]] = {}

    def expect(path: Any, old: Any, new: Any) -> None:
        first = expected.get(str(path), (old, new))[0]  # what was there before the first
        expected[str(path)] = (first, new)

    for record in sets:
        for step in record.get("steps") or []:
            op = step.get("op")
            if op == "write":
                expect(step.get("target"), step.get("old"), step.get("new"))
            elif op == "rename":
                expect(step.get("old"), "present", "absent")
                expect(step.get("new"), "absent", "present")
            elif op == "delete":
                expect(step.get("target"), "present", "absent")
    states: dict[str, str] = {}
    for path, (old, new) in expected.items():
        now = _now(path, new)
        states[path] = "new" if now == new else "old" if now == _now(path, old) == old else "other"
    return states


def _now(path: str, like: Any) -> Any:
    """What ``path`` holds, in the form ``like`` has: presence, or a digest (``None``: no
    file)."""
    if like in ("present", "absent"):
        return "present" if os.path.lexists(path) else "absent"
    return digest(content(Path(path)))


def _shown(path: str, cwd: str) -> str:
    relative = os.path.relpath(path, cwd)
    return path if relative.startswith("..") else relative
