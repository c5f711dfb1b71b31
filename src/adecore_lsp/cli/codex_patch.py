"""Codex's ``apply_patch`` envelope, read: which files it adds, updates, moves and deletes, and
the lines each hunk removed and added, so that the text a file had before the patch is
recovered from the text it has after, as it is for an ``Edit`` (a person's own uncommitted
error is then not blamed on the agent).

The format (``codex-rs/apply-patch/apply_patch_tool_instructions.md`` in openai/codex)::

    *** Begin Patch
    *** Add File: <path>          every following line is a "+" line
    *** Delete File: <path>
    *** Update File: <path>
    *** Move to: <new path>       (optional, right after an Update)
    @@ [a line of the file, as an anchor]
     context / -removed / +added   one or more hunks
    *** End of File               (optional, after a hunk)
    *** End Patch

No I/O here: ``hook.py`` reads the files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []

Action = Literal["add", "update", "delete"]


@dataclass(frozen=True)
class Hunk:
    """One hunk: the lines it found (context and removed) and left (context and added)."""

    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass
class PatchedFile:
    """One file the patch touches: ``path`` as written, its ``action``, ``moved_to`` the
    path an update moved it to, and the update's hunks in order."""

    path: str
    action: Action
    moved_to: str | None = None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def written(self) -> str | None:
        """The path that holds the file after the patch (``None``: deleted)."""
        if self.action == "delete":
            return None
        return self.moved_to or self.path


_HEADERS: dict[str, Action] = {
    "*** Add File: ": "add",
    "*** Update File: ": "update",
    "*** Delete File: ": "delete",
}


def parse_patch(patch: str) -> list[PatchedFile]:
    """The files of an ``apply_patch`` envelope, in order (lines outside a file's section,
    and a malformed line inside one, are passed over: the patch was applied already, and
    what cannot be read only costs the hook its certainty about a text before)."""
    found: list[PatchedFile] = []
    current: PatchedFile | None = None
    old: list[str] = []
    new: list[str] = []

    def close_hunk() -> None:
        if current is not None and (old or new):
            current.hunks.append(Hunk(tuple(old), tuple(new)))
        old.clear()
        new.clear()

    for line in patch.splitlines():
        header = next((h for h in _HEADERS if line.startswith(h)), None)
        if header is not None:
            close_hunk()
            current = PatchedFile(line[len(header) :].strip(), _HEADERS[header])
            found.append(current)
            continue
        if line.startswith("*** Move to: ") and current is not None:
            current.moved_to = line[len("*** Move to: ") :].strip()
            continue
        if line.startswith("***"):  # End of File, End Patch, Begin Patch
            close_hunk()
            if line.startswith("*** End Patch"):
                current = None
            continue
        if current is None or current.action == "delete":
            continue
        if line.startswith("@@"):
            close_hunk()
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith("-") and current.action == "update":
            old.append(line[1:])
        elif line.startswith(" ") and current.action == "update":
            old.append(line[1:])
            new.append(line[1:])
    close_hunk()
    return found


def undo_hunks(text: str, hunks: Sequence[Hunk]) -> str | None:
    """The text before ``hunks`` were applied to make ``text``: each hunk's lines after
    found exactly once, as whole lines, and put back as its lines before (last hunk
    first); ``None`` when that cannot be known for certain (a hunk that left no line, or
    whose lines are found twice or not at all)."""
    for hunk in reversed(hunks):
        if not hunk.new:
            return None
        framed = "\n" + text + "\n"
        block = "\n" + "\n".join(hunk.new) + "\n"
        at = framed.find(block)
        if at == -1 or framed.find(block, at + 1) != -1:
            return None
        replaced = "\n" + "\n".join(hunk.old) + "\n" if hunk.old else "\n"
        framed = framed[:at] + replaced + framed[at + len(block) :]
        text = framed[1:-1]
    return text
